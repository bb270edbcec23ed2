//! The JSON Lines format: one JSON object per line, one area per object, with
//! `dimensions` an object keyed by dimension name and `history` an array of
//! `{date, truth_score}`, and `boundary` a GeoJSON geometry object
//! (data/boundary/). Blank lines are skipped. This module turns objects
//! into `Draft`s and reports what cannot be read: bad JSON, unknown or
//! missing fields, fields given twice, values of the wrong JSON type, and
//! reads the lines themselves holding at most one row's cap of them.

use std::io::{self, BufRead, Read};

use serde_json::{Map, Value};

use super::area::{Draft, DraftDimension, Row, Span};
use super::history::DraftPoint;
use super::json_value::{self, Unreadable, VALUES_MAX};
use super::{ImportError, LIST_ITEMS_MAX, ROW_BYTES_MAX, too_long, too_many_items};
use crate::data::boundary;

const FIELDS: [&str; 12] = [
    "id",
    "name",
    "province",
    "municipality",
    "other_names",
    "lat",
    "lng",
    "updated_at",
    "truth_score",
    "dimensions",
    "history",
    "boundary",
];
const DIMENSION_FIELDS: [&str; 3] = ["score", "weight", "sources"];
const POINT_FIELDS: [&str; 2] = ["date", "truth_score"];

type Object = Map<String, Value>;

const BYTE_ORDER_MARK: &[u8] = b"\xef\xbb\xbf";

/// The most unknown or repeated fields named in an object's problems.
const NAMED_MAX: usize = 20;

/// Reads every line from start to end, handing each area's row to `visit`
/// with its bytes' place in the file (without the line break). A line longer
/// than `ROW_BYTES_MAX` is read to its end without being held, and is its
/// row's problem. An error reading the file itself (not its content) stops
/// the reading.
pub fn each_row(input: impl BufRead, visit: impl FnMut(Row, Span)) -> Result<(), ImportError> {
    each_line(input, read_line, visit)
}

/// As `each_row`, each line made a row by `row_of` (with its number): the
/// lines of JSON Lines, or of GeoJSONSeq, one feature a line.
pub fn each_line(
    mut input: impl BufRead,
    mut row_of: impl FnMut(u64, &[u8]) -> Row,
    mut visit: impl FnMut(Row, Span),
) -> Result<(), ImportError> {
    let mut buf = Vec::new();
    let (mut offset, mut number) = (0u64, 0u64);
    loop {
        let read = next_line(&mut input, &mut buf, number == 0).map_err(ImportError::ReadFile)?;
        let Some(line) = read else {
            return Ok(());
        };
        number += 1;
        match line {
            Line::Held { skip } => {
                let bytes = &buf[skip..];
                let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
                let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
                if bytes.len() as u64 > ROW_BYTES_MAX {
                    visit(fail(number, too_long(bytes.len() as u64)), Span::NONE);
                } else if !bytes.iter().all(u8::is_ascii_whitespace) {
                    let span = Span {
                        start: offset + skip as u64,
                        len: bytes.len() as u64,
                    };
                    visit(row_of(number, bytes), span);
                }
                offset += buf.len() as u64;
            }
            Line::TooLong { bytes, ended } => {
                visit(fail(number, too_long(bytes - ended as u64)), Span::NONE);
                offset += bytes;
            }
        }
    }
}

/// What `next_line` read: a line held in its buffer (`skip` bytes of
/// byte-order mark first), or one too long to hold, only measured: its
/// bytes, and whether a line break ended them.
enum Line {
    Held { skip: usize },
    TooLong { bytes: u64, ended: bool },
}

/// Reads the next line, its break included, into `buf`, which never holds
/// more than a row may (and its mark and break); a longer line is read to
/// its end in pieces and only counted. None at the end of the input.
fn next_line(input: &mut impl BufRead, buf: &mut Vec<u8>, first: bool) -> io::Result<Option<Line>> {
    const ROOM: u64 = ROW_BYTES_MAX + BYTE_ORDER_MARK.len() as u64 + 2;
    const PIECE: u64 = 64 * 1024;
    buf.clear();
    let held = Read::take(&mut *input, ROOM).read_until(b'\n', buf)? as u64;
    if held == 0 {
        return Ok(None);
    }
    if held < ROOM || buf.ends_with(b"\n") {
        let skip = match first && buf.starts_with(BYTE_ORDER_MARK) {
            true => BYTE_ORDER_MARK.len(),
            false => 0,
        };
        return Ok(Some(Line::Held { skip }));
    }
    let mut bytes = held;
    loop {
        buf.clear();
        let n = Read::take(&mut *input, PIECE).read_until(b'\n', buf)?;
        bytes += n as u64;
        if n == 0 || buf.ends_with(b"\n") {
            break;
        }
    }
    let ended = buf.ends_with(b"\n");
    buf.clear();
    Ok(Some(Line::TooLong { bytes, ended }))
}

fn fail(line: u64, message: String) -> Row {
    Row {
        line,
        draft: None,
        problems: vec![message],
    }
}

/// The row whose line (without its break) is `bytes`, read again as
/// `each_row` read it; its line number is not known here (0).
pub fn row_at(bytes: &[u8]) -> Row {
    read_line(0, bytes)
}

/// Every row of a file held in memory (the unit tests' reader).
#[cfg(test)]
pub fn read(bytes: &[u8]) -> Vec<Row> {
    let mut rows = Vec::new();
    each_row(bytes, |row, _| rows.push(row)).expect("bytes in memory always read");
    rows
}

fn read_line(line: u64, bytes: &[u8]) -> Row {
    match json_value::parse(bytes) {
        Err(Unreadable::Json(e)) => fail(line, format!("not valid JSON: {e}")),
        Err(Unreadable::TooManyValues) => fail(
            line,
            format!("this row holds more than {VALUES_MAX} JSON values, the most a row may hold"),
        ),
        Ok((Value::Object(object), repeated)) => {
            let mut problems = given_twice(&repeated);
            let draft = area(&object, &mut problems);
            Row {
                line,
                draft: Some(draft),
                problems,
            }
        }
        Ok(_) => fail(line, "expected a JSON object (one area per line)".into()),
    }
}

/// The problems of the fields an object gives twice (json_value's paths),
/// the first `NAMED_MAX` named, then counted.
pub(super) fn given_twice(repeated: &[String]) -> Vec<String> {
    let mut problems: Vec<String> = repeated
        .iter()
        .take(NAMED_MAX)
        .map(|field| format!("field '{field}' is given twice; give each field once"))
        .collect();
    if repeated.len() > NAMED_MAX {
        let more = repeated.len() - NAMED_MAX;
        problems.push(format!("and {more} more fields given twice"));
    }
    problems
}

fn area(o: &Object, problems: &mut Vec<String>) -> Draft {
    unknown_fields(o, &FIELDS, "", problems);
    // A boundary that cannot be read is a problem; lat and lng are then
    // not asked for as well, since the row meant to give a boundary.
    let boundary = present(o, "boundary").map(boundary::from_geojson);
    let centre_required = matches!(boundary, None | Some(Ok(None)));
    let mut d = Draft {
        id: text(o, "id", "id", true, problems),
        name: text(o, "name", "name", true, problems),
        province: text(o, "province", "province", true, problems),
        municipality: text(o, "municipality", "municipality", true, problems),
        lat: number(o, "lat", "lat", centre_required, problems),
        lng: number(o, "lng", "lng", centre_required, problems),
        updated_at: text(o, "updated_at", "updated_at", false, problems),
        truth_score: number(o, "truth_score", "truth_score", false, problems),
        ..Draft::default()
    };
    d.other_names = strings(o, "other_names", "other_names", problems);
    match boundary {
        Some(Ok(b)) => d.boundary = b,
        Some(Err(e)) => problems.push(e.to_string()),
        None => {}
    }
    match present(o, "dimensions") {
        None => problems.push("dimensions is missing".into()),
        Some(Value::Object(dims)) if dims.len() > LIST_ITEMS_MAX => {
            problems.push(too_many_items("dimensions"))
        }
        Some(Value::Object(dims)) => {
            d.dimensions = dims
                .iter()
                .filter_map(|(name, v)| dimension(name, v, problems))
                .collect();
        }
        Some(_) => problems.push("dimensions must be an object keyed by dimension name".into()),
    }
    match present(o, "history") {
        None => {}
        Some(Value::Array(points)) if points.len() > LIST_ITEMS_MAX => {
            problems.push(too_many_items("history"))
        }
        Some(Value::Array(points)) => {
            d.history = points
                .iter()
                .enumerate()
                .filter_map(|(i, p)| point(i, p, problems))
                .collect();
        }
        Some(_) => {
            problems.push("history must be an array of {\"date\", \"truth_score\"} objects".into())
        }
    }
    d
}

fn dimension(name: &str, v: &Value, problems: &mut Vec<String>) -> Option<DraftDimension> {
    let at = format!("dimensions.{name}");
    let Value::Object(o) = v else {
        problems.push(format!(
            "{at} must be an object with score, weight and sources"
        ));
        return None;
    };
    unknown_fields(o, &DIMENSION_FIELDS, &format!("{at}."), problems);
    let score = number(o, "score", &format!("{at}.score"), true, problems);
    let weight = number(o, "weight", &format!("{at}.weight"), true, problems);
    if present(o, "sources").is_none() {
        problems.push(format!("{at}.sources is missing"));
    }
    let sources = strings(o, "sources", &format!("{at}.sources"), problems);
    Some(DraftDimension {
        name: name.to_string(),
        score,
        weight,
        sources,
    })
}

fn point(i: usize, v: &Value, problems: &mut Vec<String>) -> Option<DraftPoint> {
    let at = format!("history[{i}]");
    let Value::Object(o) = v else {
        problems.push(format!("{at} must be an object with date and truth_score"));
        return None;
    };
    unknown_fields(o, &POINT_FIELDS, &format!("{at}."), problems);
    let date = text(o, "date", &format!("{at}.date"), true, problems)?;
    let score = number(
        o,
        "truth_score",
        &format!("{at}.truth_score"),
        true,
        problems,
    );
    Some(DraftPoint { date, score })
}

/// The value of `key`; null counts as absent.
fn present<'a>(o: &'a Object, key: &str) -> Option<&'a Value> {
    o.get(key).filter(|v| !v.is_null())
}

/// Each unknown field of `o`, up to `NAMED_MAX` of them, then how many more:
/// an object of many fields costs a row a few problems, not one a field.
fn unknown_fields(o: &Object, allowed: &[&str], prefix: &str, problems: &mut Vec<String>) {
    let mut unknown = o.keys().filter(|k| !allowed.contains(&k.as_str()));
    for key in unknown.by_ref().take(NAMED_MAX) {
        problems.push(format!(
            "unknown field '{prefix}{key}' (allowed: {})",
            allowed.join(", ")
        ));
    }
    let more = unknown.count();
    if more > 0 {
        let within = prefix
            .strip_suffix('.')
            .map_or(String::new(), |o| format!(" in {o}"));
        problems.push(format!("and {more} more unknown fields{within}"));
    }
}

fn text(
    o: &Object,
    key: &str,
    shown: &str,
    required: bool,
    problems: &mut Vec<String>,
) -> Option<String> {
    match present(o, key) {
        None if required => problems.push(format!("{shown} is missing")),
        None => {}
        Some(Value::String(s)) => return Some(s.clone()),
        Some(_) => problems.push(format!("{shown} must be a string")),
    }
    None
}

fn number(
    o: &Object,
    key: &str,
    shown: &str,
    required: bool,
    problems: &mut Vec<String>,
) -> Option<f64> {
    match present(o, key) {
        None if required => problems.push(format!("{shown} is missing")),
        None => {}
        Some(Value::Number(n)) => return n.as_f64(),
        Some(_) => problems.push(format!("{shown} must be a number (not a string)")),
    }
    None
}

/// An array of strings, shown in problems as `shown`; absent or null is empty.
fn strings(o: &Object, key: &str, shown: &str, problems: &mut Vec<String>) -> Vec<String> {
    match present(o, key) {
        None => Vec::new(),
        Some(Value::Array(items)) if items.len() > LIST_ITEMS_MAX => {
            problems.push(too_many_items(shown));
            Vec::new()
        }
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(|s| s.as_str().map(String::from))
            .collect(),
        Some(_) => {
            problems.push(format!("{shown} must be an array of strings"));
            Vec::new()
        }
    }
}

#[cfg(test)]
#[path = "from_jsonl_tests.rs"]
mod tests;
