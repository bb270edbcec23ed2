//! `area-scoring backup DIR`: consistent copies of the keys file, the usage
//! file and the dataset, made by SQLite's online backup API, so that a copy
//! taken while servers run and commands write is a state the file was in at
//! one moment (docs/deployment.md, "Backups").

use std::fs::{self, OpenOptions};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, MAIN_DB, OpenFlags};

use super::config::Files;
use crate::access::usage::usage_path;

pub fn run(files: &Files, dir: &Path) -> Result<(), String> {
    make_dir(dir)?;
    let sources = [
        Some(files.keys.clone()),
        Some(usage_path(&files.keys)).filter(|p| p.exists()),
        Some(files.db.clone()),
    ];
    let mut copies: Vec<(PathBuf, PathBuf)> = Vec::new();
    for source in sources.into_iter().flatten() {
        let name = source
            .file_name()
            .ok_or_else(|| format!("{} names no file", source.display()))?;
        let to = dir.join(name);
        if copies.iter().any(|(_, other)| *other == to) {
            return Err(format!(
                "two of the files to back up are named {}; copy them one by one",
                name.to_string_lossy()
            ));
        }
        refuse_over(&to)?;
        copies.push((source, to));
    }
    copies.iter().try_for_each(|(from, to)| copy(from, to))
}

/// A backup never replaces another, which may be the only copy of a state
/// worth going back to: nothing is copied into a folder that holds one.
fn refuse_over(to: &Path) -> Result<(), String> {
    match to.exists() {
        false => Ok(()),
        true => Err(format!(
            "{} already holds a backup ({}); nothing was copied: back up into a new folder, \
             such as one named for the time",
            to.parent().unwrap_or(to).display(),
            to.file_name().unwrap_or_default().to_string_lossy()
        )),
    }
}

/// The folder a backup goes into: made when missing, and refused when it
/// is not a folder.
fn make_dir(dir: &Path) -> Result<(), String> {
    if dir.exists() && !dir.is_dir() {
        return Err(format!(
            "{} is not a folder: name a folder for the backup",
            dir.display()
        ));
    }
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

/// The dataset alone, when this host has one (with Redis, an admin host may not).
pub fn dataset(db: &Path, dir: &Path) -> Result<(), String> {
    make_dir(dir)?;
    match db.file_name() {
        Some(name) if db.is_file() => copy(db, &dir.join(name)),
        _ => Ok(()),
    }
}

/// Copies one SQLite file to `to` through a file beside it, created with the
/// source's mode and renamed into place once complete.
fn copy(from: &Path, to: &Path) -> Result<(), String> {
    refuse_over(to)?;
    let meta = fs::metadata(from).map_err(|e| format!("cannot back up {}: {e}", from.display()))?;
    let mode = meta.permissions().mode() & 0o777;
    let temp = PathBuf::from(format!("{}.partial", to.display()));
    let _ = fs::remove_file(&temp);
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(&temp)
        .map_err(|e| format!("cannot create {}: {e}", temp.display()))?;
    let copied = Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|conn| conn.backup(MAIN_DB, &temp, None));
    if let Err(e) = copied {
        let _ = fs::remove_file(&temp);
        return Err(format!("cannot back up {}: {e}", from.display()));
    }
    // umask may have narrowed the mode at creation; the copy keeps the source's.
    fs::set_permissions(&temp, fs::Permissions::from_mode(mode))
        .and_then(|()| fs::rename(&temp, to))
        .map_err(|e| format!("cannot write {}: {e}", to.display()))?;
    eprintln!("backed up {} to {}", from.display(), to.display());
    Ok(())
}
