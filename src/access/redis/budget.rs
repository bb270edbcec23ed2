//! One token bucket per key for every server, kept in Redis and taken from
//! by a Lua script, so that refilling and taking are one step however many
//! servers ask at once. The bucket behaves as access/ratelimit.rs's; the
//! clock is Redis's (TIME), the one clock every server shares.
//!
//! A round trip per request would cost a busy server a third of its speed,
//! so a server leases tokens: one at a time for plans under
//! `LEASE_FROM_CAPACITY` a minute (every request asks Redis, and the budget is
//! exact), and a thousandth of the capacity at a time above that, served from
//! memory until spent. Leased tokens are taken from the one bucket, so no key
//! gets more than its budget; what a server leased and has not used when a
//! key stops calling (at most a thousandth per worker) is what the key can
//! lose, within the 2% the budget allows (docs/api.md, "Rate limits").
//!
//! When Redis does not answer within `REQUEST_TIMEOUT`, or is known to be
//! down, the caller falls back to this server's own bucket (`None`); the
//! requests it lets through meanwhile are owed, and taken from the shared
//! bucket by the key's next request once Redis answers, so that a key is
//! over its budget only while Redis is away.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::conn::Redis;
use super::invalid_values::Kind;
use crate::access::buckets::Budget;

/// Buckets' key prefix; each holds its tokens and when they were counted (ms).
const BUCKET: &str = "area:bucket:";

/// Below this many requests a minute, tokens are leased one at a time.
const LEASE_FROM_CAPACITY: u32 = 1000;
/// Above it, a lease is this fraction of the capacity.
const LEASE_SHARE: u32 = 1000;

/// KEYS[1] the bucket, ARGV[1] the requests a minute, ARGV[2] the tokens
/// wanted, ARGV[3] the tokens owed (taken first, down to a minute's debt at
/// most). Returns how many were granted (none when fewer than one is left),
/// the tokens left, as text (Lua numbers would be cut to integers), and 1
/// when the bucket held was not tokens and a time (it starts full again).
/// An idle bucket expires once it would be full again.
const TAKE: &str = r#"
local capacity = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = capacity / 60000
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = capacity
local bad = 0
if held[1] or held[2] then
  local h, at = tonumber(held[1]), tonumber(held[2])
  if h and at and h == h and at == at then
    tokens = math.max(-capacity, math.min(capacity, h + math.max(0, now - at) * rate))
  else
    bad = 1
  end
end
tokens = math.max(-capacity, tokens - tonumber(ARGV[3]))
local granted = math.min(tonumber(ARGV[2]), math.floor(tokens))
if granted >= 1 then
  tokens = tokens - granted
else
  granted = 0
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / rate) + 1000)
return {granted, string.format('%.6f', tokens), bad}
"#;

/// Tokens a server holds of a key's bucket.
struct Lease {
    per_minute: u32,
    tokens: u32,
    /// The bucket's tokens in Redis when this lease was granted.
    left_there: f64,
}

pub struct SharedBuckets {
    redis: Arc<Redis>,
    script: redis::Script,
    leases: Mutex<HashMap<String, Lease>>,
    /// Requests let through by this server's own bucket while Redis was away.
    owed: Mutex<HashMap<String, u32>>,
    /// Requests limited by this server's own bucket because Redis was away.
    pub fallbacks: AtomicU64,
}

impl SharedBuckets {
    pub fn new(redis: Arc<Redis>) -> SharedBuckets {
        SharedBuckets {
            redis,
            script: redis::Script::new(TAKE),
            leases: Mutex::new(HashMap::new()),
            owed: Mutex::new(HashMap::new()),
            fallbacks: AtomicU64::new(0),
        }
    }

    /// Takes one token from `key_id`'s shared bucket, from this server's
    /// lease when it holds one; None when Redis is away.
    pub fn take(&self, key_id: &str, per_minute: u32) -> Option<Budget> {
        if let Some(budget) = self.take_leased(key_id, per_minute) {
            return Some(budget);
        }
        let want = lease_size(per_minute);
        let owed = self
            .owed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(key_id);
        let bucket = format!("{BUCKET}{key_id}");
        let taken = self.redis.call_if_up(|c| {
            self.script
                .key(&bucket)
                .arg(per_minute)
                .arg(want)
                .arg(owed.unwrap_or(0))
                .invoke::<(u32, String, u8)>(c)
        });
        let Some((granted, left, bad)) = taken else {
            if let Some(n) = owed {
                let mut owed = self.owed.lock().unwrap_or_else(|p| p.into_inner());
                let now = owed.entry(key_id.into()).or_default();
                *now = now.saturating_add(n);
            }
            self.fallbacks.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        if bad != 0 {
            let why = "not tokens and a time; the bucket starts full again";
            self.redis.invalid_values.found(Kind::Bucket, &bucket, why);
        }
        let left = left.parse::<f64>().unwrap_or(0.0);
        if granted == 0 {
            return Some(Budget::of(per_minute, left, false));
        }
        let mut leases = self.leases.lock().unwrap_or_else(|p| p.into_inner());
        let lease = leases.entry(key_id.to_string()).or_insert(Lease {
            per_minute,
            tokens: 0,
            left_there: left,
        });
        if lease.per_minute != per_minute {
            lease.tokens = 0;
        }
        lease.per_minute = per_minute;
        // Saturating: a grant is never more than asked, but it is Redis's word.
        lease.tokens = lease.tokens.saturating_add(granted.saturating_sub(1));
        lease.left_there = left;
        Some(Budget::of(per_minute, left + lease.tokens as f64, true))
    }

    /// One request let through by this server's own bucket.
    pub fn owe(&self, key_id: &str) {
        let mut owed = self.owed.lock().unwrap_or_else(|p| p.into_inner());
        match owed.get_mut(key_id) {
            Some(n) => *n = n.saturating_add(1),
            None => {
                owed.insert(key_id.to_string(), 1);
            }
        }
    }

    fn take_leased(&self, key_id: &str, per_minute: u32) -> Option<Budget> {
        let mut leases = self.leases.lock().unwrap_or_else(|p| p.into_inner());
        let lease = leases.get_mut(key_id)?;
        if lease.tokens == 0 || lease.per_minute != per_minute {
            return None;
        }
        lease.tokens -= 1;
        Some(Budget::of(
            per_minute,
            lease.left_there + lease.tokens as f64,
            true,
        ))
    }
}

/// Tokens to ask for at once: one for small plans, a thousandth above.
fn lease_size(per_minute: u32) -> u32 {
    if per_minute < LEASE_FROM_CAPACITY {
        1
    } else {
        per_minute / LEASE_SHARE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_plans_ask_redis_for_every_request_and_large_ones_lease() {
        assert_eq!(lease_size(60), 1);
        assert_eq!(lease_size(999), 1);
        assert_eq!(lease_size(3000), 3);
        assert_eq!(lease_size(1_000_000), 1000);
    }
}
