//! Every way opening, building or replacing a database file can fail, each
//! with the message the command line prints.

use std::path::PathBuf;

use crate::data::db::SCHEMA_VERSION;
use crate::file_error::FileError;

#[derive(Debug, thiserror::Error)]
pub enum DataError {
    #[error("database {} does not exist; create it with: area-scoring init --db {}", .0.display(), .0.display())]
    Missing(PathBuf),
    /// Of a layout older than the server reads: `upgrade` rewrites it.
    #[error("{} has schema version {version}, this build reads version {SCHEMA_VERSION}; bring it up to date with: area-scoring upgrade {}", .path.display(), .path.display())]
    OlderLayout { path: PathBuf, version: i64 },
    /// Of a layout newer than this build's.
    #[error("{} has schema version {version}, this build reads version {SCHEMA_VERSION}; write it anew with area-scoring import --db {} FILE (or init --force for the seed data)", .path.display(), .path.display())]
    NewerLayout { path: PathBuf, version: i64 },
    #[error("{} is an SQLite file but not an area-scoring database", .0.display())]
    NotOurs(PathBuf),
    /// A journal that only a read-write open rolls back.
    #[error("{} has a journal left by a command that stopped mid-write, which only a read-write open rolls back: run area-scoring keys list --db {} (or start serve), then try again", .0.display(), .0.display())]
    HotJournal(PathBuf),
    #[error("{} is not a database: {source}", .path.display())]
    NotDatabase {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("{} already exists; pass --force to replace it", .0.display())]
    Exists(PathBuf),
    /// A layout-2 file: its keys go first (`keys migrate`).
    #[error("{} still holds API keys; move them out first with: area-scoring keys migrate {}", .0.display(), .0.display())]
    HoldsKeys(PathBuf),
    #[error("no previous dataset to roll back to: {} does not exist (import and init --force keep one)", .0.display())]
    NoPrevious(PathBuf),
    #[error("refusing to roll back to {}: {source}", .path.display())]
    RollbackRefused {
        path: PathBuf,
        source: Box<DataError>,
    },
    #[error("cannot move {} into place: {source}", .path.display())]
    NotInPlace {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot move the new database into place: {0}")]
    NewNotInPlace(#[source] std::io::Error),
    #[error("cannot write {} to disk: {source}", .path.display())]
    NotSynced {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot keep {} as {}, so it is left as it was: {source}", .db.display(), .previous.display())]
    NotKept {
        db: PathBuf,
        previous: PathBuf,
        source: std::io::Error,
    },
    /// The rollback is done; the kept datasets are not yet in their order.
    #[error(
        "{done}, but cannot keep the replaced dataset in line: {source}; the next import or rollback will"
    )]
    KeptOutOfLine {
        done: String,
        source: std::io::Error,
    },
    /// The running user may not give the new file the old one's owner.
    #[error("cannot give the new {old} the owner and group of the one it replaces (user {uid}, group {gid}): {source}. Run the command as that user (or as root), or change the owner of {old} first; {old} is unchanged", old = .old.display())]
    Owner {
        old: PathBuf,
        uid: u32,
        gid: u32,
        source: std::io::Error,
    },
    #[error("cannot read {}: its name is not UTF-8", .0.display())]
    NotUtf8(PathBuf),
    #[error("areas out of id order or repeated: '{id}' after '{last}'")]
    OutOfOrder { id: String, last: String },
    #[error("area '{id}': {source}")]
    Area { id: String, source: rusqlite::Error },
    #[error("the seed has no place in {0}")]
    NoSeedPlace(&'static str),
    #[error("two generated areas share the id '{0}'")]
    SharedId(String),
    #[error("area {0}'s history skips a day; import it anew instead")]
    HistoryGap(i64),
    #[error("unknown dimension '{0}'")]
    UnknownDimension(String),
    #[error("cannot read the old file: {0}")]
    OldFile(#[source] rusqlite::Error),
    #[error("schema.sql: {0}")]
    Schema(#[source] rusqlite::Error),
    #[error("reading the words panicked")]
    WordsPanicked,
    /// A line of the seed built into the binary.
    #[error("{file} line {line}: {why}")]
    Seed {
        file: &'static str,
        line: usize,
        why: String,
    },
    #[error(transparent)]
    File(#[from] FileError),
    #[error("cannot open {}: {source}", .path.display())]
    Pool { path: PathBuf, source: r2d2::Error },
    #[error("{}: {source}", .path.display())]
    Path {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Sql(#[from] rusqlite::Error),
    #[error(transparent)]
    Connection(#[from] r2d2::Error),
}
