//! Search Areas (`GET /v1/areas/search`): by text, by circle, by minimum score,
//! or any of them together (every criterion given must hold).
//!
//! Search runs in two steps. The first finds every matching area as a small
//! tuple (area_no, tier, rank, distance), so `total` counts every match; the
//! second reads the list form of only the areas on the page.

use std::cmp::Ordering;

use rusqlite::{Connection, params};
use serde::Serialize;

use super::{AreaSummary, summary};
use crate::error::ApiResult;
use crate::geo::{self, BoundingBox};
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
    /// FTS5's bm25 (lower is better); 0 without q.
    rank: f64,
    distance_km: Option<f64>,
}

pub fn search(conn: &Connection, p: &SearchParams) -> ApiResult<SearchPage> {
    if p.words.is_empty() && p.circle.is_none() {
        return by_score_only(conn, p.min_score.unwrap_or(0.0), p.limit);
    }
    let mut matches = if p.words.is_empty() {
        by_circle(conn, p)?
    } else {
        by_text(conn, p)?
    };
    matches.sort_by(|a, b| order(a, b, !p.words.is_empty()));
    let total = matches.len() as i64;
    let data = matches
        .iter()
        .take(p.limit as usize)
        .map(|m| summary(conn, m.area_no, m.distance_km))
        .collect::<ApiResult<Vec<_>>>()?;
    Ok(SearchPage {
        data,
        total,
        limit: p.limit,
    })
}

/// Relevance when q is given, else distance; ties by id (area_no order is id order).
fn order(a: &Match, b: &Match, by_relevance: bool) -> Ordering {
    let first = if by_relevance {
        a.tier.cmp(&b.tier).then(a.rank.total_cmp(&b.rank))
    } else {
        a.distance_km
            .unwrap_or(0.0)
            .total_cmp(&b.distance_km.unwrap_or(0.0))
    };
    first.then(a.area_no.cmp(&b.area_no))
}

fn by_circle(conn: &Connection, p: &SearchParams) -> ApiResult<Vec<Match>> {
    let circle = p.circle.expect("by_circle needs a circle");
    let min = p.min_score.unwrap_or(0.0);
    Ok(geo::within(conn, &circle)?
        .into_iter()
        .filter(|h| h.truth_score >= min)
        .map(|h| Match {
            area_no: h.area_no,
            tier: 0,
            rank: 0.0,
            distance_km: Some(h.distance_km),
        })
        .collect())
}

/// Every word must match as a prefix in name, municipality or province. Name
/// matches weigh ten times more in bm25, and areas whose name holds every word
/// come first of all.
const BY_TEXT: &str = "
    SELECT a.area_no, a.lat, a.lng,
           a.area_no IN (SELECT rowid FROM areas_fts WHERE areas_fts MATCH ?2) AS in_name,
           bm25(areas_fts, 10.0, 1.0, 1.0)
    FROM areas_fts JOIN areas a ON a.area_no = areas_fts.rowid
    WHERE areas_fts MATCH ?1 AND a.truth_score >= ?3
      AND a.lat BETWEEN ?4 AND ?5 AND a.lng BETWEEN ?6 AND ?7";

fn by_text(conn: &Connection, p: &SearchParams) -> ApiResult<Vec<Match>> {
    let words = fts_words(&p.words);
    let everywhere = words.clone();
    let in_name = format!("name : ({words})");
    let b = p
        .circle
        .map(|c| geo::bounding_box(&c))
        .unwrap_or(BoundingBox {
            min_lat: -90.0,
            max_lat: 90.0,
            min_lng: -180.0,
            max_lng: 180.0,
        });
    let mut stmt = conn.prepare_cached(BY_TEXT)?;
    let rows = stmt.query_map(
        params![
            everywhere,
            in_name,
            p.min_score.unwrap_or(0.0),
            b.min_lat,
            b.max_lat,
            b.min_lng,
            b.max_lng
        ],
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, f64>(1)?,
                r.get::<_, f64>(2)?,
                r.get::<_, bool>(3)?,
                r.get::<_, f64>(4)?,
            ))
        },
    )?;
    let mut matches = Vec::new();
    for row in rows {
        let (area_no, lat, lng, in_name, rank) = row?;
        let distance_km = match &p.circle {
            None => None,
            Some(c) => {
                let d = geo::haversine_km(c.lat, c.lng, lat, lng);
                if d > c.radius_km {
                    continue;
                }
                Some(d)
            }
        };
        matches.push(Match {
            area_no,
            tier: if in_name { 0 } else { 1 },
            rank,
            distance_km,
        });
    }
    Ok(matches)
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
const COUNT_BY_SCORE: &str = "SELECT count(*) FROM areas WHERE truth_score >= ?1";

/// min_score alone: the highest scores first, read straight off the score index.
fn by_score_only(conn: &Connection, min: f64, limit: i64) -> ApiResult<SearchPage> {
    let total: i64 = conn
        .prepare_cached(COUNT_BY_SCORE)?
        .query_row([min], |r| r.get(0))?;
    let nos = conn
        .prepare_cached(TOP_BY_SCORE)?
        .query_map(params![min, limit], |r| r.get::<_, i64>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    let data = nos
        .into_iter()
        .map(|no| summary(conn, no, None))
        .collect::<ApiResult<Vec<_>>>()?;
    Ok(SearchPage { data, total, limit })
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
