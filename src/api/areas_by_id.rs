//! List Areas by id (`GET /v1/areas?ids=a,b,c`): the areas asked for, each
//! found by its id, in the order given, and `missing`: the ids given that
//! the answer does not hold (no area has the id, or `province` leaves it
//! out), in the order given. Every id given is in one or the other; `total`
//! counts the areas found, and the one page has `limit` the ids' count and
//! `offset` 0.

use std::io::Write;

use rusqlite::{Connection, OptionalExtension, params};

use super::areas::{LIST_ROW_BYTES, ListJson, write_row};
use super::{AreaPage, PageSpan, summary_from_row};
use crate::error::ApiResult;

/// An area by id, within a province (`''` for all), in the columns of a
/// List page (api/areas.rs, `PAGE`).
const AREA_BY_ID: &str = "
    SELECT id, name, province, province_slug, municipality, truth_score, updated_at, lat, lng
    FROM areas WHERE id = ?1 AND (?2 = '' OR province_slug = ?2)";

/// An area's stored list form by id, within a province (`''` for all).
const FORM_BY_ID: &str = "
    SELECT f.body FROM areas a JOIN area_list_form f ON f.area_no = a.area_no
    WHERE a.id = ?1 AND (?2 = '' OR a.province_slug = ?2)";

/// The areas of `ids` in list form, for CSV and GeoJSON.
pub fn page(conn: &Connection, ids: &[String], province: Option<&str>) -> ApiResult<AreaPage> {
    let mut stmt = conn.prepare_cached(AREA_BY_ID)?;
    let mut data = Vec::with_capacity(ids.len());
    let mut missing = Vec::new();
    for id in ids {
        match stmt
            .query_row(params![id, province.unwrap_or("")], summary_from_row)
            .optional()?
        {
            Some(area) => data.push(area),
            None => missing.push(id.clone()),
        }
    }
    Ok(AreaPage {
        total: data.len() as i64,
        data,
        missing: Some(missing),
        limit: ids.len() as i64,
        offset: 0,
    })
}

/// The JSON of `page`, byte for byte, from the stored list forms (a test
/// compares them).
pub fn json(conn: &Connection, ids: &[String], province: Option<&str>) -> ApiResult<ListJson> {
    let mut stmt = conn.prepare_cached(FORM_BY_ID)?;
    let mut out = Vec::with_capacity(ids.len() * LIST_ROW_BYTES + 64);
    out.extend_from_slice(b"{\"data\":[");
    let mut missing = Vec::new();
    let mut total = 0;
    for id in ids {
        let mut found = stmt.query(params![id, province.unwrap_or("")])?;
        let Some(r) = found.next()? else {
            missing.push(id.clone());
            continue;
        };
        if total > 0 {
            out.push(b',');
        }
        total += 1;
        write_row(&mut out, r)?;
    }
    out.extend_from_slice(b"],\"missing\":");
    // Strings and numbers written into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut out, &missing);
    let span = PageSpan {
        total,
        limit: ids.len() as i64,
        offset: 0,
    };
    let _ = write!(
        out,
        ",\"total\":{},\"limit\":{},\"offset\":{}}}",
        span.total, span.limit, span.offset
    );
    Ok(ListJson {
        span,
        missing: Some(missing),
        body: out,
    })
}
