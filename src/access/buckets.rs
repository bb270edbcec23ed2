//! Token buckets held in memory, one per caller of whatever kind a limiter
//! counts (key ids, clients without a key), forgetting idle ones in
//! constant time; and what a request learns from a bucket (`Budget`), which
//! the buckets kept in Redis answer too (redis/budget.rs).
//!
//! Every bucket refills from empty in `REFILL`, whatever its plan, so one
//! left alone that long is full, and forgetting it changes nothing. Buckets
//! therefore live in two generations: those touched since the last turn, and
//! those touched in the one before. At each turn, every `REFILL`, the older
//! generation is dropped whole and the newer becomes the older; a bucket
//! found in the older generation moves to the newer. No request scans the
//! map, however many callers there are. A generation that reaches
//! `MAX_PER_GENERATION` turns early, which bounds memory: those callers come
//! back to a full bucket, never to a smaller one.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::time::{Duration, Instant};

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

/// How long an empty bucket takes to fill: budgets are per minute.
pub const REFILL: Duration = Duration::from_secs(60);
/// Buckets one generation holds at most (some tens of MB at the most).
pub const MAX_PER_GENERATION: usize = 250_000;

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    /// Refills for the time since it was last touched, up to `per_minute`.
    fn refill(&mut self, per_minute: u32, now: Instant) {
        let rate = per_minute as f64 / REFILL.as_secs_f64();
        let refilled = self.tokens + now.saturating_duration_since(self.at).as_secs_f64() * rate;
        self.tokens = refilled.min(per_minute as f64);
        self.at = now;
    }
}

pub struct Buckets<K> {
    newer: HashMap<K, Bucket>,
    older: HashMap<K, Bucket>,
    turned: Option<Instant>,
    max_per_generation: usize,
}

impl<K: Hash + Eq> Default for Buckets<K> {
    fn default() -> Buckets<K> {
        Buckets::with_max(MAX_PER_GENERATION)
    }
}

impl<K: Hash + Eq> Buckets<K> {
    fn with_max(max_per_generation: usize) -> Buckets<K> {
        Buckets {
            newer: HashMap::new(),
            older: HashMap::new(),
            turned: None,
            max_per_generation,
        }
    }

    /// Takes one token from `who`'s bucket of `per_minute`, if there is one.
    pub fn take<Q>(&mut self, who: &Q, per_minute: u32, now: Instant) -> Budget
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        let bucket = self.bucket(who, per_minute, now);
        let allowed = bucket.tokens >= 1.0;
        if allowed {
            bucket.tokens -= 1.0;
        }
        Budget::of(per_minute, bucket.tokens, allowed)
    }

    /// What `who`'s bucket of `per_minute` holds, taking nothing.
    pub fn peek<Q>(&mut self, who: &Q, per_minute: u32, now: Instant) -> Budget
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        let bucket = self.bucket(who, per_minute, now);
        Budget::of(per_minute, bucket.tokens, true)
    }

    /// Gives one token back to `who`'s bucket, up to its capacity.
    pub fn give_back<Q>(&mut self, who: &Q, per_minute: u32, now: Instant)
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        let bucket = self.bucket(who, per_minute, now);
        bucket.tokens = (bucket.tokens + 1.0).min(per_minute as f64);
    }

    /// Sets `who`'s bucket of `per_minute` to `tokens`.
    pub fn set<Q>(&mut self, who: &Q, per_minute: u32, tokens: u32, now: Instant)
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        let bucket = self.bucket(who, per_minute, now);
        bucket.tokens = tokens as f64;
    }

    /// Buckets held, in both generations.
    pub fn len(&self) -> usize {
        self.newer.len() + self.older.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `who`'s bucket, refilled to `now`: in the newer generation, moved
    /// there from the older, or new and full.
    fn bucket<Q>(&mut self, who: &Q, per_minute: u32, now: Instant) -> &mut Bucket
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        self.turn_if_due(now);
        if !self.newer.contains_key(who) {
            let bucket = self.older.remove(who).unwrap_or(Bucket {
                tokens: per_minute as f64,
                at: now,
            });
            self.newer.insert(who.to_owned(), bucket);
        }
        let bucket = self.newer.get_mut(who).expect("inserted above");
        bucket.refill(per_minute, now);
        bucket
    }

    /// Drops the older generation once every bucket in it is full again,
    /// or early when the newer one is at its bound.
    fn turn_if_due(&mut self, now: Instant) {
        let turned = *self.turned.get_or_insert(now);
        if now.saturating_duration_since(turned) >= REFILL
            || self.newer.len() >= self.max_per_generation
        {
            self.older = std::mem::take(&mut self.newer);
            self.turned = Some(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_buckets_are_forgotten_a_refill_after_and_busy_ones_kept() {
        let mut buckets: Buckets<String> = Buckets::default();
        let t = Instant::now();
        for i in 0..1000 {
            buckets.take(&format!("ip{i}"), 60, t);
        }
        buckets.take("busy", 60, t + REFILL / 2);
        assert_eq!(buckets.len(), 1001, "nothing is full yet, nothing goes");
        buckets.take("other", 60, t + REFILL);
        assert_eq!(buckets.len(), 1002, "the older generation is kept a while");
        buckets.take("other", 60, t + REFILL * 2);
        assert_eq!(buckets.len(), 1, "all but the last touched are full: gone");
    }

    #[test]
    fn a_bucket_in_the_older_generation_keeps_its_level() {
        let mut buckets: Buckets<String> = Buckets::default();
        let t = Instant::now();
        buckets.take("other", 60, t);
        let spent = t + REFILL / 2;
        for _ in 0..60 {
            buckets.take("k", 60, spent);
        }
        // Another caller turns the generations: "k" is in the older one.
        buckets.take("other", 60, t + REFILL);
        // 31 s after it was spent, 31 tokens are back, one is taken: a
        // forgotten bucket would say 59.
        let budget = buckets.take("k", 60, spent + Duration::from_secs(31));
        assert_eq!(budget.remaining, 30);
    }

    #[test]
    fn a_full_generation_turns_early_so_memory_is_bounded() {
        let mut buckets: Buckets<u32> = Buckets::with_max(100);
        let t = Instant::now();
        for i in 0..1000 {
            buckets.take(&i, 60, t);
        }
        assert!(buckets.len() <= 200, "{} held", buckets.len());
    }
}
