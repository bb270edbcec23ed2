//! Boundaries as the answers carry them: Get Area's `include=boundary` and
//! the GeoJSON paths' `geometry=boundary`. The text is the dataset's own
//! (data/boundary/: GeoJSON, RFC 7946 orientation, simplified forms
//! computed when the dataset was written), copied into the answer: as it
//! was imported in Get Area, and as a MultiPolygon in a FeatureCollection,
//! whose features GIS tools read as one layer of one geometry type (GDAL
//! calls a layer of Polygons and MultiPolygons "Unknown").

use std::borrow::Cow;

use rusqlite::Connection;

use super::AreaSummary;
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
    let ids: Vec<&str> = areas.iter().map(|a| a.id.as_str()).collect();
    let out = boundary::page_geometries_json(conn, &ids, simplify_m)?
        .into_iter()
        .map(|text| {
            text.map(|t| match as_multi(&t) {
                Cow::Borrowed(_) => t,
                Cow::Owned(multi) => multi,
            })
        })
        .collect();
    Ok(Some(out))
}

/// A boundary's stored text as a MultiPolygon: a Polygon's coordinates
/// wrapped in one more array, a MultiPolygon's as they are.
pub fn as_multi(text: &str) -> Cow<'_, str> {
    let polygon = text
        .strip_prefix(POLYGON_OPEN)
        .and_then(|rest| rest.strip_suffix('}'));
    match polygon {
        Some(coordinates) => Cow::Owned(format!(
            "{{\"type\":\"MultiPolygon\",\"coordinates\":[{coordinates}]}}"
        )),
        None => Cow::Borrowed(text),
    }
}

/// How the dataset's writer opens a Polygon's text (`geometry_text`).
const POLYGON_OPEN: &str = "{\"type\":\"Polygon\",\"coordinates\":";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::boundary::{from_wkt, store::geometry_text};

    #[test]
    fn a_polygon_is_served_in_a_collection_as_a_multipolygon_of_one_part() {
        let polygon = from_wkt("POLYGON((28 -26, 28.1 -26, 28.1 -25.9, 28 -26))")
            .unwrap()
            .unwrap();
        let text = geometry_text(&polygon);
        let multi: serde_json::Value = serde_json::from_str(&as_multi(&text)).unwrap();
        let original: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(original["type"], "Polygon", "{text}");
        assert_eq!(multi["type"], "MultiPolygon");
        assert_eq!(
            multi["coordinates"],
            serde_json::json!([original["coordinates"]])
        );
        let two = from_wkt("MULTIPOLYGON(((28 -26, 28.1 -26, 28.1 -25.9, 28 -26)),((29 -26, 29.1 -26, 29.1 -25.9, 29 -26)))")
            .unwrap()
            .unwrap();
        let text = geometry_text(&two);
        assert_eq!(as_multi(&text), text.as_str());
    }
}
