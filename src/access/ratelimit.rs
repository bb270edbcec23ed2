//! Per-plan request budgets as token buckets kept in memory.
//!
//! A bucket holds up to `per_minute` tokens and refills at `per_minute / 60`
//! tokens a second; each request takes one. Buckets are keyed by API key id, or
//! by client (an IPv4 address, an IPv6 /64) for requests without a valid key,
//! so that guessing keys is as slow as the free plan. Time is passed in, so
//! the arithmetic is testable; access/buckets.rs holds them. With Redis named,
//! keys' buckets live there, one per key for all servers
//! (access/redis/budget.rs); clients' stay here, per server.

use std::cell::Cell;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Instant;

use crate::access::authenticate::Keyless;
pub use crate::access::buckets::Budget;
use crate::access::buckets::{Buckets, REFILL};
use crate::access::redis::budget::SharedBuckets;
use crate::error::ApiError;

/// Requests a minute for callers without a valid key, per client: an IPv4
/// address, or an IPv6 /64.
pub const ANONYMOUS_PER_MINUTE: u32 = 60;
/// The leading bits of an IPv6 address that name one client: a /64 is one
/// subscriber's network, through which it may rotate addresses at will.
const IPV6_CLIENT_BITS: u32 = 64;

/// Who a request without a valid key is counted as; None when the
/// transport knows no address (all such requests share one bucket).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeylessClient(Option<IpAddr>);

impl KeylessClient {
    pub fn of(client: Option<IpAddr>) -> KeylessClient {
        KeylessClient(client.map(|ip| match ip {
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => {
                    let network = u128::from(v6) & (u128::MAX << (128 - IPV6_CLIENT_BITS));
                    IpAddr::V6(Ipv6Addr::from(network))
                }
            },
            v4 => v4,
        }))
    }
}

#[derive(Default)]
pub struct Limiter {
    keyed: Mutex<Buckets<String>>,
    keyless: Mutex<Buckets<KeylessClient>>,
    shared: OnceLock<Arc<SharedBuckets>>,
}

impl Limiter {
    pub fn new() -> Limiter {
        Limiter::default()
    }

    fn keyed(&self) -> MutexGuard<'_, Buckets<String>> {
        self.keyed.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn keyless_buckets(&self) -> MutexGuard<'_, Buckets<KeylessClient>> {
        self.keyless.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes one token from this server's own bucket of key `key_id`.
    pub fn take(&self, key_id: &str, per_minute: u32, now: Instant) -> Budget {
        self.keyed().take(key_id, per_minute, now)
    }

    /// The keyless budget of the client at `client`.
    pub fn keyless(&self, client: Option<IpAddr>) -> KeylessBudget<'_> {
        KeylessBudget {
            limiter: self,
            client: KeylessClient::of(client),
            last: Cell::new(None),
        }
    }

    /// A key's budget as this server last saw it, taking nothing: the
    /// shared bucket's level is mirrored here at each request that takes
    /// from it.
    pub fn peek_key(&self, key_id: &str, per_minute: u32, now: Instant) -> Budget {
        self.keyed().peek(key_id, per_minute, now)
    }

    /// Takes one token from a key's bucket: the one all servers share when
    /// Redis is named and reachable, else this server's own.
    pub fn take_key(&self, key_id: &str, per_minute: u32, now: Instant) -> Budget {
        let Some(shared) = self.shared.get() else {
            return self.take(key_id, per_minute, now);
        };
        if let Some(budget) = shared.take(key_id, per_minute) {
            self.mirror(key_id, per_minute, budget.remaining, now);
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
    fn mirror(&self, key_id: &str, per_minute: u32, tokens: u32, now: Instant) {
        self.keyed().set(key_id, per_minute, tokens, now);
    }

    /// Keys' buckets are kept in Redis from now on (access/redis/budget.rs).
    pub fn share(&self, buckets: Arc<SharedBuckets>) {
        let _ = self.shared.set(buckets);
    }
}

/// One client's budget of requests without a valid key.
pub struct KeylessBudget<'a> {
    limiter: &'a Limiter,
    client: KeylessClient,
    /// What the last take left, for the answer's RateLimit fields.
    last: Cell<Option<Budget>>,
}

impl KeylessBudget<'_> {
    /// The budget as this request's take left it; None if it took none.
    pub fn last(&self) -> Option<Budget> {
        self.last.get()
    }
}

impl Keyless for KeylessBudget<'_> {
    fn take(&self) -> Result<(), ApiError> {
        let budget =
            self.limiter
                .keyless_buckets()
                .take(&self.client, ANONYMOUS_PER_MINUTE, Instant::now());
        self.last.set(Some(budget));
        match budget.retry_after_secs {
            None => Ok(()),
            Some(retry_after_secs) => Err(ApiError::TooManyUnknownKeys { retry_after_secs }),
        }
    }

    fn give_back(&self) {
        self.limiter.keyless_buckets().give_back(
            &self.client,
            ANONYMOUS_PER_MINUTE,
            Instant::now(),
        );
    }
}

impl Budget {
    /// The budget of a bucket of `per_minute` left with `tokens` after a
    /// request that was `allowed` (or not).
    pub fn of(per_minute: u32, tokens: f64, allowed: bool) -> Budget {
        let rate = per_minute as f64 / REFILL.as_secs_f64();
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
    fn peeking_at_a_budget_takes_nothing() {
        let limiter = Limiter::new();
        let t = Instant::now();
        limiter.take("k", 60, t);
        for _ in 0..100 {
            assert_eq!(limiter.peek_key("k", 60, t).remaining, 59);
        }
        for _ in 0..59 {
            limiter.take("k", 60, t);
        }
        let spent = limiter.peek_key("k", 60, t);
        assert_eq!((spent.remaining, spent.retry_after_secs), (0, None));
    }

    #[test]
    fn ipv6_clients_share_a_bucket_per_64_and_ipv4_ones_have_one_each() {
        let ip = |s: &str| KeylessClient::of(Some(s.parse().unwrap()));
        assert_eq!(ip("2001:db8:1:2::1"), ip("2001:db8:1:2:ffff:1:2:3"));
        assert_ne!(ip("2001:db8:1:2::1"), ip("2001:db8:1:3::1"));
        assert_ne!(ip("192.0.2.1"), ip("192.0.2.2"));
        // Mapped IPv4 is IPv4, not one /64 for the whole internet.
        assert_eq!(ip("::ffff:192.0.2.1"), ip("192.0.2.1"));
        assert_ne!(ip("::ffff:192.0.2.1"), ip("::ffff:192.0.2.2"));
    }

    #[test]
    fn a_keyless_token_given_back_is_there_again() {
        let limiter = Limiter::new();
        let keyless = limiter.keyless(Some("192.0.2.1".parse().unwrap()));
        for _ in 0..ANONYMOUS_PER_MINUTE {
            keyless.take().unwrap();
        }
        assert!(matches!(
            keyless.take(),
            Err(ApiError::TooManyUnknownKeys { .. })
        ));
        keyless.give_back();
        assert!(keyless.take().is_ok());
        assert!(keyless.take().is_err());
        assert_eq!(keyless.last().map(|b| b.remaining), Some(0));
    }
}
