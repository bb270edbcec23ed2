//! Replacing the database file without losing a key change.
//!
//! `init --force` and `import` write a new file beside the old one, copy the
//! old file's API keys into it and rename it over the old path. A `keys create`
//! or `keys revoke` that commits to the old file after the copy and before the
//! rename is silently dropped with the old file: a key the operator was shown
//! that never works, or a revocation they were told took effect. And SQLite
//! names a file's rollback journal after its path, so a command still holding
//! the renamed-over file could take the new file's journal for its own.
//!
//! So every command that writes the database first takes `WriteLock`, an
//! exclusive flock on `<db>.lock`, a file beside the database that is never
//! renamed: a key change opens the database only once it holds it, so it
//! always writes to the file the path names, and two replacements run one
//! after the other, the second copying the first one's keys.
//!
//! A replacement also holds the old file's own SQLite write lock
//! (`ReplaceLock`) from the copy of its keys until the rename, for writers
//! that do not know of `<db>.lock` (an operator's `sqlite3` editing the plans
//! table): their change either commits before the copy, or waits and then
//! fails (SQLite refuses to write to a file renamed over), never lost. Its
//! read-write connection also rolls back a journal a crashed writer left,
//! which a read-only connection cannot, before the versions are read.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};

/// How long a replacement waits for a write outside our commands to end.
const SQLITE_WAIT: Duration = Duration::from_secs(10);

/// The exclusive flock on `<db>.lock`, held while a command writes the
/// database; released when dropped (the flock ends when the file closes).
pub struct WriteLock {
    _flocked: File,
}

impl WriteLock {
    /// Waits for another command writing the database to finish, saying so on
    /// stderr, as the command line runs without the server's logger.
    pub fn take(db: &Path) -> Result<WriteLock, String> {
        let path = lock_path(db);
        let fail = |e: std::io::Error| format!("cannot lock {}: {e}", path.display());
        // Read-only is enough to flock: the file may belong to another user.
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .or_else(|_| File::open(&path))
            .map_err(fail)?;
        match file.try_lock() {
            Ok(()) => return Ok(WriteLock { _flocked: file }),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) => return Err(fail(e)),
        }
        eprintln!(
            "area-scoring: waiting for another command writing {} to finish",
            db.display()
        );
        file.lock().map_err(fail)?;
        Ok(WriteLock { _flocked: file })
    }
}

fn lock_path(db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    db.with_file_name(name)
}

/// The SQLite write lock of a file being replaced, held from the copy of its
/// keys until the new file is renamed over it. Dropping it lets go.
pub struct ReplaceLock(Connection);

impl ReplaceLock {
    /// Locks the SQLite file at `path`; None when it is not an SQLite file at
    /// all (it has no keys to keep). Waits up to `SQLITE_WAIT` for a writer
    /// outside our commands, saying so on stderr.
    pub fn take(path: &Path) -> Result<Option<ReplaceLock>, String> {
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
            Ok(()) => return Ok(Some(ReplaceLock(conn))),
            Err(e) if e.sqlite_error_code() == Some(ErrorCode::NotADatabase) => return Ok(None),
            Err(e) if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy) => {}
            Err(e) => return Err(fail(e)),
        }
        eprintln!(
            "area-scoring: waiting for a write to {} to finish",
            path.display()
        );
        conn.busy_timeout(SQLITE_WAIT).map_err(fail)?;
        conn.execute_batch("BEGIN IMMEDIATE").map_err(fail)?;
        Ok(Some(ReplaceLock(conn)))
    }

    /// The file's (application_id, user_version), read under the lock.
    pub fn versions(&self) -> Result<(i64, i64), String> {
        crate::data::db::read_versions(&self.0)
            .map_err(|e| format!("cannot read the database being replaced: {e}"))
    }
}

impl Drop for ReplaceLock {
    fn drop(&mut self) {
        // Nothing was written through this connection: ending the transaction
        // only releases the lock (closing the connection would too).
        let _ = self.0.execute_batch("ROLLBACK");
    }
}

/// Runs `change` in one write transaction on the database at `path`, holding
/// `WriteLock`, so that no replacement of the file can drop it.
pub fn change_keys<T>(
    path: &Path,
    change: impl FnOnce(&Connection) -> Result<T, String>,
) -> Result<T, String> {
    let _writers = WriteLock::take(path)?;
    let conn = crate::data::db::open_writable(path)?;
    let fail = |e: rusqlite::Error| format!("cannot write to {}: {e}", path.display());
    conn.execute_batch("BEGIN IMMEDIATE").map_err(fail)?;
    let outcome = change(&conn);
    let end = if outcome.is_ok() {
        "COMMIT"
    } else {
        "ROLLBACK"
    };
    conn.execute_batch(end).map_err(fail)?;
    outcome
}
