//! `area-scoring import --check FILE`: every check of an import, the
//! safeguards (`guard`) included, and what the import would change against
//! the served dataset: areas added, removed, rescored (truth_score changed)
//! and unchanged, a few of each named. Nothing is written: the rows are
//! compared where the checking pass staged them, in its private temporary
//! database, with the served file attached read-only.

use std::path::Path;

use rusqlite::Connection;

use super::guard::{self, Changes, Found};
use super::{Checked, ImportError, Options, check_file};

/// Checks `file` as `import` would against `db`, and says what it would
/// change; `Err` when the import would fail, with why.
pub fn check(db: &Path, file: &Path, options: &Options) -> Result<String, ImportError> {
    let nothing = "nothing was written (--check)";
    let Checked {
        existed, staged, ..
    } = check_file(db, file, options)?;
    let warnings = staged.warnings.report();
    let areas = staged.areas;
    let plural = if areas == 1 { "" } else { "s" };
    let head = format!("{} has no problems: {areas} area{plural}", file.display());
    // What the reading noted (rows of nothing but separators skipped, the
    // separator and decimal comma found), as an import says it.
    let head = (staged.layout.notes().iter()).fold(head, |h, note| format!("{h} ({note})"));
    if !existed {
        return Ok(format!(
            "{head}; the import would create {} with them; {nothing}{warnings}",
            db.display()
        ));
    }
    let diff = Diff::read(&staged.conn, db).map_err(|source| ImportError::Compare {
        db: db.display().to_string(),
        source,
    })?;
    let lines = diff.lines();
    let why = guard::too_many(&diff.guarded).join(", and ");
    let report = |verdict: String| {
        format!(
            "{head}, against {}:{lines}\n{verdict}; {nothing}{warnings}",
            db.display()
        )
    };
    match (why.is_empty(), options.allow.shrink) {
        (true, _) => Ok(report("the import would succeed".into())),
        (false, true) => Ok(report(format!(
            "the import would succeed with --allow-shrink, which it needs: the file would {why}"
        ))),
        (false, false) => Err(ImportError::WouldBeRefused(report(format!(
            "the import would be refused without --allow-shrink: the file would {why}"
        )))),
    }
}

/// The staged rows against the served areas.
struct Diff {
    added: Found,
    rescored: Found,
    unchanged: i64,
    /// Removed and moved, as the guard judges them.
    guarded: Changes,
}

impl Diff {
    fn read(conn: &Connection, db: &Path) -> rusqlite::Result<Diff> {
        let name = db
            .to_str()
            .ok_or_else(|| rusqlite::Error::InvalidPath(db.to_path_buf()))?;
        // The served file is only read: nothing this connection does may write.
        conn.execute_batch("PRAGMA query_only = ON")?;
        conn.execute("ATTACH ?1 AS served", [name])?;
        let added = guard::found(
            conn,
            "SELECT n.id FROM staged n
             WHERE NOT EXISTS (SELECT 1 FROM served.areas s WHERE s.id = n.id) ORDER BY n.id",
        )?;
        let rescored = guard::found(
            conn,
            "SELECT n.id || ' (' || s.truth_score || ' to ' || n.truth_score || ')'
             FROM staged n JOIN served.areas s ON s.id = n.id
             WHERE n.truth_score <> s.truth_score ORDER BY n.id",
        )?;
        let unchanged = conn.query_row(
            "SELECT count(*) FROM staged n JOIN served.areas s ON s.id = n.id
             WHERE n.truth_score = s.truth_score",
            [],
            |r| r.get(0),
        )?;
        let guarded = Changes::read(conn, "main.staged")?;
        conn.execute_batch("DETACH served")?;
        Ok(Diff {
            added,
            rescored,
            unchanged,
            guarded,
        })
    }

    /// One indented line per kind of change, with the first few named.
    fn lines(&self) -> String {
        let line = |what: &str, f: &Found| match f.count {
            0 => format!("\n  {what}: 0"),
            n => format!("\n  {what}: {n} ({})", guard::named(f)),
        };
        [
            line("added", &self.added),
            line("removed", &self.guarded.removed),
            line("rescored (truth_score changed)", &self.rescored),
            format!("\n  unchanged truth_score: {}", self.unchanged),
            line("moved to another province", &self.guarded.moved),
        ]
        .concat()
    }
}
