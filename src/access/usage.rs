//! Requests per key and per UTC day, for billing: counted in memory on the
//! request path, and added to the usage file by `flush` every few seconds and
//! at shutdown (docs/operations.md, "Keys").
//!
//! The usage file sits beside the keys file but apart from it, since every
//! change to the keys file makes every server read it again. A flush adds
//! what this server counted since the last one, so servers sharing the file
//! add up. When a flush fails (the file locked, the disk full), its counts go
//! back into memory for the next one; what is waiting is bounded by
//! `MAX_WAITING` key-days, past which new key-days are dropped and logged.
//! The file is in WAL mode, so that reading it (`keys usage`, `GET /v1/key`)
//! never waits for a flush, nor a flush for a reader.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rusqlite::{Connection, params};

use crate::access::redis::conn::Redis;
use crate::access::redis::usage::SharedUsage;
use crate::access::usage_counts::Counts;
use crate::access::usage_report;
use crate::dates::{self, SECONDS_PER_DAY};

/// How often a server adds its counts to the usage file: a kill -9 loses at
/// most this much of them (docs/operations.md, "Keys", promises 10 s).
pub const FLUSH_EVERY: Duration = Duration::from_secs(2);
/// Key-days waiting in memory at most while the usage file cannot be written.
pub const MAX_WAITING: usize = 100_000;
/// How long a flush waits for another server's flush to end.
pub const BUSY_TIMEOUT: Duration = Duration::from_millis(500);
#[path = "usage_file.rs"]
mod file;
pub use file::{USAGE_APPLICATION_ID, open_file, usage_path};

/// Counts not yet written, by key, so that counting a key already waiting
/// looks it up by its id without making a string of it.
#[derive(Default)]
struct Waiting {
    keys: HashMap<String, KeyWaiting>,
    /// Day entries over all keys, which `MAX_WAITING` bounds.
    key_days: usize,
    dropped: u64,
}

#[derive(Default)]
struct KeyWaiting {
    days: HashMap<i64, Counts>,
    last_used: i64,
}

impl Waiting {
    /// Adds `counts` to `key_id`'s `day`; past the bound a new key-day's
    /// requests are dropped and counted instead.
    fn add(&mut self, key_id: &str, day: i64, counts: Counts, used_at: i64) {
        let full = self.key_days >= MAX_WAITING;
        if !self.keys.contains_key(key_id) {
            if full {
                self.dropped += counts.total();
                return;
            }
            self.keys.insert(key_id.to_string(), KeyWaiting::default());
        }
        let key = self.keys.get_mut(key_id).expect("inserted above");
        key.last_used = key.last_used.max(used_at);
        match key.days.get_mut(&day) {
            Some(c) => c.add(counts),
            None if full => self.dropped += counts.total(),
            None => {
                key.days.insert(day, counts);
                self.key_days += 1;
            }
        }
    }

    fn requests(&self) -> u64 {
        let days = self.keys.values().flat_map(|k| k.days.values());
        days.map(Counts::total).sum()
    }
}

/// A server's counts not yet in the usage file.
pub struct Usage {
    path: PathBuf,
    waiting: Mutex<Waiting>,
    /// Held by a flush from taking the counts until they are written, and by
    /// `day`, so that no count is in neither place, or in both, when read.
    flushing: Mutex<()>,
    /// With Redis named: where flushes go instead of the usage file, and
    /// the connections requests read today's counts through.
    shared: OnceLock<(Arc<SharedUsage>, Arc<Redis>)>,
}

impl Usage {
    pub fn new(keys: &Path) -> Usage {
        Usage {
            path: usage_path(keys),
            waiting: Mutex::new(Waiting::default()),
            flushing: Mutex::new(()),
            shared: OnceLock::new(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Counts one answered request of `key_id`. Never blocks on the file.
    pub fn count(&self, key_id: &str, status: u16, now_unix: i64) {
        let day = now_unix.div_euclid(SECONDS_PER_DAY);
        let mut one = Counts::default();
        one.count(status);
        let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        waiting.add(key_id, day, one, now_unix);
    }

    /// Adds what waits to the usage file, in one transaction, waiting up to
    /// `patience` for another writer. On failure the counts wait on in memory
    /// and the error, with how many requests they are, is returned to log.
    pub fn flush(&self, patience: Duration) -> Result<(), String> {
        if let Some((shared, _)) = self.shared.get() {
            return self.flush_shared(shared);
        }
        let _one = self.flushing.lock().unwrap_or_else(|p| p.into_inner());
        let taken = std::mem::take(&mut *self.waiting.lock().unwrap_or_else(|p| p.into_inner()));
        if taken.dropped > 0 {
            log::warn!(
                "usage: {} requests were not counted: {MAX_WAITING} key-days were already waiting for {}",
                taken.dropped,
                self.path.display()
            );
        }
        if taken.keys.is_empty() {
            return Ok(());
        }
        let written = open_file(&self.path, patience).and_then(|mut conn| write(&mut conn, &taken));
        let Err(e) = written else {
            return Ok(());
        };
        let requests = taken.requests();
        self.put_back(taken);
        Err(format!(
            "usage of {requests} requests not written to {}: {e}",
            self.path.display()
        ))
    }

    /// `key_id`'s requests on `day`: those every server has written, and
    /// those waiting here, as one snapshot.
    pub fn day(&self, key_id: &str, day: i64) -> Result<Counts, String> {
        if let Some((usage, requests)) = self.shared.get() {
            return Ok(self.day_shared(usage, requests, key_id, day));
        }
        let _one = self.flushing.lock().unwrap_or_else(|p| p.into_inner());
        let mut counts = usage_report::day(&self.path, key_id, &dates::format_date(day))?;
        counts.add(self.waiting(key_id, day));
        Ok(counts)
    }

    fn put_back(&self, taken: Waiting) {
        let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        for (key_id, key) in taken.keys {
            for (day, counts) in key.days {
                waiting.add(&key_id, day, counts, key.last_used);
            }
        }
    }

    /// `key_id`'s counts of `day` not yet written.
    pub fn waiting(&self, key_id: &str, day: i64) -> Counts {
        let waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        waiting
            .keys
            .get(key_id)
            .and_then(|k| k.days.get(&day))
            .copied()
            .unwrap_or_default()
    }
}

fn write(conn: &mut Connection, taken: &Waiting) -> Result<(), String> {
    let fail = |e: rusqlite::Error| e.to_string();
    let tx = conn.transaction().map_err(fail)?;
    {
        let mut add = tx
            .prepare(
                "INSERT INTO usage (key_id, day, ok, errors, rate_limited) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (key_id, day) DO UPDATE SET ok = ok + excluded.ok,
                     errors = errors + excluded.errors, rate_limited = rate_limited + excluded.rate_limited",
            )
            .map_err(fail)?;
        let days = taken
            .keys
            .iter()
            .flat_map(|(key_id, k)| k.days.iter().map(move |(day, c)| (key_id, day, c)));
        for (key_id, day, c) in days {
            let (ok, errors, limited) = (c.ok as i64, c.errors as i64, c.rate_limited as i64);
            add.execute(params![
                key_id,
                dates::format_date(*day),
                ok,
                errors,
                limited
            ])
            .map_err(fail)?;
        }
        let mut used = tx
            .prepare(
                "INSERT INTO last_used (key_id, at) VALUES (?1, ?2)
                 ON CONFLICT (key_id) DO UPDATE SET at = max(at, excluded.at)",
            )
            .map_err(fail)?;
        for (key_id, key) in &taken.keys {
            used.execute(params![key_id, dates::format_timestamp(key.last_used)])
                .map_err(fail)?;
        }
    }
    tx.commit().map_err(fail)
}

#[path = "usage_shared.rs"]
mod shared;

#[cfg(test)]
#[path = "usage_tests.rs"]
mod tests;
