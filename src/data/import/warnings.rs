//! What an import prints about rows it still takes: each warning once, with
//! its line, the first `SHOWN_WARNINGS` of them and a count of the rest, so
//! that a file warned about on every row is reported in little memory.

/// At most this many warnings are printed; the rest are counted.
pub const SHOWN_WARNINGS: usize = 20;

#[derive(Debug)]
pub struct Warnings {
    /// What a warning's place is counted in: "line", or "feature".
    unit: &'static str,
    total: usize,
    /// The first `SHOWN_WARNINGS`, as printed: "line 3 (id): message".
    shown: Vec<String>,
}

impl Default for Warnings {
    fn default() -> Warnings {
        Warnings::counted_in("line")
    }
}

impl Warnings {
    /// No warnings yet, their places counted in `unit` ("line", "feature").
    pub fn counted_in(unit: &'static str) -> Warnings {
        Warnings {
            unit,
            total: 0,
            shown: Vec::new(),
        }
    }

    /// Adds a warning; rows come in line order, so the first kept are the first lines.
    pub fn add(&mut self, line: u64, id: &str, message: String) {
        self.total += 1;
        if self.shown.len() < SHOWN_WARNINGS {
            self.shown
                .push(format!("{} {line} ({id}): {message}", self.unit));
        }
    }

    /// Adds a warning about the whole file, shown before those of rows.
    pub fn add_for_file(&mut self, message: String) {
        self.total += 1;
        self.shown.insert(0, message);
        self.shown.truncate(SHOWN_WARNINGS);
    }

    /// The warnings as printed after the summary: one line each, indented,
    /// then how many more; empty when there are none.
    pub fn report(&self) -> String {
        let mut out = String::new();
        if self.total == 0 {
            return out;
        }
        let plural = if self.total == 1 { "" } else { "s" };
        out.push_str(&format!(
            "\n{} warning{plural} (not problems: the rows are taken as given):",
            self.total
        ));
        for w in &self.shown {
            out.push_str(&format!("\n  warning: {w}"));
        }
        if self.total > self.shown.len() {
            out.push_str(&format!(
                "\n  ... and {} more warnings",
                self.total - self.shown.len()
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_are_shown_and_the_rest_counted() {
        let mut w = Warnings::default();
        for line in 2..2 + SHOWN_WARNINGS as u64 + 3 {
            w.add(line, "a", "far".into());
        }
        let text = w.report();
        assert!(text.starts_with("\n23 warnings (not problems: the rows are taken as given):\n  warning: line 2 (a): far"), "{text}");
        assert_eq!(text.matches("warning: ").count(), SHOWN_WARNINGS);
        assert!(text.ends_with("\n  ... and 3 more warnings"), "{text}");
        assert_eq!(Warnings::default().report(), "");
    }
}
