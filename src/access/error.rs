//! Every way a command or the server can fail with the keys file, the
//! usage file and their locks, each with the message the command line
//! prints or the server logs.

use std::path::PathBuf;

use crate::access::key_file::KEYS_SCHEMA_VERSION;
use crate::access::plans::{REQUESTS_PER_MINUTE, UNLIMITED};
use crate::access::redis::RedisError;
use crate::access::redis::instance::{INSTANCE_VARIABLE, MAX_INSTANCE_CHARS};
use crate::file_error::FileError;

#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    #[error("no key has the id '{0}' (see: area-scoring keys list)")]
    UnknownKey(String),
    /// A revoked key answers no request again, so a new plan or label
    /// would say what is not so.
    #[error(
        "{id} was revoked at {at} and keeps the plan and label it had; for a client's new access, make a new key with: area-scoring keys create"
    )]
    Revoked { id: String, at: String },
    #[error(
        "a label may not hold control characters or invisible formatting characters (this one holds {0:?})"
    )]
    Label(char),
    #[error("--rpm must be a number from {} to {}, or {UNLIMITED}, not '{}'", REQUESTS_PER_MINUTE.start(), REQUESTS_PER_MINUTE.end(), .0)]
    Rpm(String),
    #[error("--tz must be an IANA time zone name such as Africa/Johannesburg, not '{0}'")]
    Zone(String),
    /// A zone whose offset on `day`, in seconds east of UTC, is no whole
    /// number of hours: its days would split hours.
    #[error("--tz {zone} is UTC{}{:02}:{:02} on {day}: usage is counted per UTC hour, so days can be cut only in a zone a whole number of hours from UTC", if *.offset < 0 { '-' } else { '+' }, .offset.abs() / 3600, .offset.abs() / 60 % 60)]
    SplitHours {
        zone: String,
        offset: i64,
        day: String,
    },
    #[error("there is no keys file at {}: create a key with area-scoring keys create, or point --keys (or AREA_KEYS) at the keys file", .0.display())]
    NoKeysFile(PathBuf),
    #[error("{} is a keys file of schema version {version}; this build reads version {KEYS_SCHEMA_VERSION}", .path.display())]
    KeysSchema { path: PathBuf, version: i64 },
    #[error("{} is not an area-scoring keys file (is --keys pointing at a dataset?)", .0.display())]
    NotKeysFile(PathBuf),
    #[error("{} is readable by anyone (mode {mode:o}) and cannot be made private: {source}", .path.display())]
    NotPrivate {
        path: PathBuf,
        mode: u32,
        source: std::io::Error,
    },
    #[error("{} does not exist", .0.display())]
    Missing(PathBuf),
    #[error("the path is not valid UTF-8")]
    NotUtf8,
    #[error("cannot read {} to move its API keys out: {source}", .path.display())]
    KeysNotMoved {
        path: PathBuf,
        source: rusqlite::Error,
    },
    /// The counts wait on in memory for the next flush.
    #[error("usage of {requests} requests not written to {}: {source}", .path.display())]
    UsageNotWritten {
        requests: u64,
        path: PathBuf,
        source: Box<AccessError>,
    },
    #[error("there is no keys file at {}", .0.display())]
    NoKeysFileAt(PathBuf),
    #[error("{} names no file", .0.display())]
    NoFileName(PathBuf),
    #[error(
        "{INSTANCE_VARIABLE} (or the address naming this server) is longer than {MAX_INSTANCE_CHARS} characters: {0}"
    )]
    InstanceTooLong(String),
    /// Another server of the same identity holds the spool's lock.
    #[error("another server named {instance} is running beside these files (it holds {}.lock): give each server sharing the folder its own {INSTANCE_VARIABLE}", .spool.display())]
    InstanceRunning { instance: String, spool: PathBuf },
    /// Redis could not give the keys, and no snapshot of them could stand in.
    #[error("{why}; Redis is not reachable and there is no snapshot of its keys at {}{unusable}: start this server once while Redis is up", .snapshot.display())]
    NoSnapshot {
        why: Box<AccessError>,
        snapshot: PathBuf,
        unusable: String,
    },
    #[error("usage of {requests} requests not added to Redis: {source}")]
    UsageNotSent {
        requests: u64,
        source: Box<AccessError>,
    },
    #[error("no randomness from the system: {0}")]
    NoRandomness(#[source] getrandom::Error),
    #[error(transparent)]
    File(#[from] FileError),
    #[error("cannot {doing}: {source}")]
    Failed {
        doing: &'static str,
        source: rusqlite::Error,
    },
    #[error(transparent)]
    Sql(#[from] rusqlite::Error),
    #[error(transparent)]
    Redis(#[from] RedisError),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl AccessError {
    pub fn failed(doing: &'static str) -> impl Fn(rusqlite::Error) -> AccessError + Copy {
        move |source| AccessError::Failed { doing, source }
    }
}
