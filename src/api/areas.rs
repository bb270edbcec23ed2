//! List Areas (`GET /v1/areas`) and Get Area (`GET /v1/areas/{id}`).
//!
//! Listing reads the precomputed `area_order` table: every sort and direction,
//! for all areas and per province, stored by position at load time. A page at
//! any offset is an index seek, and `total` is the length of that ordering.

use std::io::Write;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use super::{AreaPage, PageSpan, area_no, history, summaries, summary_from_row};
use crate::api::params::{AreaParams, DEFAULT_HISTORY, ListParams};
use crate::data::dataset::Dataset;
use crate::data::stored::{self, ListTotals};
use crate::domain::round2;
use crate::error::{ApiError, ApiResult};
use crate::search::index::AreaIndex;
use crate::search::index::geo::Circle;
use crate::search::index::geo::Disc;

const PAGE: &str = "
    SELECT a.id, a.name, a.province, a.province_slug, a.municipality, a.truth_score,
           a.updated_at, a.lat, a.lng
    FROM area_order o JOIN areas a ON a.area_no = o.area_no
    WHERE o.ordering = ?1 AND o.province_slug = ?2 AND o.position >= ?3
    ORDER BY o.position LIMIT ?4";

/// A page of List Areas, or with `ids=` the areas asked for; `totals` are
/// the dataset's, read when it opened.
pub fn list(conn: &Connection, totals: &ListTotals, p: &ListParams) -> ApiResult<AreaPage> {
    if let Some(ids) = &p.ids {
        return super::areas_by_id::page(conn, ids, p.province);
    }
    let code = stored::ordering(p.sort, p.order).code;
    let province = p.province.unwrap_or("");
    let total = totals.of(p.province);
    let mut stmt = conn.prepare_cached(PAGE)?;
    let data = stmt
        .query_map(params![code, province, p.offset, p.limit], summary_from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(AreaPage {
        data,
        missing: None,
        total,
        limit: p.limit,
        offset: p.offset,
    })
}

/// About how many bytes a row of the JSON list form takes, to size a page's
/// body once.
pub(super) const LIST_ROW_BYTES: usize = 200;

/// List's JSON body, where it lies among the matches, and with `ids=` the
/// ids missing from it.
pub struct ListJson {
    pub span: PageSpan,
    pub missing: Option<Vec<String>>,
    pub body: Vec<u8>,
}

/// A page's stored list forms (data/stored.rs, `write_list_forms`).
const PAGE_OF_FORMS: &str = "
    SELECT f.body
    FROM area_order o JOIN area_list_form f ON f.area_no = o.area_no
    WHERE o.ordering = ?1 AND o.province_slug = ?2 AND o.position >= ?3
    ORDER BY o.position LIMIT ?4";

/// List Areas in the JSON list form, each row's bytes as stored: the bytes
/// serde writes for `list`'s page (a test compares them). A row written per
/// request was most of List's CPU (bench/PROFILE.md, "List rows stored").
pub fn list_json(conn: &Connection, totals: &ListTotals, p: &ListParams) -> ApiResult<ListJson> {
    if let Some(ids) = &p.ids {
        return super::areas_by_id::json(conn, ids, p.province);
    }
    let code = stored::ordering(p.sort, p.order).code;
    let span = PageSpan {
        total: totals.of(p.province),
        limit: p.limit,
        offset: p.offset,
    };
    let rows_bytes = usize::try_from(p.limit).unwrap_or(0) * LIST_ROW_BYTES;
    let mut out = Vec::with_capacity(rows_bytes + 64);
    out.extend_from_slice(b"{\"data\":[");
    let mut stmt = conn.prepare_cached(PAGE_OF_FORMS)?;
    let mut found = stmt.query(params![code, p.province.unwrap_or(""), p.offset, p.limit])?;
    let mut first = true;
    while let Some(r) = found.next()? {
        if !std::mem::take(&mut first) {
            out.push(b',');
        }
        write_row(&mut out, r)?;
    }
    // Writing into a Vec cannot fail.
    let _ = write!(
        out,
        "],\"total\":{},\"limit\":{},\"offset\":{}}}",
        span.total, span.limit, span.offset
    );
    Ok(ListJson {
        span,
        missing: None,
        body: out,
    })
}

/// One row's stored list form, copied as it is: stored as text by our own
/// serde, so copied without a UTF-8 check.
pub(super) fn write_row(out: &mut Vec<u8>, r: &rusqlite::Row) -> ApiResult<()> {
    match r.get_ref(0)? {
        ValueRef::Text(body) => out.extend_from_slice(body),
        _ => {
            log::error!("a list form in area_list_form is not text");
            return Err(ApiError::Internal);
        }
    }
    Ok(())
}

#[derive(Debug, Serialize)]
pub struct Nearby {
    pub id: String,
    pub name: String,
    pub truth_score: f64,
    pub distance_km: f64,
}

/// The stored detail form of an area, by id: one index lookup and one row.
const STORED_DETAIL: &str = "
    SELECT d.area_no, d.body
    FROM areas a JOIN area_detail d ON d.area_no = a.area_no
    WHERE a.id = ?1";

/// How many nearby areas, and how far they may be.
pub(crate) const NEARBY_COUNT: usize = 5;
pub(crate) const NEARBY_RADIUS_KM: f64 = 25.0;

/// The stored detail form of an area, by area_no.
const DETAIL_BY_NO: &str = "SELECT body FROM area_detail WHERE area_no = ?1";

/// Get Area: the detail form, with the extras asked for appended.
pub fn get(conn: &Connection, dataset: &Dataset, id: &str, p: &AreaParams) -> ApiResult<Vec<u8>> {
    let found: Option<(i64, String)> = conn
        .prepare_cached(STORED_DETAIL)?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let found = found.ok_or_else(|| ApiError::AreaNotFound {
        ids: vec![id.to_string()],
    })?;
    with_extras(conn, dataset, found, None, p)
}

/// The stored detail form of area `no`, which the dataset holds.
pub fn detail(conn: &Connection, no: i64) -> ApiResult<String> {
    Ok(conn
        .prepare_cached(DETAIL_BY_NO)?
        .query_row([no], |r| r.get(0))?)
}

/// The detail form `body` of area `no` with `first` (a member another
/// endpoint puts before the extras: its name and JSON), then rank, nearby,
/// history and the boundary appended when asked (nearby and history close the
/// object in that order, as the spec shows; the boundary, the largest, last).
pub fn with_extras(
    conn: &Connection,
    dataset: &Dataset,
    (no, body): (i64, String),
    first: Option<(&str, &[u8])>,
    p: &AreaParams,
) -> ApiResult<Vec<u8>> {
    let index = &dataset.index;
    let mut body = body.into_bytes();
    if first.is_none() && !p.nearby && !p.history && !p.boundary && !p.rank {
        return Ok(body);
    }
    let rank = match p.rank {
        true => Some(super::rank::of_detail(&dataset.standings, no, &body)?),
        false => None,
    };
    if body.pop() != Some(b'}') {
        log::error!("the stored detail of area {no} is not a JSON object");
        return Err(ApiError::Internal);
    }
    if let Some((name, json)) = first {
        body.extend_from_slice(format!(",\"{name}\":").as_bytes());
        body.extend_from_slice(json);
    }
    if let Some(rank) = rank {
        body.extend_from_slice(b",\"rank\":");
        super::rank::write_json(&mut body, &rank);
    }
    if p.nearby {
        let e = index.get(no).ok_or(ApiError::Internal)?;
        let centre = Circle {
            lat: e.lat,
            lng: e.lng,
            radius_km: NEARBY_RADIUS_KM,
        };
        append(&mut body, "nearby", &nearby(conn, index, no, centre)?)?;
    }
    if p.history {
        body.extend_from_slice(b",\"history\":");
        history::write_points(&mut body, &history::points(conn, no, &DEFAULT_HISTORY)?);
    }
    if p.boundary {
        body.extend_from_slice(b",\"boundary\":");
        match super::boundaries::of_area(conn, no)? {
            Some(text) => body.extend_from_slice(text.as_bytes()),
            None => body.extend_from_slice(b"null"),
        }
    }
    body.push(b'}');
    Ok(body)
}

/// Appends `,"name":value` to an object whose closing brace was taken off.
fn append(body: &mut Vec<u8>, name: &str, value: &impl Serialize) -> ApiResult<()> {
    body.extend_from_slice(format!(",\"{name}\":").as_bytes());
    serde_json::to_writer(&mut *body, value).map_err(|e| {
        log::error!("cannot serialize {name}: {e}");
        ApiError::Internal
    })
}

fn nearby(conn: &Connection, index: &AreaIndex, no: i64, centre: Circle) -> ApiResult<Vec<Nearby>> {
    let hits = index.nearest_hits(&Disc::new(centre), 0.0, NEARBY_COUNT, Some(no));
    let areas = summaries(conn, hits.iter().map(|h| (h.area_no, None)))?;
    Ok(hits
        .iter()
        .zip(areas)
        .map(|(h, s)| Nearby {
            id: s.id,
            name: s.name,
            truth_score: s.truth_score,
            distance_km: round2(h.distance_km),
        })
        .collect())
}

/// Looks up an id for endpoints that only need to know the area exists.
pub fn require_area(conn: &Connection, id: &str) -> ApiResult<i64> {
    area_no(conn, id)?.ok_or_else(|| ApiError::AreaNotFound {
        ids: vec![id.to_string()],
    })
}

#[cfg(test)]
#[path = "areas_tests.rs"]
mod tests;
