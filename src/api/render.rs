//! Areas in the representations other than the spec's JSON list form: CSV
//! (RFC 4180: UTF-8, CRLF, a header row, quoted where needed), GeoJSON
//! (RFC 7946: a Feature per area, a Point at `[lng, lat]`, flat properties)
//! and NDJSON (one flat JSON object a line). Lists and the export share these
//! writers, one row at a time, so an export can stream.
//!
//! Every string goes through serde_json or `csv_field`: no value a data file
//! holds can break the document around it.

use super::AreaSummary;
use crate::domain::DIMENSIONS;

/// One area as these representations carry it.
pub struct Row<'a> {
    pub area: &'a AreaSummary,
    /// Each dimension's score in `DIMENSIONS` order (export only); None
    /// where the area lacks that dimension.
    pub dimensions: Option<&'a [Option<f64>; DIMENSIONS.len()]>,
    /// A GeoJSON feature's geometry.
    pub shape: Shape<'a>,
}

/// A GeoJSON feature's geometry: a Point at the area's centre, or its
/// boundary's GeoJSON text as the dataset stores it (null without one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape<'a> {
    Point,
    Boundary(Option<&'a str>),
}

/// Which optional columns a document has: the same for every row of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Columns {
    /// `distance_km`, when a search gave lat/lng.
    pub distance: bool,
    /// lat and lng as columns or properties (CSV, NDJSON and the JSON export).
    pub coordinates: bool,
    /// The seven dimension scores (export).
    pub dimensions: bool,
}

/// The list form's fields, in the spec's order.
pub const LIST_FIELDS: [&str; 7] = [
    "id",
    "name",
    "province",
    "province_slug",
    "municipality",
    "truth_score",
    "updated_at",
];

/// The CSV header row.
pub fn csv_header(out: &mut Vec<u8>, cols: Columns) {
    let mut names: Vec<&str> = LIST_FIELDS.to_vec();
    if cols.coordinates {
        names.extend(["lat", "lng"]);
    }
    if cols.distance {
        names.push("distance_km");
    }
    if cols.dimensions {
        names.extend(DIMENSIONS);
    }
    out.extend_from_slice(names.join(",").as_bytes());
    out.extend_from_slice(b"\r\n");
}

pub fn csv_row(out: &mut Vec<u8>, row: &Row, cols: Columns) {
    let a = row.area;
    let mut cells: Vec<String> = vec![
        csv_field(&a.id),
        csv_field(&a.name),
        csv_field(&a.province),
        csv_field(&a.province_slug),
        csv_field(&a.municipality),
        a.truth_score.to_string(),
        csv_field(&a.updated_at),
    ];
    if cols.coordinates {
        cells.extend([row.area.lat.to_string(), row.area.lng.to_string()]);
    }
    if cols.distance {
        cells.push(a.distance_km.map(|d| d.to_string()).unwrap_or_default());
    }
    if let (true, Some(dims)) = (cols.dimensions, row.dimensions) {
        cells.extend(
            dims.iter()
                .map(|d| d.map(|s| s.to_string()).unwrap_or_default()),
        );
    }
    out.extend_from_slice(cells.join(",").as_bytes());
    out.extend_from_slice(b"\r\n");
}

/// A field quoted when it holds a comma, a quote, CR or LF, with its quotes
/// doubled (RFC 4180, 2.6 and 2.7).
pub fn csv_field(value: &str) -> String {
    if value.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_string()
    }
}

/// The fields of one row as the members of a JSON object, without braces.
fn json_members(out: &mut Vec<u8>, row: &Row, cols: Columns) {
    let a = row.area;
    let mut first = true;
    let mut member = |out: &mut Vec<u8>, name: &str, value: &dyn erased::Value| {
        if !std::mem::take(&mut first) {
            out.push(b',');
        }
        write_json(out, name);
        out.push(b':');
        value.write(out);
    };
    member(out, "id", &a.id.as_str());
    member(out, "name", &a.name.as_str());
    member(out, "province", &a.province.as_str());
    member(out, "province_slug", &a.province_slug.as_str());
    member(out, "municipality", &a.municipality.as_str());
    member(out, "truth_score", &a.truth_score);
    member(out, "updated_at", &a.updated_at.as_str());
    if cols.coordinates {
        member(out, "lat", &a.lat);
        member(out, "lng", &a.lng);
    }
    if cols.distance {
        member(out, "distance_km", &a.distance_km);
    }

    if let (true, Some(dims)) = (cols.dimensions, row.dimensions) {
        for (name, score) in DIMENSIONS.iter().zip(dims) {
            member(out, name, score);
        }
    }
    // After "id", which every object has: a search's match is last.
    if let Some(m) = &a.matched {
        out.extend_from_slice(b",\"match\":");
        serde_json::to_writer(&mut *out, m).expect("a match serializes");
    }
}

/// One flat JSON object (an NDJSON line without its newline, or an item of
/// the JSON export's `data`).
pub fn json_object(out: &mut Vec<u8>, row: &Row, cols: Columns) {
    out.push(b'{');
    json_members(out, row, cols);
    out.push(b'}');
}

/// One GeoJSON Feature: `id` the area id, a Point at `[lng, lat]` or the
/// boundary (RFC 7946 3.2: a feature without one has a null geometry).
pub fn geojson_feature(out: &mut Vec<u8>, row: &Row, cols: Columns) {
    out.extend_from_slice(b"{\"type\":\"Feature\",\"id\":");
    write_json(out, &row.area.id);
    out.extend_from_slice(b",\"geometry\":");
    match row.shape {
        Shape::Point => {
            out.extend_from_slice(b"{\"type\":\"Point\",\"coordinates\":[");
            write_json(out, &row.area.lng);
            out.push(b',');
            write_json(out, &row.area.lat);
            out.extend_from_slice(b"]}");
        }
        // Written by the dataset's writer from a checked boundary.
        Shape::Boundary(Some(geometry)) => out.extend_from_slice(geometry.as_bytes()),
        Shape::Boundary(None) => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"properties\":");
    let properties = Columns {
        coordinates: false,
        ..cols
    };
    json_object(out, row, properties);
    out.push(b'}');
}

/// The opening of a FeatureCollection, up to its first feature.
pub const GEOJSON_OPEN: &[u8] = b"{\"type\":\"FeatureCollection\",\"features\":[";

/// The close of a FeatureCollection, with `missing` (List's ids not
/// found) and `members` (total, limit, offset) as foreign members.
pub fn geojson_close(out: &mut Vec<u8>, missing: Option<&[String]>, members: &[(&str, i64)]) {
    out.push(b']');
    if let Some(missing) = missing {
        out.extend_from_slice(b",\"missing\":");
        write_json(out, missing);
    }
    for (name, value) in members {
        out.push(b',');
        write_json(out, name);
        out.push(b':');
        out.extend_from_slice(value.to_string().as_bytes());
    }
    out.push(b'}');
}

/// Writes a value (a string, a number) as JSON onto the end of `out`.
pub fn write_json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    // Writing strings and numbers into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, value);
}

/// Values written as JSON through serde_json, behind one object-safe trait.
mod erased {
    pub trait Value {
        fn write(&self, out: &mut Vec<u8>);
    }

    impl<T: serde::Serialize> Value for T {
        fn write(&self, out: &mut Vec<u8>) {
            super::write_json(out, self);
        }
    }
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
