//! A text search's page: the strict tier (every word exactly or as a
//! prefix, api/search_text.rs), then, unless `match=exact`, the forgiving
//! tiers (api/search_forgiving.rs); each item with how it matched
//! (api/search_explain.rs).

use rusqlite::Connection;

use super::search_text;
use super::{Filter, Page, Searchable, Window};
use crate::api::contract::FORGIVING_WORDS_MAX;
use crate::api::params::SearchParams;
use crate::api::search_explain::explain;
use crate::api::search_params::{MatchTier, Matching};
use crate::api::search_words::{WordSets, word_matches};
use crate::api::{AreaSummary, search_forgiving, search_forgiving_terms, summary};
use crate::data::stored;
use crate::error::ApiResult;

/// The total and the page of a text search, with each item's tier.
/// Relevance: the tiers in order; within one, areas whose name holds every
/// word first, then the others, each by search rank.
pub fn by_text(
    conn: &Connection,
    data: &Searchable,
    filter: &Filter,
    p: &SearchParams,
    w: Window,
) -> ApiResult<(usize, Page, Vec<MatchTier>)> {
    let forgiving = p.matching == Matching::Forgiving && p.words.len() <= FORGIVING_WORDS_MAX;
    let plan = forgiving
        .then(|| search_forgiving_terms::plan(data.vocabulary, &p.words))
        .flatten();
    // Forgiving search reads each word's exact matches to grade areas; the
    // strict tier is their intersection, so it reads nothing again.
    let grades = match &plan {
        Some(plan) => Some(search_forgiving_terms::read(
            conn,
            filter.index,
            data.matches,
            data.vocabulary,
            &p.words,
            plan,
        )?),
        None => None,
    };
    let sets = match &grades {
        Some(g) => WordSets::of_words(g.words.iter().map(|w| &w.exact), filter.index.area_count()),
        None => word_matches(conn, filter.index, data.matches, &p.words)?,
    };
    let (total, page) = match sets.anywhere.word_bits() {
        Some(bits) if filter.narrows() => search_text::counted(filter, &sets, &bits, w),
        _ if sets.anywhere.list_len().is_some_and(|n| filter.masks(n)) => {
            search_text::masked(filter, &sets, w)
        }
        _ => search_text::walked(filter, &sets, w),
    };
    let mut page: Page = page.into_iter().map(|no| filter.entry(no)).collect();
    let mut tiers = vec![MatchTier::Exact; page.len()];
    let Some(grades) = grades else {
        return Ok((total, page, tiers));
    };
    let rest = Window {
        start: w.start.saturating_sub(total),
        end: w.end.saturating_sub(total),
    };
    let (more, found) = search_forgiving::page(filter, &grades, rest);
    for (no, tier) in found {
        page.push(filter.entry(no));
        tiers.push(tier);
    }
    Ok((total + more, page, tiers))
}

/// The list form of each area of a page, with how it matched.
pub fn explained(
    conn: &Connection,
    data: &Searchable,
    page: Page,
    tiers: Vec<MatchTier>,
    words: &[String],
) -> ApiResult<Vec<AreaSummary>> {
    page.into_iter()
        .zip(tiers)
        .map(|((area_no, distance_km), tier)| {
            let mut area = summary(conn, area_no, distance_km)?;
            // Only a forgiving tier can have matched through an other name.
            let others = if data.other_names && tier != MatchTier::Exact {
                stored::other_names(conn, area_no)?
            } else {
                Vec::new()
            };
            let texts = [area.name.as_str(), &area.municipality, &area.province];
            area.matched = Some(explain(texts, &others, words, tier));
            Ok(area)
        })
        .collect()
}
