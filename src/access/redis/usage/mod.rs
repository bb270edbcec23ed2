//! Usage in Redis: each server's counts added every few seconds, each flush
//! exactly once, and read back for `keys usage`, `keys list` and `GET /v1/key`.
//!
//! A flush is a batch with this server's id and a sequence number; the
//! script applies a batch only if its number is above the last one applied
//! for that server. A batch that timed out is sent again, unchanged, until
//! Redis answers, so one that arrived late is not counted twice. Batches
//! Redis could not take by shutdown go to this server's spool file (0600)
//! beside the keys file's place (access/redis/spools.rs), sent by the next
//! start, or by a running server once Redis answers, under their own ids and
//! numbers.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

pub use super::batch::{Batch, Row};
use super::conn::Redis;
use super::spools::{Found, Spools};
use crate::access::AccessError;
use crate::access::usage::counts::Counts;

pub(super) const FLUSHED: &str = "area:usage:flushed";
pub(super) const USAGE: &str = "area:usage";
pub(super) const LAST_USED: &str = "area:usage:last_used";

/// KEYS: the last batch applied per server, the counts, the last-used times.
/// ARGV: server id, batch number, then rows of key, hour (or day), ok,
/// client_errors, rate_limited, server_errors, last used (unix seconds).
/// Each count is the field `key|hour|name`; builds that counted per day
/// wrote `key|day|errors` too, which is read as client errors.
const FLUSH: &str = r#"
local done = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) <= done then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
for i = 3, #ARGV, 7 do
  local field = ARGV[i] .. '|' .. ARGV[i + 1] .. '|'
  local names = {'ok', 'client_errors', 'rate_limited', 'server_errors'}
  for j = 1, 4 do
    if ARGV[i + 1 + j] ~= '0' then
      redis.call('HINCRBY', KEYS[2], field .. names[j], ARGV[i + 1 + j])
    end
  end
  local used = tonumber(redis.call('HGET', KEYS[3], ARGV[i]) or '0')
  if tonumber(ARGV[i + 6]) > used then
    redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 6])
  end
end
return 1
"#;

/// One key's requests of one day in a batch.
/// Sends one batch; Ok(false) when it had been applied already.
pub fn send(redis: &Redis, batch: &Batch) -> Result<bool, AccessError> {
    let script = redis::Script::new(FLUSH);
    let mut call = script.key(FLUSHED);
    call.key(USAGE)
        .key(LAST_USED)
        .arg(&batch.server)
        .arg(batch.seq);
    for r in &batch.rows {
        call.arg(&r.key_id).arg(&r.period);
        for n in r.counts.values() {
            call.arg(n);
        }
        call.arg(r.last_used);
    }
    Ok(redis.call(|c| call.invoke::<i64>(c))? == 1)
}

/// A server's batches not yet taken by Redis.
pub struct SharedUsage {
    redis: Arc<Redis>,
    server: String,
    next_seq: Mutex<u64>,
    queue: Mutex<VecDeque<Batch>>,
    /// Held by one flush at a time while it sends.
    sending: Mutex<()>,
    spools: Spools,
}

impl SharedUsage {
    /// Starts with the batches of every spool in the folder that no live
    /// server holds; what was found is in the returned `Found`.
    pub fn new(redis: Arc<Redis>, spools: Spools) -> Result<(SharedUsage, Found), AccessError> {
        let mut found = spools.take_all();
        let queue = std::mem::take(&mut found.batches).into();
        let usage = SharedUsage {
            redis,
            server: format!("srv_{}", crate::access::keys::new_key()?.0),
            next_seq: Mutex::new(1),
            queue: Mutex::new(queue),
            sending: Mutex::new(()),
            spools,
        };
        Ok((usage, found))
    }

    /// Queues `rows` as a new batch, numbered after the last.
    pub fn enqueue(&self, rows: Vec<Row>) {
        if rows.is_empty() {
            return;
        }
        let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        let mut seq = self.next_seq.lock().unwrap_or_else(|p| p.into_inner());
        queue.push_back(Batch {
            server: self.server.clone(),
            seq: *seq,
            rows,
        });
        *seq += 1;
    }

    /// Sends every batch waiting, oldest first, and stops at the first Redis
    /// does not take. Once all are in, takes the spools other servers left
    /// in the folder meanwhile and sends those too. The queue is not held
    /// while Redis is asked, so that requests reading it never wait for Redis.
    pub fn send_all(&self) -> Result<(), AccessError> {
        let _one = self.sending.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let front = self
                .queue
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .front()
                .cloned();
            let Some(batch) = front else {
                let found = self.spools.take_all();
                say(&found);
                if found.batches.is_empty() {
                    break;
                }
                let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
                queue.extend(found.batches);
                continue;
            };
            if let Err(e) = send(&self.redis, &batch) {
                let queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
                let requests: u64 = queue.iter().map(requests).sum();
                return Err(AccessError::UsageNotSent {
                    requests,
                    source: Box::new(e),
                });
            }
            self.queue
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .pop_front();
        }
        self.spools.sent();
        Ok(())
    }

    /// Batches waiting for Redis (at start: those of the spools).
    pub fn batches(&self) -> usize {
        self.queue.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// The last send, at shutdown: what Redis does not take goes to this
    /// server's spool (0600) for the next start, of whichever server.
    pub fn stop(&self) -> Result<(), AccessError> {
        let done = self.send_all().or_else(|why| {
            log::warn!("{why}");
            self.spool()
        });
        self.spools.release();
        done
    }

    /// Writes the batches Redis did not take to this server's spool (0600).
    fn spool(&self) -> Result<(), AccessError> {
        let queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        self.spools.write(&queue.iter().collect::<Vec<_>>())?;
        log::warn!(
            "usage of {} requests written to {}, to be added to Redis by the next start",
            queue.iter().map(requests).sum::<u64>(),
            self.spools.path().display()
        );
        Ok(())
    }

    /// `key_id`'s counts of UTC `day` (`YYYY-MM-DD`) sent but not yet
    /// taken by Redis: its hours', and the day's own in an old spool.
    pub fn waiting(&self, key_id: &str, day: &str) -> Counts {
        let queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        let mut counts = Counts::default();
        for r in queue.iter().flat_map(|b| &b.rows) {
            if r.key_id == key_id && r.period.split('T').next() == Some(day) {
                counts.add(r.counts);
            }
        }
        counts
    }
}

fn requests(b: &Batch) -> u64 {
    b.rows.iter().map(|r| r.counts.total()).sum()
}

/// Logs what a look through the folder found while serving.
fn say(found: &Found) {
    for why in &found.errors {
        log::error!("{why}");
    }
    for file in &found.files {
        log::info!(
            "usage: the spool {} is taken by this server, to be added to Redis",
            file.display()
        );
    }
}

mod read;
pub use read::{day, rows, summary};

/// Usage in Redis: rows, spools and snapshots.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::redis::instance::Place;
    use crate::access::redis::url::RedisUrl;
    use std::os::unix::fs::PermissionsExt;
    use std::time::Duration;

    fn row(key: &str, ok: u64) -> Row {
        Row {
            key_id: key.into(),
            period: "2026-11-26T09".into(),
            counts: Counts {
                ok,
                rate_limited: 1,
                ..Counts::default()
            },
            last_used: 1_764_115_200,
        }
    }

    #[test]
    fn batches_redis_does_not_take_wait_in_order_and_spool_privately() {
        let dir = std::env::temp_dir().join(format!("area-spool-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let place = Place::new(&dir.join("keys.db"), "a".into());
        let spool = place.spool();
        // Nothing listens on port 1: every send fails at once.
        let away = RedisUrl::parse("redis://127.0.0.1:1").unwrap();
        let redis = Arc::new(Redis::new(&away, Duration::from_millis(200)).unwrap());
        let (usage, _) =
            SharedUsage::new(redis.clone(), Spools::open(place.clone()).unwrap()).unwrap();
        usage.enqueue(vec![row("key_a", 3)]);
        usage.enqueue(Vec::new());
        usage.enqueue(vec![row("key_a", 2), row("key_b", 1)]);
        assert_eq!(usage.batches(), 2, "an empty flush makes no batch");
        let why = usage.send_all().unwrap_err();
        assert!(
            matches!(why, AccessError::UsageNotSent { requests: 9, .. }),
            "{why}"
        );
        assert_eq!(usage.waiting("key_a", "2026-11-26").ok, 5);
        usage.stop().unwrap();
        let mode = std::fs::metadata(&spool).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let (next, found) = SharedUsage::new(redis, Spools::open(place).unwrap()).unwrap();
        assert_eq!(found.files, [spool]);
        assert_eq!(next.batches(), 2);
        let queue = next.queue.lock().unwrap();
        assert_eq!(
            queue.iter().map(|b| b.seq).collect::<Vec<_>>(),
            [1, 2],
            "each batch keeps its number, so Redis applies it once"
        );
        assert!(queue.iter().all(|b| b.server == usage.server));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
