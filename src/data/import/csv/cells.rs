//! Reading one CSV cell of an import (import/csv/) into a draft's
//! value: numbers in plain decimal notation, with a decimal point or a
//! decimal comma (as spreadsheets in South Africa's locale write them) but
//! one of them throughout a file, history items, other names. A cell that
//! cannot be read is a problem named after its column.

use std::cell::RefCell;

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

/// How a file writes its decimals: `comma` when `--decimal-comma` says so,
/// else either way, the first of each kind kept to name both when a file
/// mixes them.
#[derive(Default)]
pub struct Decimals {
    pub comma: bool,
    /// The first number with a decimal point, and with a decimal comma: (line, column, text).
    pub(super) seen: RefCell<[Option<(u64, String, String)>; 2]>,
}

impl Decimals {
    pub(super) fn required(
        &self,
        at: (u64, &str),
        text: Option<&str>,
        problems: &mut Vec<String>,
    ) -> Option<f64> {
        match text {
            None => {
                problems.push(format!("{} is missing", at.1));
                None
            }
            Some(t) => self.number(at, t, problems),
        }
    }

    /// The number in `text`, of the column `at.1` on line `at.0`.
    pub(super) fn number(
        &self,
        at: (u64, &str),
        text: &str,
        problems: &mut Vec<String>,
    ) -> Option<f64> {
        let (line, name) = at;
        let kind = match (text.contains('.'), text.contains(',')) {
            (true, false) => Some(0),
            (false, true) => Some(1),
            _ => None,
        };
        if kind == Some(0) && self.comma {
            problems.push(format!(
                "{name} '{text}' has a decimal point, but --decimal-comma says decimals are written with a comma"
            ));
            return None;
        }
        let n = rules::decimal(&text.replacen(',', ".", 1));
        if let Some(k) = kind.filter(|_| n.is_some()) {
            // Only a number's first characters: the message needs no more.
            let shown = || text.chars().take(40).collect();
            self.seen.borrow_mut()[k].get_or_insert_with(|| (line, name.into(), shown()));
        }
        if n.is_none() {
            problems.push(format!(
                "{name} '{text}' is not a number in decimal notation (like 6.25 or -33.91, or 6,25 with a decimal comma)"
            ));
        }
        n
    }

    /// The one problem of a file that writes decimals both ways, if it does.
    pub fn mixed(&self) -> Option<String> {
        self.mixed_in("line")
    }

    /// As `mixed`, the places named in `unit` ("line", or "feature" in a
    /// GeoJSON FeatureCollection, whose properties are read as cells).
    pub fn mixed_in(&self, unit: &str) -> Option<String> {
        let seen = self.seen.borrow();
        let [Some(point), Some(comma)] = &*seen else {
            return None;
        };
        let point = format!(
            "{unit} {} has {} '{}' with a decimal point",
            point.0, point.1, point.2
        );
        let comma = format!(
            "{unit} {} has {} '{}' with a decimal comma",
            comma.0, comma.1, comma.2
        );
        let (first, then) = match seen[0].as_ref().map(|s| s.0) < seen[1].as_ref().map(|s| s.0) {
            true => (point, comma),
            false => (comma, point),
        };
        Some(format!(
            "the file writes decimals both ways: {first}, {then}; write them one way \
             throughout (or give --decimal-comma, and each decimal point is named)"
        ))
    }
}

/// A date as ISO 8601 (`2026-11-20`) when written `2026/11/20`, as Google
/// Sheets writes dates in South Africa's locale.
pub(super) fn iso_date(text: &str) -> String {
    let b = text.as_bytes();
    let slashed = b.len() == 10
        && b[4] == b'/'
        && b[7] == b'/'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    match slashed {
        true => text.replace('/', "-"),
        false => text.to_string(),
    }
}

/// `2026-01-01:6.5;2026-01-02:6.6`: dates are checked later, here only the shape.
pub(super) fn history(
    decimals: &Decimals,
    line: u64,
    text: &str,
    problems: &mut Vec<String>,
) -> Vec<DraftPoint> {
    let mut points = Vec::new();
    for item in text.split(';').map(str::trim) {
        match item.split_once(':') {
            Some((date, score)) => points.push(DraftPoint {
                date: iso_date(date.trim()),
                score: decimals.number(
                    (line, &format!("history score on {}", date.trim())),
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
