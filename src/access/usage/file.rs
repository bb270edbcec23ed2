//! The usage file itself: where it lies beside the keys file, its tables,
//! and opening it for writing (private, WAL) (mod.rs owns what goes in).
//!
//! Requests are counted per key and UTC hour (`usage_hours`), so that a
//! report may cut days in another zone. `usage` holds what builds that
//! counted per UTC day wrote, kept as it was and read beside the hours: a
//! server of such a build may still be adding to it while the others are
//! upgraded. Its `errors` did not tell the client's from the server's, and
//! are read as client errors (docs/operations.md, "Keys").

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::access::AccessError;
use crate::access::key_file::{create_private, keep_private};
use crate::file_error::cannot;

/// Marks a file as a usage file (PRAGMA application_id, "USGE").
pub const USAGE_APPLICATION_ID: i64 = 0x5553_4745;

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS usage (
        key_id       TEXT    NOT NULL,
        day          TEXT    NOT NULL,
        ok           INTEGER NOT NULL DEFAULT 0,
        errors       INTEGER NOT NULL DEFAULT 0,
        rate_limited INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (key_id, day)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS usage_hours (
        key_id        TEXT    NOT NULL,
        hour          TEXT    NOT NULL,
        ok            INTEGER NOT NULL DEFAULT 0,
        client_errors INTEGER NOT NULL DEFAULT 0,
        rate_limited  INTEGER NOT NULL DEFAULT 0,
        server_errors INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (key_id, hour)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS last_used (
        key_id TEXT PRIMARY KEY,
        at     TEXT NOT NULL
    ) WITHOUT ROWID;";

/// The usage file beside a keys file: `keys.db` has `keys-usage.db`.
pub fn usage_path(keys: &Path) -> PathBuf {
    let stem = keys.file_stem().unwrap_or_default().to_string_lossy();
    let name = match keys.extension() {
        Some(ext) => format!("{stem}-usage.{}", ext.to_string_lossy()),
        None => format!("{stem}-usage"),
    };
    keys.with_file_name(name)
}

/// Opens the usage file for writing, creating it (mode 0600) when missing;
/// waits up to `patience` for another writer.
pub fn open_file(path: &Path, patience: Duration) -> Result<Connection, AccessError> {
    create_private(path)?;
    if let Some(notice) = keep_private(path)? {
        log::warn!("{notice}");
    }
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .map_err(cannot("open", path))?;
    conn.busy_timeout(patience)?;
    let fail = cannot("write", path);
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(&fail)?;
    // One transaction, so that a reader sees both tables or neither.
    conn.execute_batch(&format!("BEGIN IMMEDIATE; {SCHEMA} COMMIT;"))
        .map_err(&fail)?;
    conn.pragma_update(None, "application_id", USAGE_APPLICATION_ID)
        .map_err(&fail)?;
    Ok(conn)
}
