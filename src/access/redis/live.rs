//! A server's link to Redis: the keys it loads at start (or, with Redis
//! away, from its local snapshot), the watch that reloads them when the
//! version moves or Redis comes back, and whether Redis is up for requests.
//!
//! The watch polls the version every `WATCH_EVERY`, so a change made by any
//! command reaches every server within a second. A failed poll marks Redis
//! down for requests, which then use this server's own buckets; the next
//! poll that succeeds reloads everything, so a revoke made meanwhile is not
//! missed, and marks Redis up again.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::budget::SharedBuckets;
use super::conn::{BACKGROUND_TIMEOUT, REQUEST_TIMEOUT, Redis};
use super::garbage;
use super::keys::{self, KeyState};
use super::url::RedisUrl;
use super::usage::SharedUsage;
use crate::access::key_file::create_private;
use crate::access::key_store::{KeyStore, KeyTable};

/// How often a server asks Redis whether keys or plans changed.
pub const WATCH_EVERY: Duration = Duration::from_millis(250);

/// The snapshot of the keys last loaded, beside the keys file's place.
pub fn snapshot_path(keys: &Path) -> PathBuf {
    with_suffix(keys, ".redis-snapshot")
}

/// Usage Redis could not take by shutdown, beside the keys file's place.
pub fn spool_path(keys: &Path) -> PathBuf {
    with_suffix(keys, ".usage-spool")
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

pub struct Live {
    /// For the watch and usage flushes, which may wait longer.
    background: Arc<Redis>,
    /// For requests: short timeouts, and never tried while Redis is down.
    pub requests: Arc<Redis>,
    pub buckets: Arc<SharedBuckets>,
    pub usage: Arc<SharedUsage>,
    snapshot: PathBuf,
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
    /// snapshot, saying it may be stale. `keys` names where the snapshot and
    /// spool files go (beside where the keys file would be).
    pub fn start(url: &RedisUrl, keys: &Path) -> Result<(Live, KeyStore), String> {
        let background = Arc::new(Redis::new(url, BACKGROUND_TIMEOUT)?);
        let requests = Arc::new(Redis::new(url, REQUEST_TIMEOUT)?);
        let mut live = Live {
            buckets: Arc::new(SharedBuckets::new(requests.clone())),
            usage: Arc::new(SharedUsage::new(background.clone(), spool_path(keys))?),
            background,
            requests,
            snapshot: snapshot_path(keys),
            loaded: None,
            installed: Mutex::new(None),
            said: Vec::new(),
        };
        if live.usage.batches() > 0 {
            let spool = spool_path(keys);
            live.said.push((
                log::Level::Info,
                format!(
                    "usage: {} batches from {} wait to be added to Redis",
                    live.usage.batches(),
                    spool.display()
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
                let state = live.read_snapshot().map_err(|e| format!("{why}; {e}"))?;
                live.said.push((
                    log::Level::Warn,
                    format!(
                        "{} live API keys from {}, which may be stale: {why}; this server \
                         limits keys by itself until Redis is back",
                        state.table().live_keys(),
                        live.snapshot.display()
                    ),
                ));
                state
            }
        };
        let store = KeyStore::held(state.table());
        Ok((live, store))
    }

    fn read_snapshot(&self) -> Result<KeyState, String> {
        let text = std::fs::read_to_string(&self.snapshot).map_err(|e| {
            format!(
                "Redis is not reachable and there is no snapshot of its keys at {} ({e}): \
                 start this server once while Redis is up",
                self.snapshot.display()
            )
        })?;
        serde_json::from_str(&text)
            .map_err(|e| format!("{} is not a snapshot of keys: {e}", self.snapshot.display()))
    }

    /// Writes the snapshot (0600) through a file renamed into place.
    fn save(&self, state: &KeyState) {
        let temp = with_suffix(&self.snapshot, ".partial");
        let _ = std::fs::remove_file(&temp);
        let written = serde_json::to_string(state)
            .map_err(|e| e.to_string())
            .and_then(|json| {
                create_private(&temp)?;
                std::fs::write(&temp, json)
                    .and_then(|()| std::fs::rename(&temp, &self.snapshot))
                    .map_err(|e| e.to_string())
            });
        if let Err(why) = written {
            log::warn!(
                "snapshot of the keys not written to {}: {why}",
                self.snapshot.display()
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

    /// On a request whose key is not in memory: installs the keys Redis
    /// holds if their version moved since those in force, so that a key
    /// made a moment ago works at once rather than at the next watch. Says
    /// whether it did. With Redis away, nothing is asked. Requests share one
    /// such call at a time (access/shared_check.rs), and no lock is held
    /// while Redis answers: keys are installed only if newer than those the
    /// watch may have installed meanwhile.
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
        let garbage = garbage::metrics(&[&self.requests.garbage, &self.background.garbage]);
        format!(
            "# HELP area_redis_up Whether this server reaches Redis (1) or runs on its own (0).\n\
             # TYPE area_redis_up gauge\narea_redis_up {}\n\
             # HELP area_redis_failures_total Redis calls that failed or were skipped while it was away.\n\
             # TYPE area_redis_failures_total counter\narea_redis_failures_total {}\n\
             # HELP area_rate_limit_local_total Requests limited by this server's own bucket, Redis being away.\n\
             # TYPE area_rate_limit_local_total counter\narea_rate_limit_local_total {}\n{garbage}",
            u8::from(self.requests.is_up()),
            self.requests.failures.load(Relaxed) + self.background.failures.load(Relaxed),
            self.buckets.fallbacks.load(Relaxed),
        )
    }
}
