//! One replacement of the database file at a time.
//!
//! `init --force` and `import` write a new file beside the old one and rename
//! it over the old path. Every command that replaces the file first takes
//! `WriteLock`, an exclusive flock on `<db>.lock`, a file beside the database
//! that is never renamed, so that two replacements run one after the other
//! and never interleave their renames. The lock file holds nothing.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// The exclusive flock on `<db>.lock`, held while a command replaces the
/// database; released when dropped (the flock ends when the file closes).
pub struct WriteLock {
    _flocked: File,
}

impl WriteLock {
    /// Waits for another command replacing the database to finish, saying so on
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
