//! Search Areas (`GET /v1/areas/search`): by text, by circle, by minimum score,
//! or any of them together (every criterion given must hold).
//!
//! Search runs in two steps. The first counts every match and picks the page
//! from FTS5 rowids and the in-memory area index, without reading any area
//! row; the second reads the list form of only the areas on the page.

use std::cmp::Ordering;

use rusqlite::{Connection, params};
use serde::Serialize;

use super::{AreaSummary, summary};
use crate::area_index::{AreaIndex, smallest};
use crate::error::ApiResult;
use crate::geo::Disc;
use crate::params::SearchParams;

#[derive(Debug, Serialize)]
pub struct SearchPage {
    pub data: Vec<AreaSummary>,
    pub total: i64,
    pub limit: i64,
}

/// One text match, before its details are read.
#[derive(Debug, Clone, Copy)]
struct Match {
    area_no: i64,
    /// 0 when every word matches the name, 1 when some match only elsewhere.
    tier: u8,
    name_chars: u32,
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

/// Relevance when q is given: name matches first, then shorter names (the
/// closer a name is to the words typed). Ties by id (area_no order is id order).
fn by_relevance(a: &Match, b: &Match) -> Ordering {
    a.tier
        .cmp(&b.tier)
        .then(a.name_chars.cmp(&b.name_chars))
        .then(a.area_no.cmp(&b.area_no))
}

/// Rowids of the areas matching a full-text query, ascending.
const MATCHING: &str = "SELECT rowid FROM areas_fts WHERE areas_fts MATCH ?1 ORDER BY rowid";

/// Every word must match as a prefix in name, municipality or province; the
/// page in relevance order, with distances when a disc is given.
fn by_text(
    conn: &Connection,
    index: &AreaIndex,
    p: &SearchParams,
    disc: Option<&Disc>,
) -> ApiResult<(usize, Vec<(i64, Option<f64>)>)> {
    let words = fts_words(&p.words);
    let everywhere = rowids(conn, &words)?;
    let in_name = rowids(conn, &format!("name : ({words})"))?;
    let min = p.min_score.unwrap_or(0.0);
    let mut matches = Vec::new();
    for area_no in everywhere {
        let Some(e) = index.get(area_no) else {
            continue;
        };
        if e.truth_score < min || disc.is_some_and(|d| !d.contains(&e.unit, e.lat, e.lng)) {
            continue;
        }
        let tier = if in_name.binary_search(&area_no).is_ok() {
            0
        } else {
            1
        };
        matches.push(Match {
            area_no,
            tier,
            name_chars: e.name_chars,
        });
    }
    let total = matches.len();
    smallest(&mut matches, p.limit as usize, by_relevance);
    let page = matches
        .iter()
        .map(|m| {
            let distance = disc
                .zip(index.get(m.area_no))
                .map(|(d, e)| d.distance_km(e.lat, e.lng));
            (m.area_no, distance)
        })
        .collect();
    Ok((total, page))
}

fn rowids(conn: &Connection, fts_query: &str) -> ApiResult<Vec<i64>> {
    let mut stmt = conn.prepare_cached(MATCHING)?;
    let found = stmt
        .query_map([fts_query], |r| r.get(0))?
        .collect::<Result<Vec<i64>, _>>()?;
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
mod tests {
    use super::*;

    #[test]
    fn words_become_quoted_prefix_terms() {
        assert_eq!(
            fts_words(&["cape".into(), "town".into()]),
            "\"cape\"* \"town\"*"
        );
    }
}
