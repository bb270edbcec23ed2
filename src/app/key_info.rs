//! `GET /v1/key`: what a key holder may know of their own key: its id, plan,
//! rate limit and what is left of it, and today's requests so far (docs/api.md,
//! "The calling key"). The browser pages read the plan from it.

use serde::Serialize;

use super::http::Response;
use crate::access::keys::Caller;
use crate::access::ratelimit::Budget;
use crate::access::usage::Usage;
use crate::dates;

#[derive(Serialize)]
struct KeyInfo<'a> {
    key_id: &'a str,
    plan: &'static str,
    rate_limit: RateLimit,
    usage_today: UsageToday,
}

/// Both null on an unlimited plan.
#[derive(Serialize)]
struct RateLimit {
    requests_per_minute: Option<u32>,
    remaining: Option<u32>,
}

#[derive(Serialize)]
struct UsageToday {
    day: String,
    ok: u64,
    errors: u64,
    rate_limited: u64,
}

/// The answer, with this request's budget already taken. Today's counts are
/// every server's, as written to the usage file, plus what this server has
/// not written yet; this request itself is counted once it is answered.
pub fn answer(caller: &Caller, budget: Option<&Budget>, usage: &Usage) -> Response {
    let today = dates::today();
    let day = dates::format_date(today);
    // Unreadable, the file's part is left out and logged: the counts of this
    // server are still true, and the key's plan and limit matter more.
    let counts = usage.day(&caller.key_id, today).unwrap_or_else(|e| {
        log::warn!("usage not read for GET /v1/key: {e}");
        usage.waiting(&caller.key_id, today)
    });
    let body = KeyInfo {
        key_id: &caller.key_id,
        plan: caller.plan.name(),
        rate_limit: RateLimit {
            requests_per_minute: budget.map(|b| b.limit),
            remaining: budget.map(|b| b.remaining),
        },
        usage_today: UsageToday {
            day,
            ok: counts.ok,
            errors: counts.errors(),
            rate_limited: counts.rate_limited,
        },
    };
    let mut response = Response::ok(&body);
    // Changes with every request: a cached copy would be wrong at once.
    response.headers.push(("Cache-Control", "no-store".into()));
    response
}
