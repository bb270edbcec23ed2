//! Why a command failed: the failures of the subsystems it ran, and those
//! of the commands' own (backup, restore, the keys file's whereabouts), each
//! with the message `main` prints.

use std::path::PathBuf;

use crate::access::AccessError;
use crate::access::redis::RedisError;
use crate::access::serving_lock::Holder;
use crate::data::error::DataError;
use crate::data::import::ImportError;
use crate::file_error::FileError;
use crate::server::ServeError;

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Data(#[from] DataError),
    #[error(transparent)]
    Import(#[from] ImportError),
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Redis(#[from] RedisError),
    #[error(transparent)]
    Serve(#[from] ServeError),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Logger(#[from] log::SetLoggerError),
    #[error(transparent)]
    File(#[from] FileError),
    /// Standard output refused what was printed.
    #[error("cannot write {what}: {source}")]
    Write {
        what: &'static str,
        source: std::io::Error,
    },
    #[error("cannot write {what}: {source}")]
    WriteCsv {
        what: &'static str,
        source: csv::Error,
    },
    #[error("{} names no file", .0.display())]
    NoFileName(PathBuf),
    #[error("two of the files to back up are named {0}; copy them one by one")]
    SameName(String),
    /// A backup never replaces another, which may be the only copy of a
    /// state worth going back to.
    #[error("{} already holds a backup ({name}); nothing was copied: back up into a new folder, such as one named for the time", .dir.display())]
    BackupThere { dir: PathBuf, name: String },
    #[error("{} is not a folder: name a folder for the backup", .0.display())]
    NoBackupFolder(PathBuf),
    #[error("{} is not a folder", .0.display())]
    NotAFolder(PathBuf),
    #[error("{} holds nothing to restore (none of {})", .dir.display(), .names.join(", "))]
    NothingToRestore { dir: PathBuf, names: Vec<String> },
    #[error("nothing was restored; run it again with --yes to restore anyway")]
    NotConfirmed,
    #[error("{} {why}; nothing was restored", .path.display())]
    BadBackup { path: PathBuf, why: BadBackup },
    /// Servers hold the keys file's serving lock: these, when known.
    #[error("{}", served(.keys, .holders))]
    Served { keys: PathBuf, holders: Vec<Holder> },
    #[error("cannot rename {} into place: {source}", .path.display())]
    NotInPlace {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot sync the folder of {}: {source}", .path.display())]
    FolderNotSynced {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read the keys of {}: {source}", .path.display())]
    KeysUnread {
        path: PathBuf,
        source: Box<CliError>,
    },
    #[error("cannot read the usage in {}: {source}", .path.display())]
    UsageUnread {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("--new-keys-file makes the keys file beside a dataset, and there is none at {db}")]
    NoDatasetBeside { db: String },
    /// `makes`: whether the command takes `--new-keys-file`.
    #[error("no keys file at {keys}, beside the dataset {db}: name the keys file the servers read with --keys PATH or AREA_KEYS, or {}", if *.makes { "add --new-keys-file to create this one" } else { "create this one with keys create --new-keys-file" })]
    NoKeysFileBeside {
        keys: String,
        db: String,
        makes: bool,
    },
    #[error("{failed} of {files} files could not be merged")]
    NotMerged { failed: usize, files: usize },
    #[error(
        "with Redis, keys migrate copies the keys file (--keys FILE) alone: merge other files into it first, without --redis"
    )]
    MigrateWithRedis,
}

/// Why a backup's copy is not restored.
#[derive(Debug, thiserror::Error)]
pub enum BadBackup {
    #[error("{0}")]
    Unopened(Box<CliError>),
    #[error("is not an SQLite database ({0})")]
    NotSqlite(rusqlite::Error),
    #[error("is {is}, not {expected}")]
    OtherKind {
        is: &'static str,
        expected: &'static str,
    },
    #[error("is {kind} of schema version {version}, which this build does not read")]
    Version { kind: &'static str, version: i64 },
    /// A dataset of an older layout: `upgrade` rewrites the backup's copy.
    #[error("is a dataset of schema version {version}, older than this build reads ({}); bring the backup's copy up to date first with: area-scoring upgrade {}, then restore again", crate::data::db::SCHEMA_VERSION, .path.display())]
    OlderDataset { version: i64, path: PathBuf },
    #[error("cannot be checked ({0})")]
    Unchecked(rusqlite::Error),
    #[error("fails SQLite's quick_check: {0}")]
    Damaged(String),
}

fn served(keys: &std::path::Path, holders: &[Holder]) -> String {
    let mut said = format!(
        "a server is using {}, and would go on counting usage into the file the restore \
         replaces; nothing was restored",
        keys.display()
    );
    if holders.is_empty() {
        said.push_str("\nstop every server using that keys file first");
    }
    for h in holders {
        let what = match &h.unit {
            Some(unit) if unit.starts_with("area-scoring") => format!("{unit} (pid {})", h.pid),
            _ => format!("the server with pid {}", h.pid),
        };
        said.push_str(&format!("\nstop {what} first: {}", h.command));
    }
    said
}
