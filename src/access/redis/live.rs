//! A server's link to Redis: the keys it loads at start (or, with Redis
//! away, from its local snapshot), the watch that reloads them when the
//! version moves or Redis comes back, and whether Redis is up for requests.
//!
//! The watch polls the version every `WATCH_EVERY`, so a change made by any
//! command reaches every server within a second. A failed poll marks Redis
//! down for requests, which then use this server's own buckets; the next
//! poll that succeeds reloads everything, so a revoke made meanwhile is not
//! missed, and marks Redis up again.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::budget::SharedBuckets;
use super::conn::{BACKGROUND_TIMEOUT, REQUEST_TIMEOUT, Redis};
use super::instance::{INSTANCE_VARIABLE, Place, identity, write_private};
use super::invalid_values;
use super::keys::{self, KeyState};
use super::spools::Spools;
use super::url::RedisUrl;
use super::usage::SharedUsage;
use crate::access::AccessError;
use crate::access::key_store::{KeyStore, KeyTable};

/// How often a server asks Redis whether keys or plans changed.
pub const WATCH_EVERY: Duration = Duration::from_millis(250);

pub struct Live {
    /// For the watch and usage flushes, which may wait longer.
    background: Arc<Redis>,
    /// For requests: short timeouts, and never tried while Redis is down.
    pub requests: Arc<Redis>,
    pub buckets: Arc<SharedBuckets>,
    pub usage: Arc<SharedUsage>,
    /// This server's snapshot and spool, and its neighbours'.
    place: Place,
    /// The version loaded at start; None when started from the snapshot.
    loaded: Option<u64>,
    /// The version of the keys in force, held while keys are installed (never
    /// while Redis is asked), so that the watch and a request that looks for
    /// a new key install one at a time.
    installed: Mutex<Option<u64>>,
    /// Where the keys came from at start, and what else the operator should
    /// know, logged once the address is.
    pub said: Vec<(log::Level, String)>,
}

impl Live {
    /// Connects and loads the keys; with Redis away, starts from the
    /// newest snapshot, saying it may be stale. `keys` names the folder of
    /// the snapshot and spool files (beside where the keys file would be),
    /// and `addr` this server among those sharing it when `AREA_INSTANCE`
    /// does not (access/redis/instance.rs).
    pub fn start(url: &RedisUrl, keys: &Path, addr: &str) -> Result<(Live, KeyStore), AccessError> {
        let named = std::env::var(INSTANCE_VARIABLE).ok();
        let place = Place::new(keys, identity(named.as_deref(), addr, std::process::id())?);
        let background = Arc::new(Redis::new(url, BACKGROUND_TIMEOUT)?);
        let requests = Arc::new(Redis::new(url, REQUEST_TIMEOUT)?);
        let (usage, found) = SharedUsage::new(background.clone(), Spools::open(place.clone())?)?;
        let mut live = Live {
            buckets: Arc::new(SharedBuckets::new(requests.clone())),
            usage: Arc::new(usage),
            background,
            requests,
            place,
            loaded: None,
            installed: Mutex::new(None),
            said: Vec::new(),
        };
        for why in found.errors {
            live.said.push((log::Level::Error, why));
        }
        if !found.files.is_empty() {
            let files: Vec<String> = found
                .files
                .iter()
                .map(|f| f.display().to_string())
                .collect();
            live.said.push((
                log::Level::Info,
                format!(
                    "usage: {} batches from {} wait to be added to Redis",
                    live.usage.batches(),
                    files.join(", ")
                ),
            ));
        }
        let state = match keys::load(&live.background) {
            Ok(state) => {
                live.save(&state);
                live.loaded = Some(state.version);
                *live.installed.get_mut().unwrap_or_else(|p| p.into_inner()) = live.loaded;
                let live_keys = state.table().live_keys();
                let said = format!("{live_keys} live API keys from Redis at {url}");
                live.said.push((log::Level::Info, said));
                state
            }
            Err(why) => {
                // Said below, once the address is logged: no log line before it.
                live.requests.set_up(false);
                live.read_snapshot(why)?
            }
        };
        let store = KeyStore::held(state.table());
        Ok((live, store))
    }

    /// The newest snapshot of the folder that parses: this server's own, or
    /// a neighbour's written since (of the same Redis's keys). Says which,
    /// and each that does not parse.
    fn read_snapshot(&mut self, why: AccessError) -> Result<KeyState, AccessError> {
        let mut found = self.place.snapshots();
        let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        found.sort_by_key(|p| std::cmp::Reverse(modified(p)));
        let mut unusable = String::new();
        for path in found {
            let read = std::fs::read_to_string(&path).map_err(|e| e.to_string());
            match read.and_then(|t| serde_json::from_str::<KeyState>(&t).map_err(|e| e.to_string()))
            {
                Ok(state) => {
                    let said = format!(
                        "{} live API keys from {}, which may be stale: {why}; this server \
                         limits keys by itself until Redis is back",
                        state.table().live_keys(),
                        path.display()
                    );
                    self.said.push((log::Level::Warn, said));
                    return Ok(state);
                }
                Err(e) => {
                    let said = format!("{} is not a snapshot of keys: {e}", path.display());
                    unusable.push_str(&format!("; {said}"));
                    self.said.push((log::Level::Error, said));
                }
            }
        }
        Err(AccessError::NoSnapshot {
            why: Box::new(why),
            snapshot: self.place.snapshot(),
            unusable,
        })
    }

    /// Writes this server's snapshot (0600) through a file renamed into place.
    fn save(&self, state: &KeyState) {
        let snapshot = self.place.snapshot();
        let written = serde_json::to_string(state)
            .map_err(AccessError::from)
            .and_then(|json| write_private(&snapshot, json.as_bytes()));
        if let Err(why) = written {
            log::warn!(
                "snapshot of the keys not written to {}: {why}",
                snapshot.display()
            );
        }
    }

    /// Polls the version until `install` says the server is gone; reloads
    /// and installs the keys when it moved or Redis came back.
    pub fn watch(&self, install: impl Fn(KeyTable) -> bool) {
        let mut loaded = self.loaded;
        loop {
            std::thread::sleep(WATCH_EVERY);
            let version = keys::version(&self.background);
            let unchanged = match (&version, loaded) {
                (Ok(Some(now)), Some(before)) => *now == before,
                // Not a whole number (said and counted): the keys in force
                // stay, and Redis, which answered, is not taken for away.
                (Ok(None), Some(_)) => true,
                _ => false,
            };
            if unchanged {
                if self.requests.set_up(true) {
                    log::info!("Redis is back: budgets and usage are shared again");
                }
                continue;
            }
            match version.and_then(|_| keys::load(&self.background)) {
                Ok(state) => {
                    log::info!(
                        "keys reloaded: {} live API keys from Redis",
                        state.table().live_keys()
                    );
                    self.save(&state);
                    loaded = Some(state.version);
                    let mut installed = self.installed();
                    if !install(state.table()) {
                        return;
                    }
                    *installed = loaded;
                    drop(installed);
                    if self.requests.set_up(true) {
                        log::info!("Redis is back: budgets and usage are shared again");
                    }
                }
                Err(why) => {
                    self.requests.down(&why);
                    loaded = None;
                }
            }
        }
    }

    fn installed(&self) -> MutexGuard<'_, Option<u64>> {
        self.installed.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Asked by a request whose key is not in memory: installs the keys Redis
    /// holds if their version moved since those in force, so that a key
    /// made a moment ago works at once rather than at the next watch. Says
    /// whether it did. With Redis away, nothing is asked. The keys' watcher
    /// makes this call, one at a time, while the request waits a bounded
    /// time (access/shared_check.rs), and no lock is held while Redis
    /// answers: keys are installed only if newer than those the watch may
    /// have installed meanwhile.
    pub fn install_newer(&self, install: impl Fn(KeyTable) -> bool) -> bool {
        if !self.requests.is_up() {
            return false;
        }
        let in_force = *self.installed();
        let newer = keys::version(&self.requests)
            .ok()
            .flatten()
            .filter(|now| Some(*now) != in_force)
            .and_then(|_| keys::load(&self.requests).ok());
        let Some(state) = newer else {
            return false;
        };
        let mut installed = self.installed();
        if installed.is_some_and(|v| v >= state.version) || !install(state.table()) {
            return false;
        }
        // The snapshot follows the keys in force, whoever installed them: a
        // server started while Redis is away serves it.
        self.save(&state);
        *installed = Some(state.version);
        true
    }

    /// Lines for /metrics: whether Redis is up, what ran without it, and
    /// the bad values read from it.
    pub fn metrics(&self) -> String {
        use std::sync::atomic::Ordering::Relaxed;
        let invalid = invalid_values::metrics(&[
            &self.requests.invalid_values,
            &self.background.invalid_values,
        ]);
        format!(
            "# HELP area_redis_up Whether this server reaches Redis (1) or runs on its own (0).\n\
             # TYPE area_redis_up gauge\narea_redis_up {}\n\
             # HELP area_redis_failures_total Redis calls that failed or were skipped while it was away.\n\
             # TYPE area_redis_failures_total counter\narea_redis_failures_total {}\n\
             # HELP area_rate_limit_local_total Requests limited by this server's own bucket, Redis being away.\n\
             # TYPE area_rate_limit_local_total counter\narea_rate_limit_local_total {}\n{invalid}",
            u8::from(self.requests.is_up()),
            self.requests.failures.load(Relaxed) + self.background.failures.load(Relaxed),
            self.buckets.fallbacks.load(Relaxed),
        )
    }
}
