//! The spools of the servers sharing a folder (access/redis/instance.rs),
//! each sent by one server only, so that none is added twice.
//!
//! Each server holds, for as long as it runs, an flock on a file beside its
//! spool (`….lock`; a lock on the spool itself would stay with the old file
//! when a new one is renamed in). Its spool, and the spools it takes, are
//! its alone while it holds that lock. Another server's spool is taken
//! only while that server does not run: under its lock, by a rename to a
//! name of the taker's (`…@TAKER.taken-…`), so that the owner may start
//! again at once and a taker that stops first leaves it to the next. A
//! taken spool goes once its batches are in Redis or in the taker's own
//! spool (written at shutdown). One that does not parse is moved aside and
//! said, and never stops a start.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::batch::Batch;
use super::instance::{Place, with_suffix, write_private};
use crate::access::AccessError;
use crate::access::key_file::PRIVATE_MODE;
use crate::file_error::cannot;

/// How long a start waits for its own lock, which a server taking its
/// spool holds while it renames it.
const OWN_LOCK_PATIENCE: Duration = Duration::from_secs(1);

/// An flock on a spool's lock file, released and the file removed on drop.
#[derive(Debug)]
pub struct SpoolLock {
    path: PathBuf,
    _file: File,
}

impl SpoolLock {
    /// The lock of `spool`, or None while another process holds it.
    pub fn try_take(spool: &Path) -> Result<Option<SpoolLock>, AccessError> {
        let path = with_suffix(spool, ".lock");
        let failed = cannot("lock", &path);
        loop {
            let file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .mode(PRIVATE_MODE)
                .open(&path)
                .map_err(&failed)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
                Err(std::fs::TryLockError::Error(e)) => return Err(failed(e).into()),
            }
            // Its last holder removes the file before letting go: a lock
            // taken on a file no longer at `path` is no lock, so open again.
            let held = file.metadata().map_err(&failed)?;
            if std::fs::metadata(&path)
                .is_ok_and(|m| (m.dev(), m.ino()) == (held.dev(), held.ino()))
            {
                return Ok(Some(SpoolLock { path, _file: file }));
            }
        }
    }
}

impl Drop for SpoolLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// What a look through the folder found.
#[derive(Debug, Default)]
pub struct Found {
    pub batches: Vec<Batch>,
    /// The spools read, by the names they were found under; now this
    /// server's until their batches are in Redis.
    pub files: Vec<PathBuf>,
    /// Spools that could not be used, each said as an error.
    pub errors: Vec<String>,
}

pub struct Spools {
    place: Place,
    own: Mutex<Option<SpoolLock>>,
    /// Spools whose batches wait in this server's queue.
    held: Mutex<Vec<PathBuf>>,
    /// Spools that could not be read nor moved aside, not tried again.
    left: Mutex<HashSet<PathBuf>>,
}

impl Spools {
    /// Takes this server's own lock; refused while another server of the
    /// same identity runs on this folder. A server taking this one's spool
    /// holds it for a moment, so that is waited for.
    pub fn open(place: Place) -> Result<Spools, AccessError> {
        let started = Instant::now();
        let own = loop {
            match SpoolLock::try_take(&place.spool())? {
                Some(own) => break own,
                None if started.elapsed() < OWN_LOCK_PATIENCE => {
                    std::thread::sleep(OWN_LOCK_PATIENCE / 20);
                }
                None => {
                    return Err(AccessError::InstanceRunning {
                        instance: place.instance().to_string(),
                        spool: place.spool(),
                    });
                }
            }
        };
        Ok(Spools {
            place,
            own: Mutex::new(Some(own)),
            held: Mutex::new(Vec::new()),
            left: Mutex::new(HashSet::new()),
        })
    }

    /// This server's own spool.
    pub fn path(&self) -> PathBuf {
        self.place.spool()
    }

    /// Reads every spool of the folder that no running server holds and
    /// this one has not read yet, and keeps it until `sent` or `write`.
    pub fn take_all(&self) -> Found {
        let mut held = lock(&self.held);
        let mut left = lock(&self.left);
        let mut found = Found::default();
        for path in self.place.spools() {
            if left.contains(&path) || held.contains(&path) {
                continue;
            }
            let mine = match self.take(&path) {
                Ok(Some(mine)) => mine,
                Ok(None) => continue,
                Err(why) => {
                    found.errors.push(why.to_string());
                    left.insert(path);
                    continue;
                }
            };
            let text = match std::fs::read_to_string(&mine) {
                Ok(text) => text,
                Err(e) => {
                    found
                        .errors
                        .push(format!("cannot read {}: {e}", mine.display()));
                    left.insert(mine);
                    continue;
                }
            };
            match serde_json::from_str::<Vec<Batch>>(&text) {
                Ok(batches) => {
                    found.batches.extend(batches);
                    found.files.push(path);
                    held.push(mine);
                }
                Err(e) => {
                    let why = format!("{} is not a usage spool: {e}", path.display());
                    found.errors.push(move_aside(&mine, &path, &why, &mut left));
                }
            }
        }
        found
    }

    /// `spool` as this server's: as it is when it is already, renamed to a
    /// name of this server's when its owner does not run, None when it does
    /// (or another server took it first).
    fn take(&self, spool: &Path) -> Result<Option<PathBuf>, AccessError> {
        let owner = Place::owner(spool);
        if owner == self.place.spool() {
            return Ok(Some(spool.to_path_buf()));
        }
        let Some(_owners) = SpoolLock::try_take(&owner)? else {
            return Ok(None);
        };
        let mine = self.place.taken()?;
        match std::fs::rename(spool, &mine) {
            Ok(()) => Ok(Some(mine)),
            // Taken and sent by another server since the folder was read.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(cannot("take", spool)(e).into()),
        }
    }

    /// The batches of every spool held are in Redis: the spools go.
    pub fn sent(&self) {
        for path in lock(&self.held).drain(..) {
            let _ = std::fs::remove_file(path);
        }
    }

    /// Writes `batches` (every one Redis did not take, those of the spools
    /// held included) to this server's own spool; the others held go.
    pub fn write(&self, batches: &[&Batch]) -> Result<(), AccessError> {
        let json = serde_json::to_string(batches)?;
        let own = self.place.spool();
        write_private(&own, json.as_bytes())?;
        for path in lock(&self.held).drain(..) {
            if path != own {
                let _ = std::fs::remove_file(path);
            }
        }
        Ok(())
    }

    /// At shutdown, once nothing more is written: this server's spool is
    /// free for the next start, of whichever server.
    pub fn release(&self) {
        lock(&self.held).clear();
        lock(&self.own).take();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Renames a spool that does not parse, read as `mine` and found as
/// `found`, to `FOUND.bad-UNIXTIME`, which no server reads, and says what
/// became of it.
fn move_aside(mine: &Path, found: &Path, why: &str, left: &mut HashSet<PathBuf>) -> String {
    let bad = with_suffix(found, &format!(".bad-{}", crate::dates::now_unix()));
    match std::fs::rename(mine, &bad) {
        Ok(()) => format!(
            "{why}; moved aside to {}, its usage not added",
            bad.display()
        ),
        Err(e) => {
            left.insert(mine.to_path_buf());
            format!("{why}; not moved aside ({e}), left as {}", mine.display())
        }
    }
}

#[cfg(test)]
#[path = "spools_tests.rs"]
mod tests;
