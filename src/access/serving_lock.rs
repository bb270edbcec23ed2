//! Which servers use a keys file, so that `restore` never swaps the keys
//! and usage files under one.
//!
//! Every server without Redis holds, for as long as it runs, a shared flock
//! on `<keys>.serving`, a file beside the keys file that holds nothing and is
//! never renamed (a lock on the keys file itself would stay with the old file
//! once a restored one is renamed in). Replicas sharing a keys file all hold
//! it at once. `restore` takes it exclusively, without waiting: while any
//! server holds it, the restore is refused, naming each holder from
//! `/proc/locks` (its pid, its command line and its systemd unit). A server
//! starting during a restore waits for it to end. The cost is one open and
//! one flock at start.

use crate::access::AccessError;
use crate::file_error::cannot;
use std::fs::{File, OpenOptions, TryLockError};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The lock file's name after the keys file's.
const SUFFIX: &str = ".serving";
/// It holds nothing, and a user other than its maker (a server's, when root
/// restored first) must be able to open it to lock it.
const MODE: u32 = 0o644;

/// A server's shared lock; released when dropped.
#[derive(Debug)]
pub struct Serving {
    _file: File,
}

/// A restore's exclusive lock; released when dropped.
#[derive(Debug)]
pub struct Restoring {
    _file: File,
}

/// A process holding the lock, as `/proc` tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub pid: u32,
    /// Its command line, arguments apart by spaces ("" when unreadable).
    pub command: String,
    /// Its systemd service, when it runs in one.
    pub unit: Option<String>,
}

impl Serving {
    /// Takes the shared lock of `keys`, waiting for a restore to finish.
    pub fn hold(keys: &Path) -> Result<Serving, AccessError> {
        let path = lock_path(keys);
        let file = open(&path)?;
        let fail = cannot("lock", &path);
        match file.try_lock_shared() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                log::info!("waiting for a restore of {} to finish", keys.display());
                file.lock_shared().map_err(&fail)?;
            }
            Err(TryLockError::Error(e)) => return Err(fail(e).into()),
        }
        Ok(Serving { _file: file })
    }
}

impl Restoring {
    /// Takes the exclusive lock of `keys` now, or names the processes
    /// holding it.
    pub fn take(keys: &Path) -> Result<Restoring, Refused> {
        let path = lock_path(keys);
        let file = open(&path).map_err(Refused::Unlockable)?;
        match file.try_lock() {
            Ok(()) => Ok(Restoring { _file: file }),
            Err(TryLockError::WouldBlock) => Err(Refused::Held(holders(&file))),
            Err(TryLockError::Error(e)) => {
                Err(Refused::Unlockable(cannot("lock", &path)(e).into()))
            }
        }
    }
}

/// Why a restore may not go on.
#[derive(Debug)]
pub enum Refused {
    /// Servers hold the lock: these, when `/proc/locks` names them.
    Held(Vec<Holder>),
    /// The lock file could not be opened or locked.
    Unlockable(AccessError),
}

pub fn lock_path(keys: &Path) -> PathBuf {
    let mut name = keys.file_name().unwrap_or_default().to_os_string();
    name.push(SUFFIX);
    keys.with_file_name(name)
}

/// Opens the lock file, making it (and its folder) when missing; read-only
/// is enough to flock one that belongs to another user.
fn open(path: &Path) -> Result<File, AccessError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(cannot("create", dir))?;
    }
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(MODE)
        .open(path)
        .or_else(|_| File::open(path))
        .map_err(|e| cannot("open", path)(e).into())
}

/// The processes `/proc/locks` says hold a flock on `file`.
fn holders(file: &File) -> Vec<Holder> {
    let (Ok(meta), Ok(locks)) = (file.metadata(), std::fs::read_to_string("/proc/locks")) else {
        return Vec::new();
    };
    let device = format!(
        "{:02x}:{:02x}:{}",
        libc::major(meta.dev()),
        libc::minor(meta.dev()),
        meta.ino()
    );
    let mut pids: Vec<u32> = locks.lines().filter_map(|l| pid_on(l, &device)).collect();
    pids.sort_unstable();
    pids.dedup();
    pids.into_iter().map(holder).collect()
}

/// The pid of a `/proc/locks` line's flock on `device` (maj:min:inode).
/// A line reads `1: FLOCK  ADVISORY  READ  1234 08:01:5678 0 EOF`; a
/// waiting lock's line has `->` after its number.
fn pid_on(line: &str, device: &str) -> Option<u32> {
    let words: Vec<&str> = line.split_whitespace().filter(|w| *w != "->").collect();
    match words.as_slice() {
        [_, "FLOCK", _, _, pid, at, ..] if *at == device => pid.parse().ok(),
        _ => None,
    }
}

fn holder(pid: u32) -> Holder {
    let proc = PathBuf::from(format!("/proc/{pid}"));
    let command = std::fs::read(proc.join("cmdline"))
        .map(|b| {
            let args: Vec<String> = b
                .split(|&c| c == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect();
            args.join(" ")
        })
        .unwrap_or_default();
    let unit = std::fs::read_to_string(proc.join("cgroup"))
        .ok()
        .and_then(|c| service_of(&c));
    Holder { pid, command, unit }
}

/// The innermost `.service` of a `/proc/PID/cgroup` text.
fn service_of(cgroup: &str) -> Option<String> {
    cgroup
        .lines()
        .filter_map(|l| l.rsplit(':').next())
        .flat_map(|path| path.rsplit('/'))
        .find(|part| part.ends_with(".service"))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flock_line_names_its_pid() {
        let device = "08:01:5678";
        let line = "1: FLOCK  ADVISORY  READ  1234 08:01:5678 0 EOF";
        assert_eq!(pid_on(line, device), Some(1234));
        let waiting = "1: -> FLOCK  ADVISORY  WRITE 99 08:01:5678 0 EOF";
        assert_eq!(pid_on(waiting, device), Some(99));
        let other = "2: FLOCK  ADVISORY  READ  1234 08:01:5679 0 EOF";
        assert_eq!(pid_on(other, device), None);
        let posix = "3: POSIX  ADVISORY  READ  1234 08:01:5678 0 EOF";
        assert_eq!(pid_on(posix, device), None);
    }

    #[test]
    fn the_unit_is_the_innermost_service() {
        let cgroup = "0::/system.slice/system-area\\x2dscoring.slice/area-scoring@8081.service\n";
        assert_eq!(
            service_of(cgroup).as_deref(),
            Some("area-scoring@8081.service")
        );
        assert_eq!(service_of("0::/user.slice/session-3.scope\n"), None);
    }

    #[test]
    fn a_restore_is_refused_while_a_server_holds_the_lock_and_names_it() {
        let dir = std::env::temp_dir().join(format!("serving-lock-{}", std::process::id()));
        let keys = dir.join("keys.db");
        let serving = Serving::hold(&keys).unwrap();
        // flock locks belong to open files: this process's second open conflicts.
        match Restoring::take(&keys) {
            Err(Refused::Held(holders)) => {
                assert!(
                    holders.iter().any(|h| h.pid == std::process::id()),
                    "{holders:?}"
                );
            }
            other => panic!("refused as held: {other:?}"),
        }
        drop(serving);
        let restoring = Restoring::take(&keys).unwrap();
        drop(restoring);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
