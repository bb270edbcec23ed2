//! The previous datasets: `import` and `init --force` keep the file they
//! replace as `<db>.previous`, the older ones kept moving down to
//! `<db>.previous.2` and `<db>.previous.3` (`KEPT_DATASETS`), and
//! `area-scoring rollback` puts `<db>.previous` back.
//!
//! A kept file is a hard link to the replaced one, made just before the
//! rename that replaces it: no copy, the same inode, so the same mode and
//! owner, and a server still reading the old file is not disturbed. A
//! dataset equal to the newest kept one is not kept again, so that one bad
//! file imported twice cannot push the good data out. Rollback moves each
//! file by a rename, so the database path always names a complete file, and
//! a running server sees a new inode and reloads (docs/operations.md,
//! "Data: init, import, reload"). Both hold `WriteLock`, so neither meets a
//! replacement halfway. A rollback killed between its renames leaves the
//! replaced dataset at `<db>.current-PID`, and maybe a gap among the kept
//! files; the next import or rollback closes the gap and keeps that dataset
//! (`tidy_kept`). `remove_stale_temps` removes the other files a killed
//! replacement or rollback left in passing.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use crate::data::db;
use crate::data::error::DataError;
use crate::data::file_swap::WriteLock;
use crate::data::identity;
use crate::dates;
use crate::file_error::cannot;

/// How many replaced datasets are kept, the newest first. Enough to step
/// back past a wrong file imported twice; each costs a dataset's disk.
pub const KEPT_DATASETS: usize = 3;

/// `<db>.previous`: the dataset the last replacement of `db` replaced.
pub fn previous_path(db: &Path) -> PathBuf {
    beside(db, ".previous")
}

/// The kept dataset at `place`, 0 the newest: `<db>.previous`, then
/// `<db>.previous.2`, `<db>.previous.3`.
pub fn kept_path(db: &Path, place: usize) -> PathBuf {
    match place {
        0 => previous_path(db),
        n => beside(db, &format!(".previous.{}", n + 1)),
    }
}

fn beside(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    db.with_file_name(name)
}

/// Keeps the file at `db`, about to be replaced, as `<db>.previous`, the
/// kept ones moving down a place and the oldest beyond `KEPT_DATASETS`
/// removed. Called with `WriteLock` held. Nothing to keep when `db` does
/// not exist yet, or holds what `<db>.previous` already holds.
pub fn keep_previous(db: &Path) -> Result<(), DataError> {
    tidy_kept(db);
    if !db.is_file() {
        return Ok(());
    }
    let previous = previous_path(db);
    if previous.is_file() && same_dataset(db, &previous) {
        return Ok(());
    }
    let staged = beside(db, &format!(".previous-{}", std::process::id()));
    let _ = fs::remove_file(&staged);
    let fail = |source| {
        let _ = fs::remove_file(&staged);
        DataError::NotKept {
            db: db.to_path_buf(),
            previous: previous.clone(),
            source,
        }
    };
    // Linked under another name first, then renamed, so that the name
    // `<db>.previous` is missing only between two renames.
    // A file system without hard links gets a copy (fs::copy keeps the mode).
    if fs::hard_link(db, &staged).is_err() {
        fs::copy(db, &staged).map_err(fail)?;
    }
    for place in (1..KEPT_DATASETS).rev() {
        let older = kept_path(db, place - 1);
        if older.is_file() {
            fs::rename(&older, kept_path(db, place)).map_err(fail)?;
        }
    }
    fs::rename(&staged, &previous).map_err(fail)
}

/// Whether the two files hold the same dataset: the same file, or the same
/// rows in every table an import writes. Any doubt (a file unreadable, of
/// another layout) counts as different, so that nothing is dropped on it.
pub fn same_dataset(a: &Path, b: &Path) -> bool {
    let inode = |p: &Path| fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    if inode(a).is_some() && inode(a) == inode(b) {
        return true;
    }
    let (Some(a), Some(b)) = (a.to_str(), b.to_str()) else {
        return false;
    };
    let same = || -> rusqlite::Result<bool> {
        let conn = Connection::open_with_flags(a, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        conn.execute("ATTACH ?1 AS other", [b])?;
        same_areas(&conn, "main", "other")
    };
    same().unwrap_or(false)
}

/// The tables an import writes, with the key each is ordered by; the
/// others are derived from them.
const AREA_TABLES: [(&str, &str); 6] = [
    ("areas", "area_no"),
    // The simplified forms and boxes are made from it.
    ("area_boundaries", "area_no"),
    ("area_other_names", "area_no, position"),
    ("area_dimensions", "area_no, dimension"),
    ("dimension_sources", "area_no, dimension, position"),
    ("history", "area_no, day"),
];

/// Whether the databases `a` and `b` of one connection hold the same rows
/// in every table of `AREA_TABLES`, read side by side in key order: no row
/// is held, and the first difference ends the comparison. A table missing
/// from either (an older layout) is a difference.
pub fn same_areas(conn: &Connection, a: &str, b: &str) -> rusqlite::Result<bool> {
    for (table, key) in AREA_TABLES {
        let select = |schema: &str| format!("SELECT * FROM {schema}.{table} ORDER BY {key}");
        let (Ok(mut left), Ok(mut right)) = (conn.prepare(&select(a)), conn.prepare(&select(b)))
        else {
            return Ok(false);
        };
        let columns = left.column_count();
        if columns != right.column_count() {
            return Ok(false);
        }
        let (mut left, mut right) = (left.query([])?, right.query([])?);
        loop {
            match (left.next()?, right.next()?) {
                (None, None) => break,
                (Some(l), Some(r)) => {
                    for i in 0..columns {
                        if l.get_ref(i)? != r.get_ref(i)? {
                            return Ok(false);
                        }
                    }
                }
                _ => return Ok(false),
            }
        }
    }
    Ok(true)
}

/// What names a kept dataset to the operator: its file, when it was
/// written (the file's modification time, UTC) and its area count.
pub fn describe(path: &Path) -> String {
    let written = fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or("at an unknown time".into(), |d| {
            format!("written {}", dates::format_timestamp(d.as_secs() as i64))
        });
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY);
    let areas = conn.as_ref().map_err(|_| ()).and_then(|c| {
        c.query_row("SELECT count(*) FROM areas", [], |r| r.get::<_, i64>(0))
            .map_err(|_| ())
    });
    let areas = match areas {
        Ok(1) => "1 area".to_string(),
        Ok(n) => format!("{n} areas"),
        Err(()) => "areas not readable".to_string(),
    };
    // Its identity, when it recorded one (data/identity.rs).
    let made = conn
        .ok()
        .map(|c| identity::read(&c))
        .filter(|i| i.made_at.is_some())
        .map_or(String::new(), |i| format!("; {}", i.describe()));
    format!("{} ({written}, {areas}{made})", path.display())
}

/// The kept datasets, newest first (`tidy_kept` leaves no gap among them).
fn kept(db: &Path) -> Vec<PathBuf> {
    (0..KEPT_DATASETS)
        .map(|place| kept_path(db, place))
        .take_while(|p| p.is_file())
        .collect()
}

/// `area-scoring rollback`: puts `<db>.previous` back at `db`; the older
/// kept datasets move up a place, and the one it replaces is kept last, so
/// that rollbacks step back through every kept dataset in turn and lose
/// none. Returns what was done, naming what it restored, for the command
/// to print.
/// Where rollback sets aside a served file that was no dataset.
pub const REFUSED_SUFFIX: &str = ".not-a-dataset";

pub fn rollback(db: &Path) -> Result<String, DataError> {
    let _writers = WriteLock::take(db)?;
    remove_stale_temps(db);
    tidy_kept(db);
    let kept = kept(db);
    let Some(back) = kept.first() else {
        return Err(DataError::NoPrevious(previous_path(db)));
    };
    // A file the server would refuse is not put in place: it would keep
    // serving the current data and only log why.
    db::check(back).map_err(|why| DataError::RollbackRefused {
        path: back.clone(),
        source: Box::new(why),
    })?;
    let restored = describe(back);
    let current = beside(db, &format!(".current-{}", std::process::id()));
    let _ = fs::remove_file(&current);
    let had_current = db.is_file();
    if had_current {
        fs::hard_link(db, &current).map_err(cannot("keep", db))?;
    }
    if let Err(source) = fs::rename(back, db) {
        let _ = fs::remove_file(&current);
        return Err(DataError::NotInPlace {
            path: back.clone(),
            source,
        });
    }
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = fs::File::open(dir).and_then(|d| d.sync_all());
    }
    let done = format!("rolled {} back to {restored}", db.display());
    if !had_current {
        return Ok(done);
    }
    // What it replaced was no dataset (a wrong file renamed into place): it
    // is set aside, not kept in line, where a later rollback would reach it.
    if db::check_versions(&current, db::OLDEST_VERSION..=db::SCHEMA_VERSION).is_err() {
        let aside = beside(db, REFUSED_SUFFIX);
        return Ok(match fs::rename(&current, &aside) {
            Ok(()) => format!(
                "{done}; the file it replaced was no dataset, and is set aside as {} \
                 (not among the kept datasets)",
                aside.display()
            ),
            Err(e) => format!(
                "{done}; the file it replaced was no dataset and cannot be set aside ({e}): \
                 remove {}",
                current.display()
            ),
        });
    }
    let cannot = |source| DataError::KeptOutOfLine {
        done: done.clone(),
        source,
    };
    for place in 1..kept.len() {
        fs::rename(&kept[place], &kept[place - 1]).map_err(cannot)?;
    }
    let last = &kept[kept.len() - 1];
    fs::rename(&current, last).map_err(cannot)?;
    Ok(match kept.len() {
        1 => format!(
            "{done}; the one it replaced is now {} (rollback again to undo)",
            last.display()
        ),
        _ => format!(
            "{done}; the one it replaced is now {}, the last of the kept datasets; \
             rollback again for {}",
            last.display(),
            describe(&kept[0])
        ),
    })
}

/// Closes the gaps a replacement or rollback killed between its renames
/// left among the kept datasets, keeping their order, then keeps the
/// dataset such a rollback left at `<db>.current-PID` last in line (unless
/// it is the served file itself). Called with `WriteLock` held, so that no
/// running command is between its renames. Said on stderr.
fn tidy_kept(db: &Path) {
    let mut free = 0;
    for place in 0..KEPT_DATASETS {
        let path = kept_path(db, place);
        if !path.is_file() {
            continue;
        }
        if place != free {
            let to = kept_path(db, free);
            match fs::rename(&path, &to) {
                Ok(()) => eprintln!(
                    "area-scoring: moved {} to {}, closing the gap a command that stopped before finishing left",
                    path.display(),
                    to.display()
                ),
                Err(_) => free = place,
            }
        }
        free += 1;
    }
    for (stale, pid, _) in passing_files(db) {
        let is_current = stale
            .to_str()
            .is_some_and(|s| s.ends_with(&format!(".current-{pid}")));
        if !is_current || is_running(pid) {
            continue;
        }
        // Still the served file (killed before its first rename), or not a
        // dataset at all: nothing to keep.
        let served = same_file(&stale, db);
        if served || db::check(&stale).is_err() {
            if fs::remove_file(&stale).is_ok() && !served {
                eprintln!(
                    "area-scoring: removed {}, left by a rollback (process {pid}) that stopped before finishing",
                    stale.display()
                );
            }
            continue;
        }
        if free >= KEPT_DATASETS {
            continue;
        }
        let to = kept_path(db, free);
        if fs::rename(&stale, &to).is_ok() {
            free += 1;
            eprintln!(
                "area-scoring: kept {} as {}, left by a rollback (process {pid}) that stopped before finishing",
                stale.display(),
                to.display()
            );
        }
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    let inode = |p: &Path| fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    inode(a).is_some() && inode(a) == inode(b)
}

/// The names a replacement or rollback gives its files in passing, beside
/// `<db>`, each followed by its process id, and who makes each.
const PASSING_FILES: [(&str, &str); 3] = [
    (".new-", "an import or init"),
    (".previous-", "an import or init"),
    (".current-", "a rollback"),
];

/// Removes the files (`<db>.new-PID` and SQLite's `-journal` beside one,
/// `<db>.previous-PID`) that an import, init or rollback killed before its
/// rename left beside `path`: a database's worth of disk each, which nothing
/// else would ever delete. Only a process that is no longer running can
/// have left one; the file of a running one, maybe still writing, is kept.
/// A rollback's `<db>.current-PID` holds a dataset: `tidy_kept` keeps it,
/// or removes it when it is no longer needed. Said on stderr, as these
/// commands run without the server's logger.
pub fn remove_stale_temps(path: &Path) {
    for (stale, pid, who) in passing_files(path) {
        let is_current = stale
            .to_str()
            .is_some_and(|s| s.ends_with(&format!(".current-{pid}")));
        if is_current || is_running(pid) {
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

/// The passing files beside `path`, each with the process id and maker its name gives.
fn passing_files(path: &Path) -> Vec<(PathBuf, u32, &'static str)> {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return Vec::new();
    };
    let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => dir,
        None => Path::new("."),
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let file = entry.file_name();
            let (pid, who) = file.to_str().and_then(|f| left_by(f, name))?;
            Some((entry.path(), pid, who))
        })
        .collect()
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
