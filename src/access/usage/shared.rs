//! Usage with Redis named: the same counting in memory, with flushes going
//! to Redis in numbered batches (access/redis/usage/) instead of the usage
//! file, and today's counts read from there.

use std::sync::Arc;
use std::time::Duration;

use super::{Counts, MAX_WAITING, Usage};
use crate::access::AccessError;
use crate::access::redis::conn::Redis;
use crate::access::redis::usage::{self as shared, Row, SharedUsage};
use crate::dates;

impl Usage {
    /// Counts go to Redis from now on (access/redis/usage/).
    pub fn share(&self, usage: Arc<SharedUsage>, requests: Arc<Redis>) {
        let _ = self.shared.set((usage, requests));
    }

    /// The last flush, at shutdown: with Redis, what it does not take goes
    /// to this server's spool file for the next start.
    pub fn stop(&self, patience: Duration) -> Result<(), AccessError> {
        let Some((shared, _)) = self.shared.get() else {
            return self.flush(patience);
        };
        self.enqueue_waiting(shared);
        shared.stop()
    }

    /// Adds what waits to Redis in numbered batches (access/redis/usage/).
    /// While earlier batches are not taken, new counts wait here, bounded by
    /// `MAX_WAITING` as without Redis, rather than as ever more batches.
    pub(super) fn flush_shared(&self, shared: &SharedUsage) -> Result<(), AccessError> {
        shared.send_all()?;
        self.enqueue_waiting(shared);
        shared.send_all()
    }

    /// Moves what waits into a new batch.
    fn enqueue_waiting(&self, shared: &SharedUsage) {
        // Taken and queued under one lock: never in neither place when read.
        let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        let taken = std::mem::take(&mut *waiting);
        if taken.dropped > 0 {
            log::warn!(
                "usage: {} requests were not counted: {MAX_WAITING} key-hours were already waiting",
                taken.dropped
            );
        }
        let rows = taken
            .keys
            .iter()
            .flat_map(|(key_id, k)| {
                k.hours.iter().map(move |(hour, c)| Row {
                    key_id: key_id.clone(),
                    period: dates::format_hour(*hour),
                    counts: *c,
                    last_used: k.last_used,
                })
            })
            .collect();
        shared.enqueue(rows);
    }

    /// `day` with Redis: what Redis holds (when it answers in time), what
    /// waits for it, and what is counted here.
    pub(super) fn day_shared(
        &self,
        usage: &SharedUsage,
        requests: &Redis,
        key_id: &str,
        day: i64,
    ) -> Counts {
        let date = dates::format_date(day);
        let mut counts = Counts::default();
        if requests.is_up() {
            match shared::day(requests, key_id, &date) {
                Ok(c) => counts = c,
                Err(why) => requests.down(&why),
            }
        }
        let waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        counts.add(usage.waiting(key_id, &date));
        counts.add(waiting.of(key_id, day));
        counts
    }
}
