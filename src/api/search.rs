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
use crate::area_index::AreaIndex;
use crate::error::ApiResult;
use crate::geo::Disc;
use crate::match_cache::MatchCache;
use crate::params::SearchParams;

#[derive(Debug, Serialize)]
pub struct SearchPage {
    pub data: Vec<AreaSummary>,
    pub total: i64,
    pub limit: i64,
}

pub fn search(conn: &Connection, index: &AreaIndex, p: &SearchParams) -> ApiResult<SearchPage> {
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
        (_, false) => by_text(conn, index, p, disc.as_ref())?,
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

/// Full-text matches, best first: the index's rowid is the search rank
/// (shorter names first, ties by area_no; schema.sql search_rank), so FTS5
/// yields them in relevance order, and stepping can stop after a page.
const MATCHING: &str = "SELECT rowid FROM areas_fts WHERE areas_fts MATCH ?1 ORDER BY rowid";

const COUNT_MATCHING: &str = "SELECT count(*) FROM areas_fts WHERE areas_fts MATCH ?1";

/// Every word must match as a prefix in name, municipality or province.
/// Relevance: areas whose name holds every word first, then the others; within
/// each, by search rank. Returns the total and the page, with distances when a
/// disc is given.
fn by_text(
    conn: &Connection,
    index: &AreaIndex,
    p: &SearchParams,
    disc: Option<&Disc>,
) -> ApiResult<(usize, Page)> {
    let words = fts_words(&p.words);
    let in_name = format!("name : ({words})");
    let limit = p.limit as usize;
    let (total, page) = if p.min_score.is_none() && disc.is_none() {
        // Nothing to filter: FTS5 counts, and reads only the page's rowids.
        let total: i64 = conn
            .prepare_cached(COUNT_MATCHING)?
            .query_row([&words], |r| r.get(0))?;
        let mut page = ranks(conn, &in_name, limit)?;
        if page.len() < limit && (total as usize) > page.len() {
            // The name tier is complete and short: fill from the first
            // `limit` matches anywhere, which hold enough of the others.
            let named = page.clone();
            let others = ranks(conn, &words, limit)?;
            page.extend(others.into_iter().filter(|r| !named.contains(r)));
            page.truncate(limit);
        }
        let page = page
            .into_iter()
            .filter_map(|r| index.by_rank(r).map(|e| i64::from(e.area_no)))
            .collect();
        (total as usize, page)
    } else {
        // Every match is checked against the in-memory index to be counted.
        let min = p.min_score.unwrap_or(0.0);
        let admitted = |rank: u32| {
            let e = index.by_rank(i64::from(rank))?;
            let fits =
                e.truth_score >= min && disc.is_none_or(|d| d.contains(&e.unit, e.lat, e.lng));
            fits.then_some(e.area_no as i64)
        };
        let cache = &index.matches;
        let everywhere = all_ranks(conn, cache, &words, |n| cache.is_heavy(n))?;
        let heavy = cache.is_heavy(everywhere.len());
        let mut page = Vec::new();
        if heavy {
            let in_name = all_ranks(conn, cache, &in_name, |_| true)?;
            page.extend(in_name.iter().filter_map(|&r| admitted(r)).take(limit));
        } else {
            // Light words: the name tier is read only until it fills the page.
            each_rank(conn, &in_name, |rank| {
                page.extend(u32::try_from(rank).ok().and_then(admitted));
                page.len() < limit
            })?;
        }
        // A page the name tier did not fill holds every admitted name match,
        // so the other admitted matches are exactly those not on it.
        let named = page.len();
        let mut total = 0;
        for no in everywhere.iter().filter_map(|&r| admitted(r)) {
            total += 1;
            if page.len() < limit && !page[..named].contains(&no) {
                page.push(no);
            }
        }
        (total, page)
    };
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

/// Every match, best first: the kept list (src/match_cache.rs), or else read
/// from FTS5 and kept when `worth_keeping` says so of its length.
fn all_ranks(
    conn: &Connection,
    cache: &MatchCache,
    fts_query: &str,
    worth_keeping: impl Fn(usize) -> bool,
) -> ApiResult<Arc<[u32]>> {
    if let Some(ranks) = cache.get(fts_query) {
        return Ok(ranks);
    }
    let mut read = Vec::new();
    // Ranks run from 1 to the number of areas (load.rs), so they fit a u32.
    each_rank(conn, fts_query, |rank| {
        read.extend(u32::try_from(rank).ok());
        true
    })?;
    let ranks: Arc<[u32]> = read.into();
    if worth_keeping(ranks.len()) {
        cache.keep(fts_query, ranks.clone());
    }
    Ok(ranks)
}

/// The ranks of the first `limit` matches, best first.
fn ranks(conn: &Connection, fts_query: &str, limit: usize) -> ApiResult<Vec<i64>> {
    let mut found = Vec::new();
    if limit > 0 {
        each_rank(conn, fts_query, |rank| {
            found.push(rank);
            found.len() < limit
        })?;
    }
    Ok(found)
}

/// Each word as a quoted FTS5 prefix term. Words hold only letters, digits and
/// combining marks (see params::search_words), so quoting makes them plain text.
fn fts_words(words: &[String]) -> String {
    words
        .iter()
        .map(|w| format!("\"{}\"*", w.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" ")
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
