//! Boundaries as the answers carry them: Get Area's `include=boundary` and
//! the GeoJSON paths' `geometry=boundary`. The text is the dataset's own
//! (data/boundary/: GeoJSON, RFC 7946 orientation, simplified forms
//! computed when the dataset was written), copied into the answer as it is.

use rusqlite::Connection;

use super::{AreaSummary, area_no};
use crate::api::params::FeatureGeometry;
use crate::data::boundary;
use crate::error::ApiResult;

/// The boundary of area `no` in full, or None without one.
pub fn of_area(conn: &Connection, no: i64) -> ApiResult<Option<String>> {
    Ok(boundary::geometry_json(conn, no, None)?)
}

/// The geometry of each area of a page, in its order, when the GeoJSON path
/// asked for boundaries; None for Points.
pub fn of_page(
    conn: &Connection,
    areas: &[AreaSummary],
    geometry: FeatureGeometry,
) -> ApiResult<Option<Vec<Option<String>>>> {
    let FeatureGeometry::Boundary { simplify_m } = geometry else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(areas.len());
    for area in areas {
        let text = match area_no(conn, &area.id)? {
            Some(no) => boundary::geometry_json(conn, no, simplify_m)?,
            None => None,
        };
        out.push(text);
    }
    Ok(Some(out))
}
