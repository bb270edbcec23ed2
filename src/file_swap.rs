//! Replacing the database file without losing a key change.
//!
//! `init --force` and `import` write a new file beside the old one, copy the
//! old file's API keys into it and rename it over the old path. A `keys create`
//! or `keys revoke` that commits to the old file after the copy and before the
//! rename is silently dropped with the old file: a key the operator was shown
//! that never works, or a revocation they were told took effect. (One that
//! writes after the rename fails instead: SQLite refuses to write to a file
//! that was renamed over, SQLITE_READONLY_DBMOVED.) Both sides therefore go
//! through the old file's SQLite write lock:
//!
//! - the replacer takes the lock (`ReplaceLock`), copies the keys, renames the
//!   new file into place and only then lets go, so a key change either
//!   committed before the copy or waits for the rename;
//! - a key change (`change_keys`) takes the lock, then checks that the path
//!   still names the file it opened; if a rename came in between it starts
//!   again on the new file rather than failing.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};

use crate::db;

/// How long either side waits for the other's lock. A key change holds it for
/// milliseconds; a replacer for one copy of the keys table and a rename.
const LOCK_WAIT: Duration = Duration::from_secs(10);
/// A key change that finds the file replaced this many times running gives up.
const ATTEMPTS: usize = 5;

/// Which file a path names: a rename over it gives a new inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

pub fn file_id(path: &Path) -> Option<FileId> {
    std::fs::metadata(path).ok().map(|m| FileId {
        dev: m.dev(),
        ino: m.ino(),
    })
}

/// Runs `change` in one write transaction on the file `path` names when the
/// transaction commits, so that no replacement of the file can drop it.
pub fn change_keys<T>(
    path: &Path,
    change: impl Fn(&Connection) -> Result<T, String>,
) -> Result<T, String> {
    for _ in 0..ATTEMPTS {
        let before = file_id(path);
        let conn = db::open_writable(path)?;
        conn.busy_timeout(LOCK_WAIT).map_err(|e| e.to_string())?;
        conn.execute_batch("BEGIN IMMEDIATE")
            .map_err(|e| format!("cannot write to {}: {e}", path.display()))?;
        // The lock is ours now, so no rename can come until we commit. If one
        // came since `before`, this connection holds the replaced file.
        if file_id(path) != before {
            continue;
        }
        let outcome = change(&conn);
        let end = if outcome.is_ok() {
            "COMMIT"
        } else {
            "ROLLBACK"
        };
        conn.execute_batch(end)
            .map_err(|e| format!("cannot write to {}: {e}", path.display()))?;
        return outcome;
    }
    Err(format!(
        "{} was replaced {ATTEMPTS} times while this command tried to write to it; nothing was written, try again",
        path.display()
    ))
}

/// The write lock of a file being replaced, held from the copy of its keys
/// until the new file is renamed over it. Dropping it lets go.
pub struct ReplaceLock(Connection);

impl ReplaceLock {
    /// Waits (up to `LOCK_WAIT`) for a key change in progress to finish, saying
    /// so on stderr, as init and import run without the server's logger.
    pub fn take(path: &Path) -> Result<ReplaceLock, String> {
        let fail = |e: rusqlite::Error| {
            format!(
                "cannot lock {} to replace it, so it is left as it was: {e}",
                path.display()
            )
        };
        let conn =
            Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE).map_err(fail)?;
        // rusqlite waits 5 s by default; the first try should not wait at all.
        conn.busy_timeout(Duration::ZERO).map_err(fail)?;
        match conn.execute_batch("BEGIN IMMEDIATE") {
            Ok(()) => return Ok(ReplaceLock(conn)),
            Err(e) if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy) => {}
            Err(e) => return Err(fail(e)),
        }
        eprintln!(
            "area-scoring: waiting for a key change on {} to finish",
            path.display()
        );
        conn.busy_timeout(LOCK_WAIT).map_err(fail)?;
        conn.execute_batch("BEGIN IMMEDIATE").map_err(fail)?;
        Ok(ReplaceLock(conn))
    }
}

impl Drop for ReplaceLock {
    fn drop(&mut self) {
        // Nothing was written through this connection: ending the transaction
        // only releases the lock (closing the connection would too).
        let _ = self.0.execute_batch("ROLLBACK");
    }
}
