//! A text search's page: the strict tier (every word exactly or as a
//! prefix, text.rs), then, unless `match=exact`, the forgiving tiers
//! (forgiving.rs); each item with its tier, which the endpoint explains
//! (explain.rs).

use rusqlite::Connection;

use super::filter::Filter;
use super::tier::{FORGIVING_WORDS_MAX, MatchTier, Matching};
use super::{Page, Searchable, Window, forgiving, forgiving_read, forgiving_terms, text};
use crate::error::ApiResult;
use crate::search::matches::word_sets::{WordSets, word_matches};

/// The total and the page of a text search, with each item's tier.
/// Relevance: the tiers in order; within one, areas whose name holds every
/// word first, then the others, each by search rank.
pub fn by_text(
    conn: &Connection,
    data: &Searchable,
    filter: &Filter,
    (words, matching): (&[String], Matching),
    w: Window,
) -> ApiResult<(usize, Page, Vec<MatchTier>)> {
    let forgiving = matching == Matching::Forgiving && words.len() <= FORGIVING_WORDS_MAX;
    let plan = forgiving
        .then(|| forgiving_terms::plan(data.vocabulary, words))
        .flatten();
    // Forgiving search reads each word's exact matches to grade areas; the
    // strict tier is their intersection, so it reads nothing again.
    let grades = match &plan {
        Some(plan) => Some(forgiving_read::read(conn, data, words, plan)?),
        None => None,
    };
    let sets = match &grades {
        Some(g) => WordSets::of_words(g.words.iter().map(|w| &w.exact), filter.index.area_count()),
        None => word_matches(conn, filter.index, data.matches, words)?,
    };
    let (total, page) = match sets.anywhere.word_bits() {
        Some(bits) if filter.narrows() => text::counted(filter, &sets, &bits, w),
        _ if sets.anywhere.list_len().is_some_and(|n| filter.masks(n)) => {
            text::masked(filter, &sets, w)
        }
        _ => text::walked(filter, &sets, w),
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
    let (more, found) = forgiving::page(filter, &grades, rest);
    for (no, tier) in found {
        page.push(filter.entry(no));
        tiers.push(tier);
    }
    Ok((total + more, page, tiers))
}
