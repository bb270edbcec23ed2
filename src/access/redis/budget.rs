//! One token bucket per key for every server, kept in Redis and taken from
//! by a Lua script, so that refilling and taking are one step however many
//! servers ask at once. The bucket behaves as access/ratelimit.rs's; the
//! clock is Redis's (TIME), the one clock every server shares.
//!
//! When Redis does not answer within `REQUEST_TIMEOUT`, or is known to be
//! down, the caller falls back to this server's own bucket (`None`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::conn::Redis;
use crate::access::ratelimit::Budget;

/// Buckets' key prefix; each holds its tokens and when they were counted (ms).
const BUCKET: &str = "area:bucket:";

/// KEYS[1] the bucket, ARGV[1] the requests a minute. Returns whether the
/// request may go ahead and the tokens left, as text (Lua numbers would be
/// cut to integers). An idle bucket expires once it would be full again.
const TAKE: &str = r#"
local capacity = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = capacity / 60000
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = capacity
if held[1] then
  tokens = math.min(capacity, tonumber(held[1]) + math.max(0, now - tonumber(held[2])) * rate)
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / rate) + 1000)
return {allowed, string.format('%.6f', tokens)}
"#;

pub struct SharedBuckets {
    redis: Arc<Redis>,
    script: redis::Script,
    /// Requests limited by this server's own bucket because Redis was away.
    pub fallbacks: AtomicU64,
}

impl SharedBuckets {
    pub fn new(redis: Arc<Redis>) -> SharedBuckets {
        SharedBuckets {
            redis,
            script: redis::Script::new(TAKE),
            fallbacks: AtomicU64::new(0),
        }
    }

    /// Takes one token from `key_id`'s shared bucket; None when Redis is away.
    pub fn take(&self, key_id: &str, per_minute: u32) -> Option<Budget> {
        let taken = self.redis.call_if_up(|c| {
            self.script
                .key(format!("{BUCKET}{key_id}"))
                .arg(per_minute)
                .invoke::<(i64, String)>(c)
        });
        match taken {
            Some((allowed, tokens)) => {
                let tokens = tokens.parse::<f64>().unwrap_or(0.0);
                Some(Budget::of(per_minute, tokens, allowed == 1))
            }
            None => {
                self.fallbacks.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }
}
