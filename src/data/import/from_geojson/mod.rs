//! The GeoJSON formats: a FeatureCollection (`.geojson`), as QGIS and
//! `ogr2ogr -f GeoJSON` write it, and GeoJSONSeq (`.geojsons`, RFC 8142: one
//! feature a line, each line perhaps opened by an RS byte). Each feature is
//! one area: its `properties` are the CSV columns, flat and by the same names
//! (GIS tools cannot write nested attributes), read by the CSV reader's own
//! mapping (`csv::draft_of`); its `geometry` is the boundary.
//!
//! Properties that are no column (`OBJECTID`, `Shape_Area`, which GIS tools
//! add) are read past, and named in one warning for the file
//! (`IgnoredProperties`), not one a feature. A FeatureCollection is cut into
//! its features without being held (collection.rs), so that a file of any
//! size is read within import's memory bound.

use std::io::BufRead;

use serde_json::{Map, Value};

use super::ImportError;
use super::area::{Row, Span};
use super::csv::{Decimals, draft_of, is_column};
use super::from_jsonl;
use super::json_value::{self, Unreadable, VALUES_MAX};
use crate::data::boundary;

mod collection;

/// The ASCII record separator GeoJSONSeq may open each line with (RFC 8142).
const RECORD_SEPARATOR: u8 = 0x1e;

/// The most property names the warning about ignored ones names; the rest
/// are counted, so that features each with names of their own cost a file
/// no more than this.
const IGNORED_NAMED_MAX: usize = 20;

/// The properties of a file's features that are no column: read past, and
/// named once for the file.
#[derive(Debug, Default)]
pub struct IgnoredProperties {
    names: Vec<String>,
    /// Whether there were names beyond the first `IGNORED_NAMED_MAX`.
    more: bool,
}

impl IgnoredProperties {
    fn note(&mut self, name: &str) {
        if self.names.iter().any(|n| n == name) {
            return;
        }
        match self.names.len() < IGNORED_NAMED_MAX {
            true => self.names.push(name.to_string()),
            false => self.more = true,
        }
    }

    /// The file's one warning about them, if there are any.
    pub fn warning(&self) -> Option<String> {
        if self.names.is_empty() {
            return None;
        }
        let names = self.names.join(", ");
        let more = match self.more {
            true => " and others",
            false => "",
        };
        Some(format!(
            "the features' properties {names}{more} are not columns of an area and were read past \
             (see docs/import.md for the columns)"
        ))
    }
}

/// Reads every feature of a FeatureCollection, handing each area's row to
/// `visit` with its bytes' place in the file; `number` is the feature's,
/// from 1. A problem of the file as a whole (not a FeatureCollection, a
/// `crs` other than WGS84) is a row of line 0.
pub fn each_feature(
    input: impl BufRead,
    ignored: &mut IgnoredProperties,
    mut visit: impl FnMut(Row, Span),
) -> Result<(), ImportError> {
    let decimals = Decimals::default();
    let mut read = |number: u64, bytes: &[u8]| feature_row(number, bytes, &decimals, ignored);
    collection::each_feature(input, &mut read, &mut visit).map_err(ImportError::ReadFile)?;
    if let Some(problem) = decimals.mixed_in("feature") {
        visit(unread(0, problem), Span::NONE);
    }
    Ok(())
}

/// Reads every line of a GeoJSONSeq file as one feature, as JSON Lines are read.
pub fn each_line(
    input: impl BufRead,
    ignored: &mut IgnoredProperties,
    mut visit: impl FnMut(Row, Span),
) -> Result<(), ImportError> {
    let decimals = Decimals::default();
    let read = |number: u64, bytes: &[u8]| feature_row(number, bytes, &decimals, ignored);
    from_jsonl::each_line(input, read, &mut visit)?;
    if let Some(problem) = decimals.mixed() {
        visit(unread(0, problem), Span::NONE);
    }
    Ok(())
}

/// The row whose feature's bytes are `bytes`, read again as the checking
/// pass read it (its number is not known here: 0).
pub fn row_at(bytes: &[u8]) -> Row {
    feature_row(
        0,
        bytes,
        &Decimals::default(),
        &mut IgnoredProperties::default(),
    )
}

fn unread(line: u64, message: String) -> Row {
    Row {
        line,
        draft: None,
        problems: vec![message],
    }
}

/// One feature, `{"type": "Feature", "properties": {...}, "geometry": ...}`,
/// as an area's row numbered `number`.
fn feature_row(
    number: u64,
    bytes: &[u8],
    decimals: &Decimals,
    ignored: &mut IgnoredProperties,
) -> Row {
    let bytes = match bytes.strip_prefix(&[RECORD_SEPARATOR]) {
        Some(rest) => rest,
        None => bytes,
    };
    let (value, repeated) = match json_value::parse(bytes) {
        Ok(parsed) => parsed,
        Err(Unreadable::Json(e)) => return unread(number, format!("not valid JSON: {e}")),
        Err(Unreadable::TooManyValues) => {
            return unread(
                number,
                format!(
                    "this feature holds more than {VALUES_MAX} JSON values, the most a row may hold"
                ),
            );
        }
    };
    let Value::Object(feature) = value else {
        return unread(
            number,
            "expected a GeoJSON Feature object (one area per feature)".into(),
        );
    };
    let mut problems = from_jsonl::given_twice(&repeated);
    match feature.get("type").and_then(Value::as_str) {
        Some("Feature") => {}
        Some(other) => problems.push(format!(
            "this is a GeoJSON {other}, not a Feature (one area per feature)"
        )),
        None => problems.push("this object has no \"type\": \"Feature\"".into()),
    }
    let crs = feature.get("crs").filter(|c| !c.is_null());
    if let Some(Err(e)) = crs.map(boundary::check_crs) {
        problems.push(e.to_string());
    }
    let empty = Map::new();
    let properties = match feature.get("properties") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(p)) => p,
        Some(_) => {
            problems.push("properties must be an object of the area's columns".into());
            &empty
        }
    };
    let mut cells = cells(properties, ignored, &mut problems);
    // `ogr2ogr -lco ID_FIELD=id` moves the id column out of the properties
    // into the feature's own `id` member.
    let own_id = feature.get("id").and_then(Value::as_str);
    if let Some(id) = own_id.filter(|_| !cells.iter().any(|(k, _)| k == "id")) {
        cells.push(("id".into(), id.trim().to_string()));
    }
    let geometry = feature.get("geometry").filter(|g| !g.is_null());
    let boundary = geometry.map(boundary::from_geojson).transpose();
    let given = !matches!(boundary, Ok(None | Some(None)));
    let cell = |name: &str| -> Option<&str> {
        let found = cells.iter().find(|(k, _)| k == name);
        found.map(|(_, v)| v.as_str()).filter(|v| !v.is_empty())
    };
    let (mut draft, more) = draft_of(&cell, decimals, number, given);
    problems.extend(more);
    match boundary {
        Ok(b) => draft.boundary = b.flatten(),
        Err(e) => problems.push(e.to_string()),
    }
    Row {
        line: number,
        draft: Some(draft),
        problems,
    }
}

/// The properties that are columns, as a CSV row's cells would hold them
/// (trimmed text; a number as JSON writes it); null is an empty cell. Others
/// are noted in `ignored`.
fn cells(
    properties: &Map<String, Value>,
    ignored: &mut IgnoredProperties,
    problems: &mut Vec<String>,
) -> Vec<(String, String)> {
    let mut cells = Vec::new();
    for (name, value) in properties {
        if !is_column(name) {
            ignored.note(name);
            continue;
        }
        let text = match value {
            Value::Null => String::new(),
            Value::String(s) => s.trim().to_string(),
            Value::Number(n) => n.to_string(),
            _ => {
                problems.push(format!(
                    "property '{name}' must be a string or a number, as a CSV cell holds"
                ));
                continue;
            }
        };
        cells.push((name.clone(), text));
    }
    cells
}

#[cfg(test)]
mod tests;
