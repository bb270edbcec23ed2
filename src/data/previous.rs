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
//! `<db>.previous` (load.rs, `remove_stale_temps`).

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
    crate::data::load::remove_stale_temps(db);
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
