//! `area-scoring restore DIR`: puts back what `backup DIR` wrote, exactly.
//! Every file found in DIR is checked (its kind by application_id, SQLite's
//! quick_check) before anything changes; the restore is refused while a
//! server uses the keys file (access/serving_lock.rs); what it undoes is
//! listed first and needs `--yes`. Each file is copied beside the live one
//! with the live one's mode and owner, synced, the live file's journals
//! removed (a stale WAL would be read into the restored file), renamed into
//! place and the folder synced; a replaced dataset is kept for `rollback` (docs/deployment.md, "Backups and restore").

use std::fs::{self, File, OpenOptions};
use std::io::ErrorKind;
use std::ops::RangeInclusive;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::config::Files;
use super::error::{BadBackup, CliError};
use super::restore_undo::{self, open_as_is};
use crate::access::key_file::{KEYS_APPLICATION_ID, KEYS_SCHEMA_VERSION};
use crate::access::serving_lock::{Refused, Restoring};
use crate::access::usage::{USAGE_APPLICATION_ID, usage_path};
use crate::data::db::{self, APPLICATION_ID, READABLE_VERSIONS};
use crate::data::file_swap::{self, WriteLock};
use crate::data::previous;
use crate::file_error::cannot;

/// The files SQLite may keep beside a database, removed before the restored
/// one is renamed in.
const JOURNALS: [&str; 3] = ["-wal", "-shm", "-journal"];

/// One file to put back: its copy in DIR and where it goes.
struct Item {
    kind: Kind,
    backup: PathBuf,
    live: PathBuf,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Keys,
    Usage,
    Dataset,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Keys, Kind::Usage, Kind::Dataset];

    fn named(self) -> &'static str {
        match self {
            Kind::Keys => "a keys file",
            Kind::Usage => "a usage file",
            Kind::Dataset => "an area-scoring dataset",
        }
    }

    fn application_id(self) -> i64 {
        match self {
            Kind::Keys => KEYS_APPLICATION_ID,
            Kind::Usage => USAGE_APPLICATION_ID,
            Kind::Dataset => APPLICATION_ID,
        }
    }

    /// The schema versions this build reads (the usage file has none).
    fn versions(self) -> Option<RangeInclusive<i64>> {
        match self {
            Kind::Keys => Some(KEYS_SCHEMA_VERSION..=KEYS_SCHEMA_VERSION),
            Kind::Usage => None,
            Kind::Dataset => Some(READABLE_VERSIONS),
        }
    }

    fn live(self, files: &Files) -> PathBuf {
        match self {
            Kind::Keys => files.keys.clone(),
            Kind::Usage => usage_path(&files.keys),
            Kind::Dataset => files.db.clone(),
        }
    }
}

pub fn run(files: &Files, dir: &Path, yes: bool) -> Result<(), CliError> {
    let items = found(files, dir)?;
    for item in &items {
        check(item)?;
    }
    let has = |kind| items.iter().any(|i| i.kind == kind);
    let _restoring = match has(Kind::Keys) || has(Kind::Usage) {
        true => Some(unserved(&files.keys)?),
        false => None,
    };
    let _replacing = match has(Kind::Dataset) {
        true => Some(WriteLock::take(&files.db)?),
        false => None,
    };
    let undone = undone(&items)?;
    if !undone.is_empty() {
        eprintln!("restoring {} undoes:", dir.display());
        for line in &undone {
            eprintln!("  {line}");
        }
        if !yes {
            return Err(CliError::NotConfirmed);
        }
    }
    for item in &items {
        // A dataset the live one already equals is left alone, so that no
        // kept dataset is pushed out for a copy of itself.
        if item.kind == Kind::Dataset && same_dataset(&item.backup, &item.live) {
            eprintln!(
                "{} is the backup's dataset already; left as it is",
                item.live.display()
            );
            continue;
        }
        place(item)?;
        eprintln!(
            "restored {} from {}",
            item.live.display(),
            item.backup.display()
        );
    }
    Ok(())
}

/// Whether two datasets are one: the same identity, when both record one
/// (a dataset is never written in place, and a backup's copy of it differs
/// from it in SQLite's header), else the same bytes.
fn same_dataset(a: &Path, b: &Path) -> bool {
    let identity = |p: &Path| {
        restore_undo::open_as_is(p)
            .ok()
            .map(|c| crate::data::identity::read(&c))
            .filter(|i| i.made_at.is_some())
    };
    match (identity(a), identity(b)) {
        (Some(x), Some(y)) => x == y,
        (None, None) => same_bytes(a, b),
        _ => false,
    }
}

/// Whether two files hold the same bytes (false when either cannot be read).
fn same_bytes(a: &Path, b: &Path) -> bool {
    use std::io::Read;
    let (Ok(ma), Ok(mb)) = (fs::metadata(a), fs::metadata(b)) else {
        return false;
    };
    if ma.len() != mb.len() {
        return false;
    }
    let (Ok(mut fa), Ok(mut fb)) = (File::open(a), File::open(b)) else {
        return false;
    };
    let (mut ba, mut bb) = (vec![0; 64 * 1024], vec![0; 64 * 1024]);
    // Each buffer filled to the end or to the file's end, as reads may be short.
    let fill = |f: &mut File, buf: &mut [u8]| -> std::io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            match f.read(&mut buf[n..])? {
                0 => break,
                got => n += got,
            }
        }
        Ok(n)
    };
    loop {
        let (Ok(na), Ok(nb)) = (fill(&mut fa, &mut ba), fill(&mut fb, &mut bb)) else {
            return false;
        };
        if na != nb || ba[..na] != bb[..nb] {
            return false;
        }
        if na == 0 {
            return true;
        }
    }
}

/// The files of DIR to restore, each under its live file's name. With
/// Redis, the keys and usage are there, and only the dataset is restored.
fn found(files: &Files, dir: &Path) -> Result<Vec<Item>, CliError> {
    if !dir.is_dir() {
        return Err(CliError::NotAFolder(dir.to_path_buf()));
    }
    let mut items = Vec::new();
    for kind in Kind::ALL {
        let live = kind.live(files);
        let Some(name) = live.file_name() else {
            return Err(CliError::NoFileName(live));
        };
        let backup = dir.join(name);
        if !backup.is_file() {
            continue;
        }
        match (&files.redis, kind) {
            (Some(url), Kind::Keys | Kind::Usage) => eprintln!(
                "area-scoring: {} is not restored: keys and usage are in Redis at {url}. \
                 Restore Redis from its own persistence; if Redis was lost, move the backup's \
                 keys into it with area-scoring keys migrate --redis (docs/deployment.md)",
                backup.display()
            ),
            _ => items.push(Item { kind, backup, live }),
        }
    }
    if items.is_empty() {
        let names: Vec<String> = Kind::ALL
            .iter()
            .filter_map(|k| Some(k.live(files).file_name()?.to_string_lossy().into_owned()))
            .collect();
        return Err(CliError::NothingToRestore {
            dir: dir.to_path_buf(),
            names,
        });
    }
    Ok(items)
}

/// Refuses a copy that is not SQLite, not the kind its name says, of a
/// schema this build cannot read, or damaged.
fn check(item: &Item) -> Result<(), CliError> {
    let refused = |why| CliError::BadBackup {
        path: item.backup.clone(),
        why,
    };
    let conn = open_as_is(&item.backup).map_err(|e| refused(BadBackup::Unopened(Box::new(e))))?;
    let (id, version) = db::read_versions(&conn).map_err(|e| refused(BadBackup::NotSqlite(e)))?;
    if id != item.kind.application_id() {
        let is = Kind::ALL
            .iter()
            .find(|k| k.application_id() == id)
            .map_or("another SQLite file", |k| k.named());
        return Err(refused(BadBackup::OtherKind {
            is,
            expected: item.kind.named(),
        }));
    }
    if item.kind == Kind::Dataset && version < *READABLE_VERSIONS.start() {
        return Err(refused(BadBackup::OlderDataset {
            version,
            path: item.backup.clone(),
        }));
    }
    if let Some(versions) = item.kind.versions()
        && !versions.contains(&version)
    {
        return Err(refused(BadBackup::Version {
            kind: item.kind.named(),
            version,
        }));
    }
    let verdict: String = conn
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .map_err(|e| refused(BadBackup::Unchecked(e)))?;
    match verdict.as_str() {
        "ok" => Ok(()),
        _ => Err(refused(BadBackup::Damaged(verdict))),
    }
}

/// The keys file's exclusive serving lock, or which servers to stop.
fn unserved(keys: &Path) -> Result<Restoring, CliError> {
    match Restoring::take(keys) {
        Ok(restoring) => Ok(restoring),
        Err(Refused::Unlockable(why)) => Err(why.into()),
        Err(Refused::Held(holders)) => Err(CliError::Served {
            keys: keys.to_path_buf(),
            holders,
        }),
    }
}

/// Every line of what the restore undoes.
fn undone(items: &[Item]) -> Result<Vec<String>, CliError> {
    let mut lines = Vec::new();
    for item in items {
        match item.kind {
            Kind::Keys => lines.extend(restore_undo::keys(&item.backup, &item.live)?),
            Kind::Usage => lines.extend(restore_undo::usage(&item.backup, &item.live)?),
            Kind::Dataset => {}
        }
    }
    Ok(lines)
}

/// Copies the backup beside the live file, then renames it into place.
fn place(item: &Item) -> Result<(), CliError> {
    let partial = beside(&item.live, ".restore-partial");
    let _ = fs::remove_file(&partial);
    let placed = copy(&item.backup, &partial, &item.live).and_then(|()| swap_in(item, &partial));
    if placed.is_err() {
        let _ = fs::remove_file(&partial);
    }
    placed
}

/// Renames the complete copy over the live file once its journals are gone,
/// keeping a replaced dataset for `rollback`, as an import does.
fn swap_in(item: &Item, partial: &Path) -> Result<(), CliError> {
    if item.kind == Kind::Dataset && item.live.is_file() {
        previous::keep_previous(&item.live)?;
        eprintln!(
            "the replaced dataset is kept as {}; area-scoring rollback puts it back",
            previous::previous_path(&item.live).display()
        );
    }
    for journal in JOURNALS {
        let path = beside(&item.live, journal);
        match fs::remove_file(&path) {
            Ok(()) => eprintln!("removed {}", path.display()),
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(cannot("remove", &path)(e).into()),
        }
    }
    fs::rename(partial, &item.live).map_err(|source| CliError::NotInPlace {
        path: partial.to_path_buf(),
        source,
    })?;
    let folder = item.live.parent().filter(|d| !d.as_os_str().is_empty());
    File::open(folder.unwrap_or(Path::new(".")))
        .and_then(|d| d.sync_all())
        .map_err(|source| CliError::FolderNotSynced {
            path: item.live.clone(),
            source,
        })
}

/// Writes `from`'s bytes into the new file `to`, made with the mode, owner
/// and group of `live` (or `from`'s mode when there is no live file).
fn copy(from: &Path, to: &Path, live: &Path) -> Result<(), CliError> {
    let fail = cannot("write", to);
    let mode = fs::metadata(from).map_err(&fail)?.permissions().mode() & 0o777;
    match live.exists() {
        true => file_swap::create_like(to, live)?,
        false => drop(
            OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(mode)
                .open(to)
                .map_err(&fail)?,
        ),
    }
    let mut out = OpenOptions::new().write(true).open(to).map_err(&fail)?;
    let mut source = File::open(from).map_err(cannot("read", from))?;
    std::io::copy(&mut source, &mut out).map_err(&fail)?;
    out.sync_all().map_err(&fail)?;
    match live.exists() {
        true => Ok(file_swap::finish_like(to, live)?),
        false => Ok(fs::set_permissions(to, fs::Permissions::from_mode(mode)).map_err(&fail)?),
    }
}

fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}
