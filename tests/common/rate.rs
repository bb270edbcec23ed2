//! Spending a rate-limit budget: sending until the first 429, and reading the
//! X-RateLimit-* headers (docs/api.md "Rate limits").

use std::time::{Duration, Instant};

use super::client::Reply;

/// Sends `send` until the first 429 (at most `cap` requests) and returns the
/// answers and how long that took. Tokens refill while we send (one a second
/// for 60/min), so callers allow for the elapsed time rather than assume none.
pub fn until_429(mut send: impl FnMut() -> Reply, cap: usize) -> (Vec<Reply>, Duration) {
    let started = Instant::now();
    let mut replies = Vec::new();
    for _ in 0..cap {
        let r = send();
        let done = r.status == 429;
        replies.push(r);
        if done {
            break;
        }
    }
    (replies, started.elapsed())
}

/// (X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset); panics
/// naming the header that is missing.
pub fn rate_headers(r: &Reply) -> (u32, u32, u64) {
    let num = |n: &str| {
        r.header(n)
            .unwrap_or_else(|| panic!("{n} missing on {}", r.status))
    };
    (
        num("X-RateLimit-Limit").parse().unwrap(),
        num("X-RateLimit-Remaining").parse().unwrap(),
        num("X-RateLimit-Reset").parse().unwrap(),
    )
}
