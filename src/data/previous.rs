//! The previous dataset: `import` and `init --force` keep the file they
//! replace as `<db>.previous`, and `area-scoring rollback` puts it back.
//!
//! The kept file is a hard link to the replaced one, made just before the
//! rename that replaces it: no copy, the same inode, so the same mode and
//! owner, and a server still reading the old file is not disturbed. Rollback
//! swaps the two names, each step a rename, so the database path always
//! names a complete file, and a running server sees a new inode and reloads
//! (docs/operations.md, "Data: init, import, reload"). Both hold `WriteLock`, so neither
//! meets a replacement halfway. A rollback killed between its renames leaves
//! the replaced dataset at `<db>.current-PID`; the next command moves it to
//! `<db>.previous` (`remove_stale_temps`, which also removes the other files
//! a killed replacement or rollback left in passing).

use std::fs;
use std::path::{Path, PathBuf};

use crate::data::db;
use crate::data::file_swap::WriteLock;

/// `<db>.previous`: the dataset the last replacement of `db` replaced.
pub fn previous_path(db: &Path) -> PathBuf {
    beside(db, ".previous")
}

fn beside(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    db.with_file_name(name)
}

/// Keeps the file at `db`, about to be replaced, as `<db>.previous`, in
/// place of any older one. Called with `WriteLock` held. Nothing to keep
/// when `db` does not exist yet.
pub fn keep_previous(db: &Path) -> Result<(), String> {
    if !db.is_file() {
        return Ok(());
    }
    let previous = previous_path(db);
    let staged = beside(db, &format!(".previous-{}", std::process::id()));
    let _ = fs::remove_file(&staged);
    let fail = |e: std::io::Error| {
        format!(
            "cannot keep {} as {}, so it is left as it was: {e}",
            db.display(),
            previous.display()
        )
    };
    // Linked under another name first, then renamed, so an older
    // `<db>.previous` is replaced in one step, never missing meanwhile.
    // A file system without hard links gets a copy (fs::copy keeps the mode).
    if fs::hard_link(db, &staged).is_err() {
        fs::copy(db, &staged).map_err(fail)?;
    }
    fs::rename(&staged, &previous).map_err(|e| {
        let _ = fs::remove_file(&staged);
        fail(e)
    })
}

/// `area-scoring rollback`: puts `<db>.previous` back at `db`, and keeps the
/// dataset it replaces as `<db>.previous` in turn, so a second rollback
/// undoes the first. Returns what was done, for the command to print.
pub fn rollback(db: &Path) -> Result<String, String> {
    let _writers = WriteLock::take(db)?;
    remove_stale_temps(db);
    let previous = previous_path(db);
    if !previous.is_file() {
        return Err(format!(
            "no previous dataset to roll back to: {} does not exist (import and init --force keep one)",
            previous.display()
        ));
    }
    // A file the server would refuse is not put in place: it would keep
    // serving the current data and only log why.
    db::check(&previous)
        .map_err(|why| format!("refusing to roll back to {}: {why}", previous.display()))?;
    let current = beside(db, &format!(".current-{}", std::process::id()));
    let _ = fs::remove_file(&current);
    let had_current = db.is_file();
    if had_current {
        fs::hard_link(db, &current).map_err(|e| format!("cannot keep {}: {e}", db.display()))?;
    }
    let moved = fs::rename(&previous, db);
    if let Err(e) = moved {
        let _ = fs::remove_file(&current);
        return Err(format!(
            "cannot move {} into place: {e}",
            previous.display()
        ));
    }
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = fs::File::open(dir).and_then(|d| d.sync_all());
    }
    if !had_current {
        return Ok(format!(
            "rolled {} back to its previous dataset",
            db.display()
        ));
    }
    fs::rename(&current, &previous).map_err(|e| {
        format!(
            "rolled {} back, but cannot keep the replaced dataset as {}: {e}",
            db.display(),
            previous.display()
        )
    })?;
    Ok(format!(
        "rolled {} back to its previous dataset; the one it replaced is now {} (rollback again to undo)",
        db.display(),
        previous.display()
    ))
}

/// The names a replacement or rollback gives its files in passing, beside
/// `<db>`, each followed by its process id, and who makes each.
const PASSING_FILES: [(&str, &str); 3] = [
    (".new-", "an import or init"),
    (".previous-", "an import or init"),
    (".current-", "a rollback"),
];

/// Removes the files (`<db>.new-PID` and SQLite's `-journal` beside one,
/// `<db>.previous-PID`, `<db>.current-PID`) that an import, init or rollback
/// killed before its rename left beside `path`: a database's worth of disk
/// each, which nothing else would ever delete. Only a process that is no
/// longer running can have left one; the file of a running one, maybe still
/// writing, is kept. Said on stderr, as these commands run without the
/// server's logger.
pub fn remove_stale_temps(path: &Path) {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => dir,
        None => Path::new("."),
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some((pid, who)) = file.to_str().and_then(|f| left_by(f, name)) else {
            continue;
        };
        if !is_running(pid) {
            let stale = entry.path();
            if finish_swap(&stale, path, pid) {
                continue;
            }
            if fs::remove_file(&stale).is_ok() {
                eprintln!(
                    "area-scoring: removed {}, left by {who} (process {pid}) that stopped before finishing",
                    stale.display()
                );
            }
        }
    }
}

/// A rollback killed between its two renames left the dataset it replaced
/// only at `<db>.current-PID`, with no `<db>.previous`: finishing its swap
/// keeps that dataset. Says whether it did.
fn finish_swap(stale: &Path, db: &Path, pid: u32) -> bool {
    let previous = previous_path(db);
    let is_current = stale
        .to_str()
        .is_some_and(|s| s.ends_with(&format!(".current-{pid}")));
    if !is_current || previous.exists() || fs::rename(stale, &previous).is_err() {
        return false;
    }
    eprintln!(
        "area-scoring: kept {} as {}, left by a rollback (process {pid}) that stopped before finishing",
        stale.display(),
        previous.display()
    );
    true
}

/// The process id and maker of `file` when it is one of the passing files of `db_name`.
fn left_by(file: &str, db_name: &str) -> Option<(u32, &'static str)> {
    let rest = file.strip_prefix(db_name)?;
    PASSING_FILES.iter().find_map(|(infix, who)| {
        let pid = rest.strip_prefix(infix)?;
        let pid = pid.strip_suffix("-journal").unwrap_or(pid);
        Some((pid.parse::<u32>().ok()?, *who))
    })
}

/// Whether process `pid` is running, from /proc. Where there is no /proc to
/// ask, every process counts as running, so that no file is ever removed
/// from under one.
fn is_running(pid: u32) -> bool {
    pid == std::process::id()
        || !Path::new("/proc/self").exists()
        || Path::new(&format!("/proc/{pid}")).exists()
}
