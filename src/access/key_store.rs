//! The live keys and plan limits, held in memory, so that authenticating a
//! request is a hash and a map lookup, with no SQL on the request path.
//!
//! `poll` runs a few times a second: when the keys file has changed (another
//! inode, size, modification time, or SQLite's change counter, which moves on
//! every commit) it reads the file again and swaps the new table in whole. A
//! key created, revoked or moved to another plan by any command therefore
//! takes effect within a second on every server sharing the file (docs/operations.md,
//! "Keys"). A file that cannot be read keeps the last table serving.
//!
//! A key not in the table is not refused on the table's word alone: the
//! file's stamp is taken again (a stat and 28 header bytes), and when it
//! moved the file is read before the answer, so a key works from its first
//! request (access/authenticate.rs, the rule for any store of keys). Requests
//! with unknown keys share that look (access/shared_check.rs).

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use crate::access::authenticate::{KeySource, Keyless, authenticate};
use crate::access::key_file;
use crate::access::keys::Caller;
use crate::access::plans::{self, Limits};
use crate::access::shared_check::SharedCheck;
use crate::domain::Plan;
use crate::error::ApiError;

/// Where the change counter sits in an SQLite file's header.
const CHANGE_COUNTER: std::ops::Range<usize> = 24..28;

/// What was read of the keys file at one moment.
#[derive(Default)]
pub struct KeyTable {
    callers: HashMap<[u8; 32], Caller>,
    limits: Limits,
}

impl KeyTable {
    fn read(path: &Path) -> Result<KeyTable, String> {
        let conn = key_file::open_read(path)?;
        let fail = |e: rusqlite::Error| format!("cannot read {}: {e}", path.display());
        // One read transaction, so that keys and limits are of one commit.
        conn.execute_batch("BEGIN").map_err(fail)?;
        let limits = plans::limits(&conn).map_err(fail)?;
        let mut stmt = conn
            .prepare("SELECT key_hash, id, plan FROM api_keys WHERE revoked_at IS NULL")
            .map_err(fail)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, Vec<u8>>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })
            .map_err(fail)?;
        let mut callers = HashMap::new();
        for row in rows {
            let (hash, key_id, plan) = row.map_err(fail)?;
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

/// The file states last read and last refused.
#[derive(Default)]
struct Seen {
    /// None after a refusal, so that a bad file is reported once and polls
    /// keep trying it.
    read: Option<Stamp>,
    refused: Option<Stamp>,
}

/// How a store held elsewhere than in a keys file (Redis) installs keys
/// newer than its table, asked on a request whose key is not in memory.
type Refresh = Box<dyn Fn() + Send + Sync>;

pub struct KeyStore {
    path: PathBuf,
    table: RwLock<Arc<KeyTable>>,
    seen: Mutex<Seen>,
    refresh: OnceLock<Refresh>,
    /// The one look for newer keys that requests with unknown keys share.
    checks: SharedCheck,
}

impl KeyStore {
    /// Reads the keys file, which must exist and be readable.
    pub fn open(path: &Path) -> Result<KeyStore, String> {
        let seen = stamp(path);
        let table = KeyTable::read(path)?;
        Ok(KeyStore {
            path: path.to_path_buf(),
            table: RwLock::new(Arc::new(table)),
            seen: Mutex::new(Seen {
                read: seen,
                refused: None,
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

    /// Reads the file again if it changed since it was last read.
    pub fn poll(&self) {
        self.read_if_moved(false);
    }

    /// Reads the file again if its stamp moved; says whether a new table
    /// is in. On a request, a file already refused as it is now is not read
    /// again: guessed keys then cost a stat each, never a read of the file.
    fn read_if_moved(&self, on_request: bool) -> bool {
        let now = stamp(&self.path);
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        if now == seen.read || (on_request && now.is_some() && now == seen.refused) {
            return false;
        }
        match KeyTable::read(&self.path) {
            Ok(table) => {
                log::info!(
                    "keys reloaded: {} live API keys from {}",
                    table.live_keys(),
                    self.path.display()
                );
                *self.table.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(table);
                // The stamp from before the read: a commit during the read
                // moves it again, and the next poll reads once more.
                *seen = Seen {
                    read: now,
                    refused: None,
                };
                true
            }
            Err(why) => {
                // A missing file keeps the keys last read: revoking needs the file.
                if seen.read.is_some() {
                    log::error!("keys not reloaded, the keys last read stay in force: {why}");
                }
                *seen = Seen {
                    read: None,
                    refused: now,
                };
                false
            }
        }
    }
}

impl KeySource for KeyStore {
    fn lookup(&self, hash: &[u8; 32]) -> Option<(Caller, Option<u32>)> {
        let table = self.table();
        let caller = table.callers.get(hash)?;
        Some((caller.clone(), table.limit(caller.plan)))
    }

    fn check_newer(&self) {
        self.checks.run(|| match self.refresh.get() {
            Some(refresh) => refresh(),
            None => drop(self.read_if_moved(true)),
        });
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
    /// A store whose table is replaced by `replace` only: `poll` finds no file.
    pub fn held(table: KeyTable) -> KeyStore {
        KeyStore {
            path: PathBuf::new(),
            table: RwLock::new(Arc::new(table)),
            seen: Mutex::new(Seen::default()),
            refresh: OnceLock::new(),
            checks: SharedCheck::new(),
        }
    }

    /// How a held store looks for newer keys before it refuses one.
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
