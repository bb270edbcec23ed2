//! Search Areas (`GET /v1/areas/search`): by text, by circle, by minimum score,
//! or any of them together (every criterion given must hold).
//!
//! Search runs in two steps. The first counts every match and picks the page
//! from FTS5 rowids and the in-memory area index, without reading any area
//! row; the second reads the list form of only the areas on the page.

use std::sync::Arc;

use rusqlite::{Connection, params};
use serde::Serialize;

use super::{AreaSummary, summary};
use crate::api::params::SearchParams;
use crate::error::ApiResult;
use crate::search::area_index::AreaIndex;
use crate::search::geo::Disc;
use crate::search::match_cache::MatchCache;

#[derive(Debug, Serialize)]
pub struct SearchPage {
    pub data: Vec<AreaSummary>,
    pub total: i64,
    pub limit: i64,
}

pub fn search(
    conn: &Connection,
    index: &AreaIndex,
    matches: &MatchCache,
    p: &SearchParams,
) -> ApiResult<SearchPage> {
    let min = p.min_score.unwrap_or(0.0);
    let disc = p.circle.map(Disc::new);
    let (total, page) = match (&disc, p.words.is_empty()) {
        (None, true) => return by_score_only(conn, index, min, p.limit),
        (Some(disc), true) => {
            let nearest = index.nearest(disc, min, p.limit as usize, None);
            let page = nearest
                .hits
                .iter()
                .map(|h| (h.area_no, Some(h.distance_km)))
                .collect();
            (nearest.total, page)
        }
        (_, false) => by_text(conn, index, matches, p, disc.as_ref())?,
    };
    let data = page
        .into_iter()
        .map(|(area_no, distance_km)| summary(conn, area_no, distance_km))
        .collect::<ApiResult<Vec<_>>>()?;
    Ok(SearchPage {
        data,
        total: total as i64,
        limit: p.limit,
    })
}

/// The areas of a page (area_no, and the distance when a disc is given).
type Page = Vec<(i64, Option<f64>)>;

/// Search ranks of matches, best first (shared with the kept lists).
type Ranks = Arc<[u32]>;

/// Full-text matches, best first: the index's rowid is the search rank
/// (shorter names first, ties by area_no; schema.sql search_rank), so FTS5
/// yields them in relevance order.
const MATCHING: &str = "SELECT rowid FROM areas_fts WHERE areas_fts MATCH ?1 ORDER BY rowid";

/// Every word must match as a prefix in name, municipality or province.
/// Relevance: areas whose name holds every word first, then the others; within
/// each, by search rank. Returns the total and the page, with distances when a
/// disc is given.
fn by_text(
    conn: &Connection,
    index: &AreaIndex,
    matches: &MatchCache,
    p: &SearchParams,
    disc: Option<&Disc>,
) -> ApiResult<(usize, Page)> {
    let (anywhere, in_name) = word_matches(conn, matches, &p.words)?;
    let min = p.min_score.unwrap_or(0.0);
    let admitted = |rank: u32| {
        let e = index.by_rank(i64::from(rank))?;
        let fits = e.truth_score >= min && disc.is_none_or(|d| d.contains(&e.unit, e.lat, e.lng));
        fits.then_some(e.area_no as i64)
    };
    let limit = p.limit as usize;
    let mut page: Vec<i64> = in_name
        .iter()
        .filter_map(|&r| admitted(r))
        .take(limit)
        .collect();
    // A page the name tier did not fill holds every admitted name match,
    // so the other admitted matches are exactly those not on it.
    let named = page.len();
    let mut total = 0;
    for no in anywhere.iter().filter_map(|&r| admitted(r)) {
        total += 1;
        if page.len() < limit && !page[..named].contains(&no) {
            page.push(no);
        } else if page.len() == limit && p.min_score.is_none() && disc.is_none() {
            // Nothing filters: every match counts, and the page is full.
            total = anywhere.len();
            break;
        }
    }
    let page = page
        .into_iter()
        .map(|no| {
            let distance = disc
                .zip(index.get(no))
                .map(|(d, e)| d.distance_km(e.lat, e.lng));
            (no, distance)
        })
        .collect();
    Ok((total, page))
}

/// The ranks where every word matches anywhere, and where every word matches
/// in the name, best first.
///
/// Each word's matches are read on their own, anywhere and in the name, and
/// intersected here: the lists of common words ("west", "central", "6") are
/// kept (search/match_cache.rs), so a full name costs the reading of its rare
/// words only, where FTS5's own AND walked every common word's list each time.
/// Words already known to be rare are read together, two queries in all:
/// FTS5's own AND is cheap over short lists.
fn word_matches(
    conn: &Connection,
    cache: &MatchCache,
    words: &[String],
) -> ApiResult<(Ranks, Ranks)> {
    let mut anywhere = Vec::new();
    let mut in_name = Vec::new();
    let mut light = Vec::new();
    for word in words {
        let term = fts_term(word);
        if cache.is_light(&term) {
            light.push(term);
            continue;
        }
        let any = all_ranks(conn, cache, &term, |n| cache.is_heavy(n))?;
        // Reading where a word is in the name costs as much as reading all
        // its matches (FTS5 looks at each to tell the column), so the name
        // list of a heavy word is kept however short it is.
        let heavy = cache.is_heavy(any.len());
        if !heavy {
            cache.note_light(&term);
        }
        in_name.push(all_ranks(conn, cache, &in_name_query(&term), |_| heavy)?);
        anywhere.push(any);
    }
    if !light.is_empty() {
        let together = light.join(" ");
        anywhere.push(all_ranks(conn, cache, &together, |_| false)?);
        in_name.push(all_ranks(conn, cache, &in_name_query(&together), |_| {
            false
        })?);
    }
    Ok((intersection(anywhere), intersection(in_name)))
}

/// An FTS5 query that matches its terms in the name column only.
fn in_name_query(terms: &str) -> String {
    format!("name : ({terms})")
}

/// The ranks in every list, best first. Each list is sorted, so the shortest
/// is walked and the others searched, each from where the last search ended.
fn intersection(mut lists: Vec<Ranks>) -> Ranks {
    lists.sort_by_key(|l| l.len());
    let mut lists = lists.into_iter();
    let Some(shortest) = lists.next() else {
        return Arc::new([]);
    };
    let others: Vec<_> = lists.collect();
    if others.is_empty() {
        return shortest;
    }
    let mut from = vec![0; others.len()];
    shortest
        .iter()
        .copied()
        .filter(|rank| {
            others.iter().zip(from.iter_mut()).all(|(list, at)| {
                *at += list[*at..].partition_point(|r| r < rank);
                list.get(*at) == Some(rank)
            })
        })
        .collect()
}

/// Calls `each` on the rank of every match, best first, while it says go on.
fn each_rank(
    conn: &Connection,
    fts_query: &str,
    mut each: impl FnMut(i64) -> bool,
) -> ApiResult<()> {
    let mut stmt = conn.prepare_cached(MATCHING)?;
    let mut rows = stmt.query([fts_query])?;
    while let Some(row) = rows.next()? {
        if !each(row.get(0)?) {
            break;
        }
    }
    Ok(())
}

/// Every match, best first: the kept list (search/match_cache.rs), or else read
/// from FTS5 and kept when `worth_keeping` says so of its length.
fn all_ranks(
    conn: &Connection,
    cache: &MatchCache,
    fts_query: &str,
    worth_keeping: impl Fn(usize) -> bool,
) -> ApiResult<Ranks> {
    if let Some(ranks) = cache.get(fts_query) {
        return Ok(ranks);
    }
    let mut read = Vec::new();
    // Ranks run from 1 to the number of areas (data/load.rs), so they fit a u32.
    each_rank(conn, fts_query, |rank| {
        read.extend(u32::try_from(rank).ok());
        true
    })?;
    let ranks: Ranks = read.into();
    if worth_keeping(ranks.len()) {
        cache.keep(fts_query, ranks.clone());
    }
    Ok(ranks)
}

/// A word as a quoted FTS5 prefix term. Words hold only letters, digits and
/// combining marks (see params::search_words), so quoting makes them plain text.
fn fts_term(word: &str) -> String {
    format!("\"{}\"*", word.replace('"', "\"\""))
}

const TOP_BY_SCORE: &str = "
    SELECT area_no FROM areas WHERE truth_score >= ?1 ORDER BY truth_score DESC, area_no LIMIT ?2";

/// min_score alone: the highest scores first, read straight off the score index.
fn by_score_only(
    conn: &Connection,
    index: &AreaIndex,
    min: f64,
    limit: i64,
) -> ApiResult<SearchPage> {
    let nos = conn
        .prepare_cached(TOP_BY_SCORE)?
        .query_map(params![min, limit], |r| r.get::<_, i64>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    let data = nos
        .into_iter()
        .map(|no| summary(conn, no, None))
        .collect::<ApiResult<Vec<_>>>()?;
    Ok(SearchPage {
        data,
        total: index.count_scoring(min),
        limit,
    })
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
