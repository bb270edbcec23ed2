//! Search Areas (`GET /v1/areas/search`): by text, by circle, by minimum score,
//! or any of them together (every criterion given must hold).
//!
//! Search runs in two steps. The first finds every match as a small tuple
//! (area_no, tier, name length, distance) from FTS5 rowids and the in-memory
//! area index, so `total` counts every match without reading any area row; the
//! second reads the list form of only the areas on the page.

use std::cmp::Ordering;

use rusqlite::{Connection, params};
use serde::Serialize;

use super::{AreaSummary, summary};
use crate::area_index::{AreaIndex, smallest};
use crate::error::ApiResult;
use crate::params::SearchParams;

#[derive(Debug, Serialize)]
pub struct SearchPage {
    pub data: Vec<AreaSummary>,
    pub total: i64,
    pub limit: i64,
}

/// One matching area, before its details are read.
#[derive(Debug, Clone, Copy)]
struct Match {
    area_no: i64,
    /// 0 when every word matches the name, 1 when some match only elsewhere.
    tier: u8,
    name_chars: u32,
    distance_km: Option<f64>,
}

pub fn search(conn: &Connection, index: &AreaIndex, p: &SearchParams) -> ApiResult<SearchPage> {
    if p.words.is_empty() && p.circle.is_none() {
        return by_score_only(conn, index, p.min_score.unwrap_or(0.0), p.limit);
    }
    let mut matches = if p.words.is_empty() {
        by_circle(index, p)
    } else {
        by_text(conn, index, p)?
    };
    let total = matches.len() as i64;
    let by_relevance = !p.words.is_empty();
    smallest(&mut matches, p.limit as usize, |a, b| {
        order(a, b, by_relevance)
    });
    let data = matches
        .iter()
        .map(|m| summary(conn, m.area_no, m.distance_km))
        .collect::<ApiResult<Vec<_>>>()?;
    Ok(SearchPage {
        data,
        total,
        limit: p.limit,
    })
}

/// Relevance when q is given: name matches first, then shorter names (the
/// closer a name is to the words typed); else distance. Ties by id (area_no
/// order is id order).
fn order(a: &Match, b: &Match, by_relevance: bool) -> Ordering {
    let first = if by_relevance {
        a.tier.cmp(&b.tier).then(a.name_chars.cmp(&b.name_chars))
    } else {
        a.distance_km
            .unwrap_or(0.0)
            .total_cmp(&b.distance_km.unwrap_or(0.0))
    };
    first.then(a.area_no.cmp(&b.area_no))
}

fn by_circle(index: &AreaIndex, p: &SearchParams) -> Vec<Match> {
    let circle = p.circle.expect("by_circle needs a circle");
    index
        .within(&circle, p.min_score.unwrap_or(0.0))
        .into_iter()
        .map(|h| Match {
            area_no: h.area_no,
            tier: 0,
            name_chars: 0,
            distance_km: Some(h.distance_km),
        })
        .collect()
}

/// Rowids of the areas matching a full-text query, ascending.
const MATCHING: &str = "SELECT rowid FROM areas_fts WHERE areas_fts MATCH ?1 ORDER BY rowid";

/// Every word must match as a prefix in name, municipality or province.
fn by_text(conn: &Connection, index: &AreaIndex, p: &SearchParams) -> ApiResult<Vec<Match>> {
    let words = fts_words(&p.words);
    let everywhere = rowids(conn, &words)?;
    let in_name = rowids(conn, &format!("name : ({words})"))?;
    let min = p.min_score.unwrap_or(0.0);
    let mut matches = Vec::new();
    for area_no in everywhere {
        let Some(e) = index.get(area_no) else {
            continue;
        };
        if e.truth_score < min {
            continue;
        }
        let distance_km = match &p.circle {
            None => None,
            Some(c) => match index.distance_within(area_no, c) {
                None => continue,
                d => d,
            },
        };
        let tier = if in_name.binary_search(&area_no).is_ok() {
            0
        } else {
            1
        };
        matches.push(Match {
            area_no,
            tier,
            name_chars: e.name_chars,
            distance_km,
        });
    }
    Ok(matches)
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
