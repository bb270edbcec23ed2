//! `area-scoring backup DIR`: consistent copies of the keys file, the usage
//! file and the dataset, made by SQLite's online backup API, so that a copy
//! taken while servers run and commands write is a state the file was in at
//! one moment (docs/deployment.md, "Backups").

use std::fs::{self, OpenOptions};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, MAIN_DB, OpenFlags};

use super::config::Files;
use super::error::CliError;
use crate::access::usage::usage_path;
use crate::file_error::cannot;

pub fn run(files: &Files, dir: &Path) -> Result<(), CliError> {
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
            .ok_or_else(|| CliError::NoFileName(source.clone()))?;
        let to = dir.join(name);
        if copies.iter().any(|(_, other)| *other == to) {
            return Err(CliError::SameName(name.to_string_lossy().into_owned()));
        }
        refuse_over(&to)?;
        copies.push((source, to));
    }
    copies.iter().try_for_each(|(from, to)| copy(from, to))
}

/// A backup never replaces another, which may be the only copy of a state
/// worth going back to: nothing is copied into a folder that holds one.
fn refuse_over(to: &Path) -> Result<(), CliError> {
    match to.exists() {
        false => Ok(()),
        true => Err(CliError::BackupThere {
            dir: to.parent().unwrap_or(to).to_path_buf(),
            name: to
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
        }),
    }
}

/// The folder a backup goes into: made when missing, and refused when it
/// is not a folder.
fn make_dir(dir: &Path) -> Result<(), CliError> {
    if dir.exists() && !dir.is_dir() {
        return Err(CliError::NoBackupFolder(dir.to_path_buf()));
    }
    Ok(fs::create_dir_all(dir).map_err(cannot("create", dir))?)
}

/// The dataset alone, when this host has one (with Redis, an admin host may not).
pub fn dataset(db: &Path, dir: &Path) -> Result<(), CliError> {
    make_dir(dir)?;
    match db.file_name() {
        Some(name) if db.is_file() => copy(db, &dir.join(name)),
        _ => Ok(()),
    }
}

/// Copies one SQLite file to `to` through a file beside it, created with the
/// source's mode and renamed into place once complete.
fn copy(from: &Path, to: &Path) -> Result<(), CliError> {
    refuse_over(to)?;
    let meta = fs::metadata(from).map_err(cannot("back up", from))?;
    let mode = meta.permissions().mode() & 0o777;
    let temp = PathBuf::from(format!("{}.partial", to.display()));
    let _ = fs::remove_file(&temp);
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(&temp)
        .map_err(cannot("create", &temp))?;
    let copied = Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|conn| conn.backup(MAIN_DB, &temp, None));
    if let Err(e) = copied {
        let _ = fs::remove_file(&temp);
        return Err(cannot("back up", from)(e).into());
    }
    // umask may have narrowed the mode at creation; the copy keeps the source's.
    fs::set_permissions(&temp, fs::Permissions::from_mode(mode))
        .and_then(|()| fs::rename(&temp, to))
        .map_err(cannot("write", to))?;
    eprintln!("backed up {} to {}", from.display(), to.display());
    Ok(())
}
