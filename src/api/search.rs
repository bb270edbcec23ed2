//! Search Areas (`GET /v1/areas/search`): by text, by circle, by map viewport,
//! by minimum score, by province, or any of them together (every criterion
//! given must hold), a page at any offset.
//!
//! Search runs in two steps. The first counts every match and picks the page
//! from FTS5 rowids and the in-memory area index, without reading any area
//! row; the second reads the list form of only the areas on the page.

use rusqlite::{Connection, params};

use super::{AreaPage, summary};
use crate::api::params::SearchParams;
use crate::data::dataset::Dataset;
use crate::error::{ApiError, ApiResult};
use crate::search::area_index::AreaIndex;
use crate::search::bbox::BBox;
use crate::search::circles::Within;
use crate::search::geo::Disc;
use crate::search::match_cache::MatchCache;
use crate::search::provinces::ProvinceAreas;
use crate::search::region::Shape;
use crate::search::vocabulary::Vocabulary;

/// The positions of a page in a search's order: `start` up to `end`.
#[derive(Clone, Copy)]
pub struct Window {
    pub start: usize,
    pub end: usize,
}

/// What search reads of a dataset beside its connection (data/dataset.rs).
pub struct Searchable<'a> {
    pub index: &'a AreaIndex,
    pub matches: &'a MatchCache,
    pub vocabulary: &'a Vocabulary,
    /// Whether the file stores other names.
    pub other_names: bool,
}

impl Searchable<'_> {
    pub fn of(d: &Dataset) -> Searchable<'_> {
        Searchable {
            index: &d.index,
            matches: &d.matches,
            vocabulary: &d.vocabulary,
            other_names: d.other_names,
        }
    }
}

pub fn search(conn: &Connection, data: &Searchable, p: &SearchParams) -> ApiResult<AreaPage> {
    search_with(
        conn,
        data,
        p,
        (search_text::COLLECT_AT_MOST, Masking::ByCost),
    )
}

/// `search`, collecting a text tier's page from the bitmaps when it holds at
/// most `collect_at_most` matches, and masking as `masking` says (tests try
/// every way on small data).
fn search_with(
    conn: &Connection,
    data: &Searchable,
    p: &SearchParams,
    (collect_at_most, masking): (usize, Masking),
) -> ApiResult<AreaPage> {
    let index = data.index;
    let start = usize::try_from(p.offset).unwrap_or(usize::MAX);
    let window = Window {
        start,
        end: start.saturating_add(p.limit as usize),
    };
    // Every slug the parameters take names one of the index's provinces.
    let province = p
        .province
        .map(|slug| {
            index
                .province(slug)
                .ok_or_else(|| ApiError::invalid("province", format!("unknown province '{slug}'")))
        })
        .transpose()?;
    let filter = Filter {
        index,
        province,
        min_score: p.min_score.unwrap_or(0.0),
        disc: p.circle.map(Disc::new),
        bbox: p.bbox,
        collect_at_most,
        masking,
    };
    let (total, page) = match (&filter.disc, p.words.is_empty()) {
        (_, false) => {
            let (total, page, tiers) = by_text::by_text(conn, data, &filter, p, window)?;
            let areas = by_text::explained(conn, data, page, tiers, &p.words)?;
            return Ok(AreaPage {
                data: areas,
                total: total as i64,
                limit: p.limit,
                offset: p.offset,
            });
        }
        (Some(disc), true) => by_distance(&filter, disc, window),
        (None, true) => match &p.bbox {
            Some(bbox) => by_score_in_box(&filter, bbox, window),
            None if filter.province.is_some() => by_score_in_province(&filter, window),
            None => by_score(conn, &filter, window)?,
        },
    };
    let data = page
        .into_iter()
        .map(|(area_no, distance_km)| summary(conn, area_no, distance_km))
        .collect::<ApiResult<Vec<_>>>()?;
    Ok(AreaPage {
        data,
        total: total as i64,
        limit: p.limit,
        offset: p.offset,
    })
}

/// The areas of a page (area_no, and the distance when a disc is given).
pub type Page = Vec<(i64, Option<f64>)>;

/// Every criterion but the words: what an area must meet to be a match.
pub struct Filter<'a> {
    pub index: &'a AreaIndex,
    pub province: Option<&'a ProvinceAreas>,
    pub min_score: f64,
    pub disc: Option<Disc>,
    pub bbox: Option<BBox>,
    /// See `search_with`.
    pub collect_at_most: usize,
    /// When to test word matches against the shape's mask (search/shape_mask.rs).
    pub masking: Masking,
}

/// When a text search whose words are a list tests its matches against the
/// shape's mask rather than each match's entry.
#[derive(Clone, Copy)]
pub enum Masking {
    /// When the list holds at least as many matches as the shape spans grid
    /// cells: the mask costs about one look at each cell, as a match's entry
    /// costs a look.
    ByCost,
    /// Always, or never, when there is a circle or a viewport (tests).
    Always,
    Never,
}

impl Filter<'_> {
    /// The criteria as a shape over the grid (search/region.rs).
    pub fn shape(&self) -> Shape<'_> {
        Shape {
            min_score: self.min_score,
            disc: self.disc.as_ref(),
            bbox: self.bbox.as_ref(),
            province: self.province,
        }
    }

    /// Whether anything but the words narrows the search.
    pub fn narrows(&self) -> bool {
        self.min_score > 0.0
            || self.disc.is_some()
            || self.bbox.is_some()
            || self.province.is_some()
    }

    /// The area_no of the area with a search rank, if it is a match. A
    /// province's bitmap by rank turns most matches away before a look at
    /// their position and entry.
    pub fn admit(&self, rank: u32) -> Option<i64> {
        if self.province.is_some_and(|p| !p.holds_rank(rank)) {
            return None;
        }
        let i = self.index.position_of_rank(i64::from(rank))?;
        let area_no = i64::from(self.index.at(i).area_no);
        self.shape().holds(self.index, i).then_some(area_no)
    }

    /// The province, when it is the only criterion besides the words (no
    /// floor that cuts an area, no circle or viewport): a match is then
    /// admitted by its bit by rank alone.
    pub fn province_alone(&self) -> Option<&ProvinceAreas> {
        self.province.filter(|_| {
            self.disc.is_none()
                && self.bbox.is_none()
                && self.index.floor(self.min_score).admits_every()
        })
    }

    /// Whether a list of `matches` is tested against the shape's mask
    /// (search/shape_mask.rs): with a circle or a viewport, when `masking`
    /// says it pays.
    pub fn masks(&self, matches: usize) -> bool {
        if self.disc.is_none() && self.bbox.is_none() {
            return false;
        }
        match self.masking {
            Masking::ByCost => matches >= self.shape().cells_spanned(),
            Masking::Always => true,
            Masking::Never => false,
        }
    }

    /// A page entry, with the distance from the centre when there is one.
    pub fn entry(&self, area_no: i64) -> (i64, Option<f64>) {
        let distance = self
            .disc
            .zip(self.index.get(area_no))
            .map(|(d, e)| d.distance_km(e.lat, e.lng));
        (area_no, distance)
    }
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
/// the province's bitmap in score order (search/provinces.rs).
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

#[path = "search_text.rs"]
pub(crate) mod search_text;

#[path = "search_by_text.rs"]
mod by_text;

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "search_equivalence_tests.rs"]
mod equivalence;

#[cfg(test)]
#[path = "search_forgiving_tests.rs"]
mod forgiving_equivalence;
