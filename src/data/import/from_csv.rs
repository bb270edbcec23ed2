//! The CSV format (RFC 4180): a header line naming the columns, then one row
//! per area. Each dimension takes three columns (`safety`, `safety_weight`,
//! `safety_sources` with `;` between identifiers); `history` holds
//! `DATE:SCORE` items separated by `;`. Lines starting with `#` are comments.
//! This module turns rows into `Draft`s and reports what cannot be read.

use csv::{ReaderBuilder, StringRecord, Trim};

use super::area::{Draft, DraftDimension, DraftPoint, Row};
use super::rules;
use crate::domain::DIMENSIONS;

const REQUIRED: [&str; 6] = ["id", "name", "province", "municipality", "lat", "lng"];
const OPTIONAL: [&str; 3] = ["updated_at", "truth_score", "history"];

/// The header: column names in file order.
struct Header(Vec<String>);

impl Header {
    fn index(&self, name: &str) -> Option<usize> {
        self.0.iter().position(|c| c == name)
    }
}

/// Reads every row. A header that cannot be used gives one `Row` with its
/// problems and no others: without the columns no row can be understood.
pub fn read(bytes: &[u8]) -> Vec<Row> {
    let mut reader = ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(Trim::All)
        .comment(Some(b'#'))
        .from_reader(bytes);
    let mut records = reader.records();
    let header = match records.next() {
        None => return Vec::new(),
        Some(Err(e)) => return vec![unreadable(&e)],
        Some(Ok(r)) => r,
    };
    let line = line_of(&header);
    let problems = check_header(&header);
    if !problems.is_empty() {
        return vec![Row {
            line,
            draft: None,
            problems,
        }];
    }
    let header = Header(header.iter().map(String::from).collect());
    records
        .map(|record| match record {
            Err(e) => unreadable(&e),
            Ok(r) if r.len() != header.0.len() => Row {
                line: line_of(&r),
                draft: None,
                problems: vec![format!(
                    "{} fields, but the header has {}",
                    r.len(),
                    header.0.len()
                )],
            },
            Ok(r) => {
                let (draft, problems) = row(&header, &r);
                Row {
                    line: line_of(&r),
                    draft: Some(draft),
                    problems,
                }
            }
        })
        .collect()
}

fn line_of(r: &StringRecord) -> u64 {
    r.position().map_or(0, |p| p.line())
}

fn unreadable(e: &csv::Error) -> Row {
    let line = e.position().map_or(0, |p| p.line());
    Row {
        line,
        draft: None,
        problems: vec![format!("cannot read this row: {e}")],
    }
}

/// Every problem of the header: unknown, repeated and missing columns, and
/// dimensions given with only some of their three columns.
fn check_header(header: &StringRecord) -> Vec<String> {
    let names: Vec<&str> = header.iter().collect();
    let mut problems = Vec::new();
    let dimension_columns =
        |d: &str| [d.to_string(), format!("{d}_weight"), format!("{d}_sources")];
    let known = |c: &str| {
        REQUIRED.contains(&c)
            || OPTIONAL.contains(&c)
            || DIMENSIONS
                .iter()
                .any(|d| dimension_columns(d).iter().any(|k| k == c))
    };
    for (i, c) in names.iter().enumerate() {
        if !known(c) {
            problems.push(format!(
                "unknown column '{c}' (see docs/import.md for the columns)"
            ));
        } else if names[..i].contains(c) {
            problems.push(format!("column '{c}' appears twice"));
        }
    }
    for c in REQUIRED.iter().filter(|c| !names.contains(c)) {
        problems.push(format!("the header lacks the column '{c}'"));
    }
    let mut any_dimension = false;
    for d in DIMENSIONS {
        let [score, weight, sources] = dimension_columns(d);
        let have = [&score, &weight, &sources].map(|c| names.contains(&c.as_str()));
        any_dimension |= have.iter().any(|h| *h);
        if have.iter().any(|h| *h) && !have.iter().all(|h| *h) {
            problems.push(format!(
                "dimension {d} needs all three columns: {score}, {weight}, {sources}"
            ));
        }
    }
    if !any_dimension {
        problems.push("the header has no dimension columns (for example safety, safety_weight, safety_sources)".into());
    }
    problems
}

/// One data row as a `Draft`, and what in it cannot be read.
fn row(header: &Header, r: &StringRecord) -> (Draft, Vec<String>) {
    let mut problems = Vec::new();
    let cell = |name: &str| header.index(name).map(|i| &r[i]).filter(|v| !v.is_empty());
    let required_text = |name: &str, problems: &mut Vec<String>| {
        let value = cell(name).map(String::from);
        if value.is_none() {
            problems.push(format!("{name} is missing"));
        }
        value
    };
    let mut d = Draft {
        id: required_text("id", &mut problems),
        name: required_text("name", &mut problems),
        province: required_text("province", &mut problems),
        municipality: required_text("municipality", &mut problems),
        updated_at: cell("updated_at").map(String::from),
        ..Draft::default()
    };
    d.lat = required_number("lat", cell("lat"), &mut problems);
    d.lng = required_number("lng", cell("lng"), &mut problems);
    d.truth_score = cell("truth_score").and_then(|v| number("truth_score", v, &mut problems));
    for name in DIMENSIONS {
        let weight_column = format!("{name}_weight");
        let sources_column = format!("{name}_sources");
        let (score, weight, sources) = (cell(name), cell(&weight_column), cell(&sources_column));
        if score.is_none() && weight.is_none() && sources.is_none() {
            continue; // this area does not have the dimension
        }
        d.dimensions.push(DraftDimension {
            name: name.to_string(),
            score: required_number(name, score, &mut problems),
            weight: required_number(&weight_column, weight, &mut problems),
            sources: sources.map_or_else(Vec::new, |s| {
                s.split(';').map(|x| x.trim().to_string()).collect()
            }),
        });
    }
    d.history = cell("history").map_or_else(Vec::new, |h| history(h, &mut problems));
    (d, problems)
}

fn required_number(name: &str, text: Option<&str>, problems: &mut Vec<String>) -> Option<f64> {
    match text {
        None => {
            problems.push(format!("{name} is missing"));
            None
        }
        Some(t) => number(name, t, problems),
    }
}

fn number(name: &str, text: &str, problems: &mut Vec<String>) -> Option<f64> {
    let n = rules::decimal(text);
    if n.is_none() {
        problems.push(format!(
            "{name} '{text}' is not a number in decimal notation (like 6.25 or -33.91)"
        ));
    }
    n
}

/// `2026-01-01:6.5;2026-01-02:6.6`: dates are checked later, here only the shape.
fn history(text: &str, problems: &mut Vec<String>) -> Vec<DraftPoint> {
    let mut points = Vec::new();
    for item in text.split(';').map(str::trim) {
        match item.split_once(':') {
            Some((date, score)) => points.push(DraftPoint {
                date: date.trim().to_string(),
                score: number(
                    &format!("history score on {}", date.trim()),
                    score.trim(),
                    problems,
                ),
            }),
            None => problems.push(format!(
                "history item '{item}' is not DATE:SCORE (like 2026-01-31:6.5)"
            )),
        }
    }
    points
}

#[cfg(test)]
#[path = "from_csv_tests.rs"]
mod tests;
