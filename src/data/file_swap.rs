//! One replacement of the database file at a time.
//!
//! `init --force` and `import` write a new file beside the old one and rename
//! it over the old path. Every command that replaces the file first takes
//! `WriteLock`, an exclusive flock on `<db>.lock`, a file beside the database
//! that is never renamed, so that two replacements run one after the other
//! and never interleave their renames. The lock file holds nothing.
//!
//! The new file takes the mode, owner and group of the one it replaces
//! (`create_like`), from its first byte: a dataset kept at 0600 is never
//! readable by others, not even while its replacement is built.

use crate::data::error::DataError;
use crate::file_error::cannot;
use std::fs::{File, Metadata, OpenOptions, Permissions, TryLockError};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The permission bits a new file takes from the one it replaces.
const PERMISSION_BITS: u32 = 0o777;
/// Added while the file is built, which needs its owner to write it; taken
/// off again before the rename (`finish_like`). Never opens it to anyone else.
const OWNER_WRITES: u32 = 0o600;

/// Creates the empty file `new` that is to replace `old`, with `old`'s
/// mode, owner and group, before anything is written into it. Without an
/// `old`, nothing is created: SQLite makes the file as for any new one.
/// When the running user may not give it `old`'s owner or group, says so,
/// and `new` is left for the caller to remove.
pub fn create_like(new: &Path, old: &Path) -> Result<(), DataError> {
    let Ok(like) = std::fs::metadata(old) else {
        return Ok(());
    };
    let mode = like.mode() & PERMISSION_BITS;
    // The umask may only narrow this mode; `take_after` then sets it exactly.
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(new)
        .map_err(cannot("create", new))?;
    take_after(&file, new, old, &like, mode | OWNER_WRITES)
}

/// Gives the complete file `new` exactly the mode, owner and group `old`
/// has now, just before it is renamed over `old`.
pub fn finish_like(new: &Path, old: &Path) -> Result<(), DataError> {
    let Ok(like) = std::fs::metadata(old) else {
        return Ok(());
    };
    let file = File::open(new).map_err(cannot("open", new))?;
    take_after(&file, new, old, &like, like.mode() & PERMISSION_BITS)
}

/// Owner and group first: changing them clears the set-id bits of a mode.
fn take_after(
    file: &File,
    new: &Path,
    old: &Path,
    like: &Metadata,
    mode: u32,
) -> Result<(), DataError> {
    let made = file.metadata().map_err(cannot("read", new))?;
    let uid = (made.uid() != like.uid()).then_some(like.uid());
    let gid = (made.gid() != like.gid()).then_some(like.gid());
    if uid.is_some() || gid.is_some() {
        std::os::unix::fs::fchown(file, uid, gid).map_err(|source| DataError::Owner {
            old: old.to_path_buf(),
            uid: like.uid(),
            gid: like.gid(),
            source,
        })?;
    }
    Ok(file
        .set_permissions(Permissions::from_mode(mode))
        .map_err(cannot("set the mode of", new))?)
}

/// The exclusive flock on `<db>.lock`, held while a command replaces the
/// database; released when dropped (the flock ends when the file closes).
pub struct WriteLock {
    _flocked: File,
}

impl WriteLock {
    /// Waits for another command replacing the database to finish, saying so on
    /// stderr, as the command line runs without the server's logger.
    pub fn take(db: &Path) -> Result<WriteLock, DataError> {
        let path = lock_path(db);
        let fail = |e: std::io::Error| cannot("lock", &path)(e);
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
            Err(TryLockError::Error(e)) => return Err(fail(e).into()),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("file-swap-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().mode() & PERMISSION_BITS
    }

    #[test]
    fn the_new_file_has_the_replaced_ones_mode_before_its_first_byte() {
        let dir = scratch("mode");
        let (old, new) = (dir.join("areas.db"), dir.join("areas.db.new-1"));
        for kept in [0o600, 0o640, 0o664, 0o400] {
            std::fs::write(&old, b"old").unwrap();
            std::fs::set_permissions(&old, Permissions::from_mode(kept)).unwrap();
            create_like(&new, &old).unwrap();
            assert_eq!(std::fs::metadata(&new).unwrap().len(), 0, "still empty");
            assert_eq!(mode(&new), kept | OWNER_WRITES, "{kept:o} while built");
            finish_like(&new, &old).unwrap();
            assert_eq!(mode(&new), kept, "{kept:o} when complete");
            std::fs::remove_file(&new).unwrap();
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn without_a_file_to_replace_nothing_is_made() {
        let dir = scratch("none");
        let new = dir.join("areas.db.new-1");
        create_like(&new, &dir.join("areas.db")).unwrap();
        assert!(!new.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
