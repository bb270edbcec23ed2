//! The live keys and plan limits, held in memory, so that authenticating a
//! request is a hash and a map lookup, with no SQL on the request path.
//!
//! Only the keys' watcher thread reads the keys file (`watch`). It looks a
//! few times a second: when the file has changed (another inode, size,
//! modification time, or SQLite's change counter, which moves on every
//! commit) it reads the file again and swaps the new table in whole. A key
//! created, revoked or moved to another plan by any command therefore takes
//! effect within a second on every server sharing the file
//! (docs/operations.md, "Keys"). A file that cannot be read keeps the last
//! table serving. A locked file is not waited for: it is tried again on the
//! next tick, and a change kept waiting past that second is logged once.
//!
//! A key not in the table is not refused on the table's word alone: the
//! request asks the watcher to look at once, and waits for that look
//! (access/shared_check.rs: `MAX_WAIT` at most, one request at a time), so
//! a key works from its first request (access/authenticate.rs, the rule for
//! any store of keys). No lock is held while the file is read: requests
//! whose keys are in the table never wait for the watcher.

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};
use std::time::{Duration, Instant};

use rusqlite::Connection;

use crate::access::AccessError;
use crate::access::authenticate::{KeySource, Keyless, authenticate};
use crate::access::key_file::{self, Unread};
use crate::access::keys::Caller;
use crate::access::plans::{self, Limits};
use crate::access::shared_check::{Look, MAX_WAIT, SharedCheck};
use crate::domain::Plan;
use crate::error::ApiError;
use crate::file_error::cannot;

/// Where the change counter sits in an SQLite file's header.
const CHANGE_COUNTER: std::ops::Range<usize> = 24..28;
/// How long a change may wait for a locked file before it is logged: the
/// second within which docs/operations.md ("Keys") says a change takes effect.
const LOCKED_SAID_AFTER: Duration = Duration::from_secs(1);

/// What was read of the keys file at one moment.
#[derive(Default)]
pub struct KeyTable {
    callers: HashMap<[u8; 32], Caller>,
    limits: Limits,
}

impl KeyTable {
    /// The watcher's read: a locked file is `Unread::Locked` at once.
    fn read_now(path: &Path) -> Result<KeyTable, Unread> {
        let conn = key_file::open_read_now(path)?;
        KeyTable::from_file(&conn).map_err(|e| Unread::of(path, e))
    }

    /// The read at start, which waits for a writer as a command does.
    fn read_waiting(path: &Path) -> Result<KeyTable, AccessError> {
        let conn = key_file::open_read(path)?;
        Ok(KeyTable::from_file(&conn).map_err(cannot("read", path))?)
    }

    fn from_file(conn: &Connection) -> rusqlite::Result<KeyTable> {
        // One read transaction, so that keys and limits are of one commit.
        conn.execute_batch("BEGIN")?;
        let limits = plans::limits(conn)?;
        let mut stmt =
            conn.prepare("SELECT key_hash, id, plan FROM api_keys WHERE revoked_at IS NULL")?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, Vec<u8>>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        let mut callers = HashMap::new();
        for row in rows {
            let (hash, key_id, plan) = row?;
            let (Ok(hash), Some(plan)) = (<[u8; 32]>::try_from(hash), Plan::from_name(&plan))
            else {
                continue;
            };
            callers.insert(hash, Caller { key_id, plan });
        }
        Ok(KeyTable { callers, limits })
    }

    /// How many keys may call.
    pub fn live_keys(&self) -> usize {
        self.callers.len()
    }

    /// A plan's requests a minute; None is unlimited.
    pub fn limit(&self, plan: Plan) -> Option<u32> {
        self.limits.get(&plan).copied().flatten()
    }
}

/// Which state of the file the table was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
    counter: [u8; 4],
}

fn stamp(path: &Path) -> Option<Stamp> {
    let mut file = File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    let mut header = [0u8; 28];
    let counter = match file.read_exact(&mut header) {
        Ok(()) => header[CHANGE_COUNTER].try_into().ok()?,
        Err(_) => [0; 4],
    };
    Some(Stamp {
        dev: meta.dev(),
        ino: meta.ino(),
        size: meta.size(),
        mtime_ns: meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128,
        counter,
    })
}

/// The file states last read, refused and found locked: the watcher's
/// alone, and held only between its reads, never across one.
#[derive(Default)]
struct Seen {
    /// None after a refusal, so that a bad file is reported once and ticks
    /// keep trying it.
    read: Option<Stamp>,
    refused: Option<Stamp>,
    locked: Option<Locked>,
}

/// A change not read because another connection held the file locked.
struct Locked {
    since: Instant,
    /// Whether the wait was logged: once while the file stays locked.
    said: bool,
}

impl Locked {
    /// The file found locked at `when`, after `was`; and whether to say so:
    /// once, when the wait passes its second.
    fn again(was: Option<Locked>, when: Instant) -> (Locked, bool) {
        let mut locked = was.unwrap_or(Locked {
            since: when,
            said: false,
        });
        let say = !locked.said && when.duration_since(locked.since) >= LOCKED_SAID_AFTER;
        locked.said |= say;
        (locked, say)
    }
}

impl Seen {
    /// Whether the file, as it is `now`, is to be read on this look. Asked
    /// by a request, a file already refused as it is now is not read again:
    /// guessed keys then cost a stat each, never a read of the file. A file
    /// found locked is tried again, as a commit holds it locked for a moment
    /// and the key it made may be the one asked for; the try fails at once
    /// while it is still locked.
    fn wants(&self, now: Option<Stamp>, why: Look) -> bool {
        let refused = now.is_some() && now == self.refused;
        now != self.read && (why == Look::Tick || !refused)
    }

    /// Takes in what a read of the file at `path`, as it was `now`, gave at
    /// `when`; returns the line to log, if any.
    fn after(
        &mut self,
        (path, now): (&Path, Option<Stamp>),
        read: &Result<KeyTable, Unread>,
        when: Instant,
    ) -> Option<(log::Level, String)> {
        let was_locked = self.locked.take();
        match read {
            Ok(table) => {
                // The stamp from before the read: a commit during the read
                // moves it again, and the next tick reads once more.
                *self = Seen {
                    read: now,
                    ..Seen::default()
                };
                let free = if was_locked.is_some_and(|l| l.said) {
                    " (the keys file is no longer locked)"
                } else {
                    ""
                };
                let (keys, path) = (table.live_keys(), path.display());
                let said = format!("keys reloaded{free}: {keys} live API keys from {path}");
                Some((log::Level::Info, said))
            }
            Err(Unread::Locked(why)) => {
                let (locked, say) = Locked::again(was_locked, when);
                self.locked = Some(locked);
                say.then(|| {
                    let said = format!(
                        "a change to the keys file {} waits: another connection holds it \
                         locked, so the keys last read stay in force, and it is read again \
                         on each tick until it is free: {why}",
                        path.display()
                    );
                    (log::Level::Warn, said)
                })
            }
            Err(Unread::Refused(why)) => {
                // A missing file keeps the keys last read: revoking needs the file.
                let said = self.read.is_some().then(|| {
                    let said =
                        format!("keys not reloaded, the keys last read stay in force: {why}");
                    (log::Level::Error, said)
                });
                *self = Seen {
                    read: None,
                    refused: now,
                    locked: None,
                };
                said
            }
        }
    }
}

/// How a store held elsewhere than in a keys file (Redis) installs keys
/// newer than its table, asked on a request whose key is not in memory.
type Refresh = Box<dyn Fn() + Send + Sync>;

pub struct KeyStore {
    path: PathBuf,
    table: RwLock<Arc<KeyTable>>,
    seen: Mutex<Seen>,
    refresh: OnceLock<Refresh>,
    /// The watcher's looks, and the one request that may wait for one.
    checks: SharedCheck,
}

impl KeyStore {
    /// Reads the keys file, which must exist and be readable.
    pub fn open(path: &Path) -> Result<KeyStore, AccessError> {
        let seen = stamp(path);
        let table = KeyTable::read_waiting(path)?;
        Ok(KeyStore {
            path: path.to_path_buf(),
            table: RwLock::new(Arc::new(table)),
            seen: Mutex::new(Seen {
                read: seen,
                ..Seen::default()
            }),
            refresh: OnceLock::new(),
            checks: SharedCheck::new(),
        })
    }

    pub fn table(&self) -> Arc<KeyTable> {
        self.table.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The caller behind the Authorization header's key, and its plan's
    /// requests a minute; 401 when the key is missing, unknown or revoked,
    /// 429 when the client's `keyless` budget is spent.
    pub fn authenticate(
        &self,
        header: Option<&str>,
        keyless: &impl Keyless,
    ) -> Result<(Caller, Option<u32>), ApiError> {
        authenticate(self, header, keyless)
    }

    /// The keys' watcher, for one thread: looks at the store every
    /// `period`, and at once when a request asks, until `close`.
    pub fn watch(&self, period: Duration) {
        self.checks.serve(period, |why| self.look(why));
    }

    /// Ends `watch` after its look in flight; requests wait for none after.
    pub fn close(&self) {
        self.checks.close();
    }

    fn look(&self, why: Look) {
        match (self.refresh.get(), why) {
            (Some(refresh), Look::Asked) => refresh(),
            // Redis's own watch follows its version (access/redis/live.rs).
            (Some(_), Look::Tick) => {}
            (None, why) => drop(self.read_if_moved(why)),
        }
    }

    fn seen(&self) -> MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reads the file again if its stamp moved and this look wants it
    /// (`Seen::wants`); says whether a new table is in.
    fn read_if_moved(&self, why: Look) -> bool {
        let now = stamp(&self.path);
        if !self.seen().wants(now, why) {
            return false;
        }
        let read = KeyTable::read_now(&self.path);
        let said = self.seen().after((&self.path, now), &read, Instant::now());
        if let Some((level, said)) = said {
            log::log!(level, "{said}");
        }
        let Ok(table) = read else {
            return false;
        };
        *self.table.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(table);
        true
    }
}

impl KeySource for KeyStore {
    fn lookup(&self, hash: &[u8; 32]) -> Option<(Caller, Option<u32>)> {
        let table = self.table();
        let caller = table.callers.get(hash)?;
        Some((caller.clone(), table.limit(caller.plan)))
    }

    fn check_newer(&self) {
        self.checks.ask(MAX_WAIT);
    }
}

/// Keys held elsewhere than in a keys file (Redis, access/redis/live.rs),
/// handed in whole by whoever reads them.
impl KeyTable {
    pub fn new(callers: HashMap<[u8; 32], Caller>, limits: Limits) -> KeyTable {
        KeyTable { callers, limits }
    }
}

impl KeyStore {
    /// A store whose table is replaced by `replace`, and by its refresh
    /// when a request asks (`refresh_with`): it has no file to read.
    pub fn held(table: KeyTable) -> KeyStore {
        KeyStore {
            path: PathBuf::new(),
            table: RwLock::new(Arc::new(table)),
            seen: Mutex::new(Seen::default()),
            refresh: OnceLock::new(),
            checks: SharedCheck::new(),
        }
    }

    /// How a held store looks for newer keys before it refuses one: run by
    /// the watcher when a request asks, so that a slow store holds up no
    /// more than the one request waiting, for `MAX_WAIT` at most.
    pub fn refresh_with(&self, refresh: impl Fn() + Send + Sync + 'static) {
        let _ = self.refresh.set(Box::new(refresh));
    }

    pub fn replace(&self, table: KeyTable) {
        *self.table.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(table);
    }
}

#[cfg(test)]
#[path = "key_store_tests.rs"]
mod tests;
