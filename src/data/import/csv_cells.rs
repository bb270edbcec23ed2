//! Reading one CSV cell of an import (import/from_csv.rs) into a draft's
//! value: numbers in plain decimal notation, history items, other names.
//! A cell that cannot be read is a problem named after its column.

use super::super::history::DraftPoint;
use super::super::rules;
use super::super::{LIST_ITEMS_MAX, too_many_items};

/// The cell of a `;`-separated list, unless it holds more than
/// `LIST_ITEMS_MAX` items, which is a problem named after its column.
pub(super) fn list<'a>(column: &str, cell: &'a str, problems: &mut Vec<String>) -> Option<&'a str> {
    let items = 1 + cell.bytes().filter(|b| *b == b';').count();
    if items > LIST_ITEMS_MAX {
        problems.push(too_many_items(column));
        return None;
    }
    Some(cell)
}

pub(super) fn required_number(
    name: &str,
    text: Option<&str>,
    problems: &mut Vec<String>,
) -> Option<f64> {
    match text {
        None => {
            problems.push(format!("{name} is missing"));
            None
        }
        Some(t) => number(name, t, problems),
    }
}

pub(super) fn number(name: &str, text: &str, problems: &mut Vec<String>) -> Option<f64> {
    let n = rules::decimal(text);
    if n.is_none() {
        problems.push(format!(
            "{name} '{text}' is not a number in decimal notation (like 6.25 or -33.91)"
        ));
    }
    n
}

/// `2026-01-01:6.5;2026-01-02:6.6`: dates are checked later, here only the shape.
pub(super) fn history(text: &str, problems: &mut Vec<String>) -> Vec<DraftPoint> {
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

/// `;` separates names, as it separates a dimension's sources; empty pieces
/// between separators name nothing.
pub(super) fn other_names(cell: &str) -> Vec<String> {
    cell.split(';')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(String::from)
        .collect()
}
