//! The problems an import found, each at its line (or feature), and the report printed when there are any:
//! a count, then the first `SHOWN_PROBLEMS` in line order. Only those are
//! kept, with the count and the lines that have problems, so that a file
//! bad on every one of a million rows is reported in little memory.

use std::path::Path;

/// At most this many problems are printed; the rest are counted.
pub const SHOWN_PROBLEMS: usize = 100;

/// Where a problem stands among those of its line: what the reader could
/// not read, then a repeated id, then what the rules refuse.
pub type Rank = u8;
pub const READING: Rank = 0;
pub const DUPLICATE: Rank = 1;
pub const RULES: Rank = 2;

/// A problem with the file, at a line (0 when it is about the whole file).
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub line: u64,
    pub id: Option<String>,
    pub message: String,
}

#[derive(Debug)]
pub struct Problems {
    /// What a problem's place is counted in: "line", or "feature" in a
    /// GeoJSON FeatureCollection, whose features are not lines.
    unit: &'static str,
    total: usize,
    /// The lines with problems, ascending.
    lines: Vec<u64>,
    /// Lines with problems added after a later line (repeated ids, found
    /// once every row is read) and not in `lines`.
    more_lines: usize,
    /// At least the first `SHOWN_PROBLEMS` by (line, rank), in the order added within one.
    shown: Vec<(u64, Rank, Problem)>,
}

impl Default for Problems {
    fn default() -> Problems {
        Problems::counted_in("line")
    }
}

impl Problems {
    /// No problems yet, their places counted in `unit` ("line", "feature").
    pub fn counted_in(unit: &'static str) -> Problems {
        Problems {
            unit,
            total: 0,
            lines: Vec::new(),
            more_lines: 0,
            shown: Vec::new(),
        }
    }

    pub fn add(&mut self, line: u64, id: &Option<String>, rank: Rank, messages: Vec<String>) {
        if messages.is_empty() {
            return;
        }
        self.total += messages.len();
        if line > 0 {
            match self.lines.last() {
                Some(&last) if last >= line => {
                    if self.lines.binary_search(&line).is_err() {
                        self.more_lines += 1;
                    }
                }
                _ => self.lines.push(line),
            }
        }
        for message in messages {
            let problem = Problem {
                line,
                id: id.clone(),
                message,
            };
            self.shown.push((line, rank, problem));
            if self.shown.len() >= 4 * SHOWN_PROBLEMS {
                self.keep_first();
            }
        }
    }

    fn keep_first(&mut self) {
        // Stable: within a line and rank, problems stay in the order found.
        self.shown.sort_by_key(|(line, rank, _)| (*line, *rank));
        self.shown.truncate(SHOWN_PROBLEMS);
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    pub fn total(&self) -> usize {
        self.total
    }

    /// The first `SHOWN_PROBLEMS` problems, in line order.
    pub fn shown(&mut self) -> Vec<Problem> {
        self.keep_first();
        self.shown.iter().map(|(_, _, p)| p.clone()).collect()
    }

    /// The error message: a count, then one line per problem, at most `SHOWN_PROBLEMS`.
    pub fn report(mut self, file: &Path) -> String {
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let on_lines = match self.lines.len() + self.more_lines {
            0 => String::new(),
            n => format!(" on {}", plural(n, self.unit)),
        };
        let mut out = format!(
            "{} has {}{on_lines}; nothing was imported and the database is unchanged",
            file.display(),
            plural(self.total(), "problem"),
        );
        let shown = self.shown();
        for p in &shown {
            let at = match (p.line, &p.id) {
                (0, _) => String::new(),
                (line, Some(id)) => format!("{} {line} ({id}): ", self.unit),
                (line, None) => format!("{} {line}: ", self.unit),
            };
            out.push_str(&format!("\n  {at}{}", p.message));
        }
        if self.total > shown.len() {
            out.push_str(&format!("\n  ... and {} more", self.total - shown.len()));
        }
        out
    }
}
