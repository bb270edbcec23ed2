//! Per-plan request budgets as token buckets kept in memory.
//!
//! A bucket holds up to `per_minute` tokens and refills at `per_minute / 60`
//! tokens a second; each request takes one. Buckets are keyed by API key id, or
//! by client address for requests without a valid key, so that guessing keys is
//! as slow as the free plan. Time is passed in, so the arithmetic is testable.
//! With Redis named, keys' buckets live there, one per key for all servers
//! (access/redis/budget.rs); addresses' stay here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::access::redis::budget::SharedBuckets;
use std::time::Instant;

/// What a request learns from its bucket, for the X-RateLimit-* headers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    pub limit: u32,
    pub remaining: u32,
    /// Whole seconds until the bucket is full again.
    pub reset_secs: u64,
    /// None when the request may go ahead; else whole seconds until one token is back.
    pub retry_after_secs: Option<u64>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Requests a minute for callers without a valid key, per client address.
pub const ANONYMOUS_PER_MINUTE: u32 = 60;
/// Above this many buckets, full ones (idle callers) are forgotten.
const SWEEP_ABOVE: usize = 10_000;

#[derive(Default)]
pub struct Limiter {
    buckets: Mutex<HashMap<String, Bucket>>,
    shared: OnceLock<Arc<SharedBuckets>>,
}

impl Limiter {
    pub fn new() -> Limiter {
        Limiter::default()
    }

    /// Takes one token from `who`'s bucket of `per_minute`, if there is one.
    pub fn take(&self, who: &str, per_minute: u32, now: Instant) -> Budget {
        let rate = per_minute as f64 / 60.0;
        let capacity = per_minute as f64;
        let mut buckets = self
            .buckets
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if buckets.len() > SWEEP_ABOVE {
            buckets.retain(|_, b| {
                b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * rate < capacity
            });
        }
        let bucket = buckets.entry(who.to_string()).or_insert(Bucket {
            tokens: capacity,
            at: now,
        });
        let refilled =
            bucket.tokens + now.saturating_duration_since(bucket.at).as_secs_f64() * rate;
        bucket.tokens = refilled.min(capacity);
        bucket.at = now;
        let allowed = bucket.tokens >= 1.0;
        if allowed {
            bucket.tokens -= 1.0;
        }
        Budget::of(per_minute, bucket.tokens, allowed)
    }

    /// Takes one token from a key's bucket: the one all servers share when
    /// Redis is named and reachable, else this server's own.
    pub fn take_key(&self, key_id: &str, per_minute: u32, now: Instant) -> Budget {
        let Some(shared) = self.shared.get() else {
            return self.take(key_id, per_minute, now);
        };
        if let Some(budget) = shared.take(key_id, per_minute) {
            self.mirror(key_id, budget.remaining, now);
            return budget;
        }
        let budget = self.take(key_id, per_minute, now);
        if budget.retry_after_secs.is_none() {
            // Taken from the shared bucket once Redis is back.
            shared.owe(key_id);
        }
        budget
    }

    /// Keeps this server's bucket of a key at the shared one's level, so that
    /// when Redis goes away the key goes on from where it was, not from a
    /// full bucket on every server.
    fn mirror(&self, key_id: &str, tokens: u32, now: Instant) {
        let mut buckets = self
            .buckets
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let bucket = Bucket {
            tokens: tokens as f64,
            at: now,
        };
        match buckets.get_mut(key_id) {
            Some(b) => *b = bucket,
            None => {
                buckets.insert(key_id.to_string(), bucket);
            }
        }
    }

    /// Keys' buckets are kept in Redis from now on (access/redis/budget.rs).
    pub fn share(&self, buckets: Arc<SharedBuckets>) {
        let _ = self.shared.set(buckets);
    }
}

impl Budget {
    /// The budget of a bucket of `per_minute` left with `tokens` after a
    /// request that was `allowed` (or not).
    pub fn of(per_minute: u32, tokens: f64, allowed: bool) -> Budget {
        let rate = per_minute as f64 / 60.0;
        Budget {
            limit: per_minute,
            remaining: tokens.floor().max(0.0) as u32,
            reset_secs: ((per_minute as f64 - tokens) / rate).ceil().max(0.0) as u64,
            retry_after_secs: (!allowed).then(|| ((1.0 - tokens) / rate).ceil().max(1.0) as u64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_full_bucket_allows_its_limit_then_refuses() {
        let limiter = Limiter::new();
        let t = Instant::now();
        for i in 0..60 {
            let b = limiter.take("k", 60, t);
            assert_eq!(b.retry_after_secs, None, "request {i}");
            assert_eq!(b.remaining, 59 - i);
        }
        let refused = limiter.take("k", 60, t);
        assert_eq!(refused.retry_after_secs, Some(1));
        assert_eq!(refused.remaining, 0);
        assert_eq!(refused.reset_secs, 60);
        // Other callers have their own bucket.
        assert_eq!(limiter.take("other", 60, t).retry_after_secs, None);
    }

    #[test]
    fn tokens_come_back_at_the_plan_rate() {
        let limiter = Limiter::new();
        let t = Instant::now();
        for _ in 0..600 {
            limiter.take("k", 600, t);
        }
        assert!(limiter.take("k", 600, t).retry_after_secs.is_some());
        // 600 a minute is 10 a second: after 1 s, ten more.
        let later = t + Duration::from_secs(1);
        for _ in 0..10 {
            assert_eq!(limiter.take("k", 600, later).retry_after_secs, None);
        }
        assert!(limiter.take("k", 600, later).retry_after_secs.is_some());
        let full = limiter.take("k", 600, later + Duration::from_secs(120));
        assert_eq!((full.remaining, full.reset_secs), (599, 1));
    }

    #[test]
    fn idle_buckets_are_swept_when_there_are_many() {
        let limiter = Limiter::new();
        let t = Instant::now();
        for i in 0..=SWEEP_ABOVE {
            limiter.take(&format!("ip{i}"), 60, t);
        }
        limiter.take("late", 60, t + Duration::from_secs(120));
        assert!(limiter.buckets.lock().unwrap().len() < 10);
    }
}
