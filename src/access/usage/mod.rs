//! Requests per key and per UTC hour, for billing: counted in memory on the
//! request path, and added to the usage file by `flush` every few seconds and
//! at shutdown (docs/operations.md, "Keys").
//!
//! The usage file sits beside the keys file but apart from it, since every
//! change to the keys file makes every server read it again. A flush adds
//! what this server counted since the last one, so servers sharing the file
//! add up. When a flush fails (the file locked, the disk full), its counts go
//! back into memory for the next one; what is waiting is bounded by
//! `MAX_WAITING` key-hours, past which new key-hours are dropped and logged.
//! The file is in WAL mode, so that reading it (`keys usage`, `GET /v1/key`)
//! never waits for a flush, nor a flush for a reader. Counting a request
//! touches memory only, and reading a key's day holds no lock across the
//! file: the counts a flush has taken stay in view (`Flight`) until it has
//! written them or put them back.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use rusqlite::{Connection, params};

use crate::access::AccessError;
use crate::access::redis::conn::Redis;
use crate::access::redis::usage::SharedUsage;
use crate::access::usage::counts::Counts;
use crate::access::usage::counts::NAMES;
use crate::access::usage::report as usage_report;
use crate::dates::{self, SECONDS_PER_HOUR};

/// How often a server adds its counts to the usage file: a kill -9 loses at
/// most this much of them (docs/operations.md, "Keys", promises 10 s).
pub const FLUSH_EVERY: Duration = Duration::from_secs(2);
/// Key-hours waiting in memory at most while the usage file cannot be written.
pub const MAX_WAITING: usize = 100_000;
/// How long a flush waits for another server's flush to end.
pub const BUSY_TIMEOUT: Duration = Duration::from_millis(500);
pub mod counts;
mod file;
pub mod invoice;
pub mod period;
pub mod report;
pub use file::{USAGE_APPLICATION_ID, open_file, usage_path};

/// Counts not yet written, by key, so that counting a key already waiting
/// looks it up by its id without making a string of it.
#[derive(Default)]
struct Waiting {
    keys: HashMap<String, KeyWaiting>,
    /// Hour entries over all keys, which `MAX_WAITING` bounds.
    key_hours: usize,
    dropped: u64,
}

#[derive(Default)]
struct KeyWaiting {
    /// By hour number (hours since 1970-01-01T00, UTC).
    hours: HashMap<i64, Counts>,
    last_used: i64,
}

impl Waiting {
    /// Adds `counts` to `key_id`'s `hour`; past the bound a new key-hour's
    /// requests are dropped and counted instead.
    fn add(&mut self, key_id: &str, hour: i64, counts: Counts, used_at: i64) {
        let full = self.key_hours >= MAX_WAITING;
        if !self.keys.contains_key(key_id) {
            if full {
                self.dropped += counts.total();
                return;
            }
            self.keys.insert(key_id.to_string(), KeyWaiting::default());
        }
        let key = self.keys.get_mut(key_id).expect("inserted above");
        key.last_used = key.last_used.max(used_at);
        match key.hours.get_mut(&hour) {
            Some(c) => c.add(counts),
            None if full => self.dropped += counts.total(),
            None => {
                key.hours.insert(hour, counts);
                self.key_hours += 1;
            }
        }
    }

    fn requests(&self) -> u64 {
        let hours = self.keys.values().flat_map(|k| k.hours.values());
        hours.map(Counts::total).sum()
    }

    /// `key_id`'s counts over the hours of UTC `day`.
    fn of(&self, key_id: &str, day: i64) -> Counts {
        let mut counts = Counts::default();
        let Some(key) = self.keys.get(key_id) else {
            return counts;
        };
        for (_, c) in key.hours.iter().filter(|(h, _)| h.div_euclid(24) == day) {
            counts.add(*c);
        }
        counts
    }
}

/// The counts a flush has taken and not settled yet, so that a reader of a
/// day finds each count in exactly one place: the file, what waits, or here.
#[derive(Default)]
struct Flight {
    taken: Option<Arc<Waiting>>,
    /// The flush is committing: whether the file holds `taken` is not known
    /// until it settles, which takes the commit's own time, never a wait for
    /// another writer (that comes before).
    committing: bool,
    /// Flushes settled (written, or put back): a reader whose read of the
    /// file a flush settled during reads again.
    settled: u64,
}

/// Settles a flight its flush left unsettled by panicking, so that no
/// reader waits for it.
struct Landing<'a>(&'a Usage);

impl Drop for Landing<'_> {
    fn drop(&mut self) {
        let flight = self.0.flight();
        let unsettled = flight.committing || flight.taken.is_some();
        drop(flight);
        if unsettled {
            self.0.settle(None);
        }
    }
}

/// A server's counts not yet in the usage file.
pub struct Usage {
    path: PathBuf,
    waiting: Mutex<Waiting>,
    /// One flush at a time; a reader never takes it.
    flushing: Mutex<()>,
    flight: Mutex<Flight>,
    /// Rung when a flush settles.
    landed: Condvar,
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
            flight: Mutex::new(Flight::default()),
            landed: Condvar::new(),
            shared: OnceLock::new(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Counts one answered request of `key_id`. Never blocks on the file.
    pub fn count(&self, key_id: &str, status: u16, now_unix: i64) {
        let hour = now_unix.div_euclid(SECONDS_PER_HOUR);
        let mut one = Counts::default();
        one.count(status);
        self.lock_waiting().add(key_id, hour, one, now_unix);
    }

    /// Requests counted and not yet written (to the usage file, or Redis):
    /// those waiting and those of a flush under way. Locked in the order
    /// `settle` locks, so that no request is seen in both or in neither.
    pub fn backlog(&self) -> u64 {
        let waiting = self.lock_waiting();
        let flight = self.flight();
        let flying = flight.taken.as_ref().map_or(0, |t| t.requests());
        waiting.requests() + flying
    }

    fn lock_waiting(&self) -> MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn flight(&self) -> MutexGuard<'_, Flight> {
        self.flight.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds what waits to the usage file, in one transaction, waiting up to
    /// `patience` for another writer. On failure the counts wait on in memory
    /// and the error, with how many requests they are, is returned to log.
    pub fn flush(&self, patience: Duration) -> Result<(), AccessError> {
        if let Some((shared, _)) = self.shared.get() {
            return self.flush_shared(shared);
        }
        let _one = self.flushing.lock().unwrap_or_else(|p| p.into_inner());
        let taken = self.take_off();
        let _landing = Landing(self);
        if taken.dropped > 0 {
            log::warn!(
                "usage: {} requests were not counted: {MAX_WAITING} key-hours were already waiting for {}",
                taken.dropped,
                self.path.display()
            );
        }
        if taken.keys.is_empty() {
            self.settle(None);
            return Ok(());
        }
        let committing = || self.flight().committing = true;
        let written = open_file(&self.path, patience)
            .and_then(|mut conn| write(&mut conn, &taken, committing));
        let Err(e) = written else {
            self.settle(None);
            return Ok(());
        };
        let requests = taken.requests();
        self.settle(Some(&taken));
        Err(AccessError::UsageNotWritten {
            requests,
            path: self.path.clone(),
            source: Box::new(e),
        })
    }

    /// Takes what waits for a flush, leaving it in view in the flight.
    fn take_off(&self) -> Arc<Waiting> {
        let mut waiting = self.lock_waiting();
        let taken = Arc::new(std::mem::take(&mut *waiting));
        self.flight().taken = Some(taken.clone());
        taken
    }

    /// Ends the flight: the counts are in the file, or, `failed`, back
    /// among those waiting.
    fn settle(&self, failed: Option<&Waiting>) {
        let mut waiting = self.lock_waiting();
        let mut flight = self.flight();
        if let Some(taken) = failed {
            for (key_id, key) in &taken.keys {
                for (hour, counts) in &key.hours {
                    waiting.add(key_id, *hour, *counts, key.last_used);
                }
            }
        }
        *flight = Flight {
            settled: flight.settled + 1,
            ..Flight::default()
        };
        self.landed.notify_all();
    }

    /// `key_id`'s requests on `day`: those every server has written, and
    /// those counted here and not written yet, each once. The file is read
    /// with no lock held, and read again if a flush settled meanwhile.
    pub fn day(&self, key_id: &str, day: i64) -> Result<Counts, AccessError> {
        if let Some((usage, requests)) = self.shared.get() {
            return Ok(self.day_shared(usage, requests, key_id, day));
        }
        let date = dates::format_date(day);
        loop {
            let before = self.settled();
            let written = usage_report::day(&self.path, key_id, &date)?;
            if let Some(counts) = self.add_unwritten(written, before, key_id, day) {
                return Ok(counts);
            }
        }
    }

    /// Flushes settled so far, once no commit is under way.
    fn settled(&self) -> u64 {
        let mut flight = self.flight();
        while flight.committing {
            flight = self.landed.wait(flight).unwrap_or_else(|p| p.into_inner());
        }
        flight.settled
    }

    /// `written` plus what waits and what is in flight, if no flush has
    /// settled or begun to commit since `before`: else the file read may
    /// hold some of them, and None says to read it again.
    fn add_unwritten(
        &self,
        written: Counts,
        before: u64,
        key_id: &str,
        day: i64,
    ) -> Option<Counts> {
        let waiting = self.lock_waiting();
        let flight = self.flight();
        if flight.committing || flight.settled != before {
            return None;
        }
        let mut counts = written;
        counts.add(waiting.of(key_id, day));
        if let Some(taken) = &flight.taken {
            counts.add(taken.of(key_id, day));
        }
        Some(counts)
    }

    /// `key_id`'s counts of `day` not yet written, of those waiting for a flush.
    pub fn waiting(&self, key_id: &str, day: i64) -> Counts {
        self.lock_waiting().of(key_id, day)
    }
}

/// Adds `taken` in one transaction; `committing` runs just before the commit.
fn write(
    conn: &mut Connection,
    taken: &Waiting,
    committing: impl FnOnce(),
) -> Result<(), AccessError> {
    let tx = conn.transaction()?;
    {
        let added: Vec<String> = NAMES
            .iter()
            .map(|n| format!("{n} = {n} + excluded.{n}"))
            .collect();
        let mut add = tx.prepare(&format!(
            "INSERT INTO usage_hours (key_id, hour, {}) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (key_id, hour) DO UPDATE SET {}",
            NAMES.join(", "),
            added.join(", ")
        ))?;
        let hours = taken
            .keys
            .iter()
            .flat_map(|(key_id, k)| k.hours.iter().map(move |(hour, c)| (key_id, hour, c)));
        for (key_id, hour, c) in hours {
            let [ok, client, limited, server] = c.values().map(|n| n as i64);
            add.execute(params![
                key_id,
                dates::format_hour(*hour),
                ok,
                client,
                limited,
                server
            ])?;
        }
        let mut used = tx.prepare(
            "INSERT INTO last_used (key_id, at) VALUES (?1, ?2)
                 ON CONFLICT (key_id) DO UPDATE SET at = max(at, excluded.at)",
        )?;
        for (key_id, key) in &taken.keys {
            used.execute(params![key_id, dates::format_timestamp(key.last_used)])?;
        }
    }
    committing();
    Ok(tx.commit()?)
}

mod shared;

#[cfg(test)]
mod tests;
