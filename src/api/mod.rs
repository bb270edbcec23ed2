//! The endpoints, one file per family, and the response pieces they share.
//!
//! Handlers are plain functions from a connection and typed parameters to a
//! serializable body or an `ApiError`; they never see HTTP.

pub mod areas;
pub mod areas_by_id;
pub mod at;
pub mod boundaries;
pub mod compare;
pub mod contract;
pub mod export;
pub mod format;
pub mod history;
pub mod params;
pub mod query;
pub mod rank;
pub mod render;
pub mod router;
pub mod search;
pub mod stats;
#[cfg(test)]
pub(crate) mod test_seed;

use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;

pub use crate::domain::DimensionMap;
use crate::domain::round2;
use crate::error::ApiResult;
use crate::search::query::explain::SearchMatch;

/// An area in list form (docs/api.md, "List Areas"); search adds distance_km when geo is given.
#[derive(Debug, Serialize)]
pub struct AreaSummary {
    pub id: String,
    pub name: String,
    pub province: String,
    /// The province's slug, the word the `province` filter takes.
    pub province_slug: String,
    pub municipality: String,
    pub truth_score: f64,
    pub updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance_km: Option<f64>,
    /// How a search with q found the area (search/query/explain.rs); absent
    /// elsewhere.
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    pub matched: Option<SearchMatch>,
    /// The centre, for the representations that carry it (CSV, GeoJSON);
    /// the spec's JSON list form has no coordinates.
    #[serde(skip)]
    pub lat: f64,
    #[serde(skip)]
    pub lng: f64,
}

/// A page of areas in list form: what List and Search answer.
#[derive(Debug, Serialize)]
pub struct AreaPage {
    pub data: Vec<AreaSummary>,
    /// With List's `ids=`: the ids given that no area of the answer has, in
    /// the order given (api/areas_by_id.rs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<Vec<String>>,
    pub total: i64,
    pub limit: i64,
    pub offset: i64,
}

/// Where a page lies among the matches: what its Link and X-Total-Count
/// headers are made from.
#[derive(Debug, Clone, Copy)]
pub struct PageSpan {
    pub total: i64,
    pub limit: i64,
    pub offset: i64,
}

impl AreaPage {
    pub fn span(&self) -> PageSpan {
        PageSpan {
            total: self.total,
            limit: self.limit,
            offset: self.offset,
        }
    }
}

const SUMMARY_BY_NO: &str = "
    SELECT id, name, province, province_slug, municipality, truth_score, updated_at, lat, lng
    FROM areas WHERE area_no = ?1";

/// The list form of each area, in order, with its distance when it has
/// one: one statement for them all.
pub fn summaries(
    conn: &Connection,
    areas: impl IntoIterator<Item = (i64, Option<f64>)>,
) -> ApiResult<Vec<AreaSummary>> {
    let mut by_no = conn.prepare_cached(SUMMARY_BY_NO)?;
    areas
        .into_iter()
        .map(|(area_no, distance_km)| {
            let mut area = by_no.query_row([area_no], summary_from_row)?;
            area.distance_km = distance_km.map(round2);
            Ok(area)
        })
        .collect()
}

/// The list form from a row whose first nine columns are id, name, province,
/// province_slug, municipality, truth_score, updated_at, lat and lng.
pub fn summary_from_row(r: &rusqlite::Row) -> rusqlite::Result<AreaSummary> {
    Ok(AreaSummary {
        id: r.get(0)?,
        name: r.get(1)?,
        province: r.get(2)?,
        province_slug: r.get(3)?,
        municipality: r.get(4)?,
        truth_score: r.get(5)?,
        updated_at: r.get(6)?,
        distance_km: None,
        matched: None,
        lat: r.get(7)?,
        lng: r.get(8)?,
    })
}

/// The area_no of an area id, if there is such an area.
pub fn area_no(conn: &Connection, id: &str) -> ApiResult<Option<i64>> {
    let no = conn
        .prepare_cached("SELECT area_no FROM areas WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    Ok(no)
}
