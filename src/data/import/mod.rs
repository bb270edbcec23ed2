//! `area-scoring import --db PATH FILE`: replaces every area of the database
//! with the operator's own, read from CSV or JSON Lines (docs/import.md).
//!
//! Everything is checked before anything is written, and every problem of
//! every row is reported with its line number; only a file without problems
//! reaches `load::create_database`, which builds a new file beside the old
//! and renames it into place. So a failed import changes nothing, and a
//! running server can reload the new file. API keys are in the keys file,
//! which an import never touches.

mod area;
mod from_csv;
mod from_jsonl;
mod history;
mod json_value;
mod rules;

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use crate::data::db;
use crate::data::load::{self, NewArea};
use crate::data::seed::DimensionScore;
use crate::dates;
use std::borrow::Cow;

use area::Area;

/// At most this many problems are printed; the rest are counted.
const SHOWN_PROBLEMS: usize = 100;

/// A problem with the file, at a line (0 when it is about the whole file).
#[derive(Debug, Clone, PartialEq)]
struct Problem {
    line: u64,
    id: Option<String>,
    message: String,
}

pub fn run(db: &Path, file: &Path) -> Result<String, String> {
    let read = reader_for(file)?;
    let bytes = fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let existed = check_target(db)?;
    let areas =
        parse(read, &bytes, dates::now_unix()).map_err(|problems| report(file, &problems))?;
    let count = write(db, &areas)?;
    let done = if existed {
        format!(
            "imported {count} areas from {} into {}",
            file.display(),
            db.display()
        )
    } else {
        format!(
            "created {} with {count} areas from {}; create an API key with: area-scoring keys create --db {} --plan PLAN",
            db.display(),
            file.display(),
            db.display()
        )
    };
    Ok(match areas.iter().map(|a| a.rounded).sum::<usize>() {
        0 => done,
        1 => format!("{done}; rounded 1 score to 2 decimals"),
        n => format!("{done}; rounded {n} scores to 2 decimals"),
    })
}

type Reader = fn(&[u8]) -> Vec<area::Row>;

/// The reader for the file's extension: .csv, .jsonl or .ndjson (any case).
fn reader_for(file: &Path) -> Result<Reader, String> {
    let extension = file
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("csv") => Ok(from_csv::read),
        Some("jsonl" | "ndjson") => Ok(from_jsonl::read),
        _ => Err(format!(
            "cannot tell the format of {}: name it .csv (CSV) or .jsonl / .ndjson (JSON Lines); see docs/import.md",
            file.display()
        )),
    }
}

/// Whether the database exists; refuses to replace a file that is not an
/// area-scoring database, which is not ours to overwrite.
fn check_target(db: &Path) -> Result<bool, String> {
    if !db.exists() {
        return Ok(false);
    }
    if db.is_dir() {
        return Err(format!(
            "{} is a directory, not a database file",
            db.display()
        ));
    }
    // An older schema is fine: the file is written anew.
    db::check_versions(db, db::OLDEST_VERSION..=db::SCHEMA_VERSION)
        .map_err(|why| format!("refusing to replace {}: {why}", db.display()))?;
    Ok(true)
}

/// Reads and checks every row: the areas sorted by id, or every problem found.
fn parse(read: Reader, bytes: &[u8], now: i64) -> Result<Vec<Area>, Vec<Problem>> {
    let mut problems = Vec::new();
    let mut areas: Vec<(u64, Area)> = Vec::new();
    let mut first_line: HashMap<String, u64> = HashMap::new();
    for row in read(bytes) {
        let id = row.draft.as_ref().and_then(|d| d.id.clone());
        let mut found = row.problems;
        if let Some(draft) = &row.draft {
            if let Some(id) = &id {
                match first_line.get(id) {
                    Some(first) => found.push(format!("id '{id}' is already used on line {first}")),
                    None => {
                        first_line.insert(id.clone(), row.line);
                    }
                }
            }
            match area::check(draft, now) {
                Ok(a) if found.is_empty() => areas.push((row.line, a)),
                Ok(_) => {}
                Err(more) => found.extend(more),
            }
        }
        problems.extend(found.into_iter().map(|message| Problem {
            line: row.line,
            id: id.clone(),
            message,
        }));
    }
    if problems.is_empty() && areas.is_empty() {
        problems.push(Problem {
            line: 0,
            id: None,
            message: "the file holds no areas".into(),
        });
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut areas: Vec<Area> = areas.into_iter().map(|(_, a)| a).collect();
    areas.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(areas)
}

/// The error message: a count, then one line per problem, at most `SHOWN_PROBLEMS`.
fn report(file: &Path, problems: &[Problem]) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut lines: Vec<u64> = problems.iter().map(|p| p.line).filter(|l| *l > 0).collect();
    lines.dedup();
    let on_lines = match lines.len() {
        0 => String::new(),
        n => format!(" on {}", plural(n, "line")),
    };
    let mut out = format!(
        "{} has {}{on_lines}; nothing was imported and the database is unchanged",
        file.display(),
        plural(problems.len(), "problem"),
    );
    for p in problems.iter().take(SHOWN_PROBLEMS) {
        let at = match (p.line, &p.id) {
            (0, _) => String::new(),
            (line, Some(id)) => format!("line {line} ({id}): "),
            (line, None) => format!("line {line}: "),
        };
        out.push_str(&format!("\n  {at}{}", p.message));
    }
    if problems.len() > SHOWN_PROBLEMS {
        out.push_str(&format!(
            "\n  ... and {} more",
            problems.len() - SHOWN_PROBLEMS
        ));
    }
    out
}

/// Writes the areas (sorted by id) through `load::create_database`.
fn write(db: &Path, areas: &[Area]) -> Result<i64, String> {
    load::create_database(db, true, |writer| {
        for a in areas {
            let dimensions: Vec<DimensionScore> = a
                .dimensions
                .iter()
                .map(|d| DimensionScore {
                    name: d.name,
                    score: d.score,
                    weight: d.weight,
                    sources: d.sources.iter().map(|s| Cow::Owned(s.clone())).collect(),
                })
                .collect();
            writer.add(&NewArea {
                id: &a.id,
                name: &a.name,
                province_slug: a.province_slug,
                province: a.province,
                municipality: &a.municipality,
                lat: a.lat,
                lng: a.lng,
                truth_score: a.truth_score,
                updated_at: &a.updated_at,
                dimensions: &dimensions,
                history: &a.history,
                first_day: a.first_day,
            })?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests;
