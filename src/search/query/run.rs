//! The total and page of one search (docs/api.md, "Search Areas"): by
//! text, by circle, by map viewport, by minimum score, by province, or any
//! of them together (every criterion given must hold), at any offset.
//!
//! It counts every match and picks the page from FTS5 rowids and the
//! in-memory area index, without reading any area row; the endpoint
//! (api/search.rs) then reads the list form of only the areas on the page.

use rusqlite::{Connection, params};

use super::filter::Filter;
use super::tier::{MatchTier, Matching};
use super::{Page, Searchable, Window, by_text};
use crate::error::ApiResult;
use crate::search::index::geo::Disc;
use crate::search::shape::bbox::BBox;
use crate::search::shape::circles::Within;

/// A search's total and page; by text, the tier of each item too.
pub struct Found {
    pub total: usize,
    pub page: Page,
    pub tiers: Option<Vec<MatchTier>>,
}

/// The total and the page in `window` of the areas that pass `filter` and
/// match every word (as `matching` says), in the search's order: by text,
/// the tiers by relevance; else nearest first with a circle, best score
/// first without.
pub fn run(
    conn: &Connection,
    data: &Searchable,
    filter: &Filter,
    (words, matching): (&[String], Matching),
    window: Window,
) -> ApiResult<Found> {
    let (total, page) = match (&filter.disc, words.is_empty()) {
        (_, false) => {
            let (total, page, tiers) =
                by_text::by_text(conn, data, filter, (words, matching), window)?;
            return Ok(Found {
                total,
                page,
                tiers: Some(tiers),
            });
        }
        (Some(disc), true) => by_distance(filter, disc, window),
        (None, true) => match &filter.bbox {
            Some(bbox) => by_score_in_box(filter, bbox, window),
            None if filter.province.is_some() => by_score_in_province(filter, window),
            None => by_score(conn, filter, window)?,
        },
    };
    Ok(Found {
        total,
        page,
        tiers: None,
    })
}

/// Nearest first, ties by id; inside the viewport too when there is one.
fn by_distance(filter: &Filter, disc: &Disc, w: Window) -> (usize, Page) {
    let k = w.end.min(filter.index.area_count());
    let within = Within {
        bbox: filter.bbox.as_ref(),
        province: filter.province,
    };
    let nearest = filter
        .index
        .nearest_within(disc, within, filter.min_score, k);
    let page = nearest
        .hits
        .iter()
        .skip(w.start)
        .map(|h| (h.area_no, Some(h.distance_km)))
        .collect();
    (nearest.total, page)
}

/// The areas of a viewport, best score first, ties by id.
fn by_score_in_box(filter: &Filter, bbox: &BBox, w: Window) -> (usize, Page) {
    let index = filter.index;
    let (total, best) = index.best_in_box(bbox, filter.min_score, filter.province, w.end);
    let page = best
        .iter()
        .skip(w.start)
        .map(|&no| (i64::from(no), None))
        .collect();
    (total, page)
}

/// A province, with or without min_score: the highest scores first, from
/// the province's bitmap in score order (search/index/provinces.rs).
fn by_score_in_province(filter: &Filter, w: Window) -> (usize, Page) {
    let shape = filter.shape();
    let (total, positions) = filter.index.page_scoring_in(&shape, &[], (w.start, w.end));
    let page = positions
        .into_iter()
        .map(|i| (i64::from(filter.index.at(i).area_no), None))
        .collect();
    (total, page)
}

const TOP_BY_SCORE: &str = "
    SELECT area_no FROM areas WHERE truth_score >= ?1
    ORDER BY truth_score DESC, area_no LIMIT ?2 OFFSET ?3";

/// min_score alone: the highest scores first, read straight off the score index.
fn by_score(conn: &Connection, filter: &Filter, w: Window) -> ApiResult<(usize, Page)> {
    let limit = (w.end - w.start) as i64;
    let offset = i64::try_from(w.start).unwrap_or(i64::MAX);
    let page = conn
        .prepare_cached(TOP_BY_SCORE)?
        .query_map(params![filter.min_score, limit, offset], |r| {
            Ok((r.get::<_, i64>(0)?, None))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok((filter.index.count_scoring(filter.min_score) as usize, page))
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "equivalence_tests.rs"]
mod equivalence;

#[cfg(test)]
#[path = "forgiving_tests.rs"]
mod forgiving_equivalence;
