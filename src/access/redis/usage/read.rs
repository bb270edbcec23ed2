//! Usage in Redis read back: `keys usage`'s rows, `keys list`'s summary,
//! and one key's day for `GET /v1/key` (mod.rs writes what they read).
//! Each count is a field `key|period|name` of one hash, the period an hour
//! `YYYY-MM-DDTHH`, or a day `YYYY-MM-DD` from builds that counted per day.

use std::collections::HashMap;

use redis::Commands;

use super::{LAST_USED, USAGE};
use crate::access::AccessError;
use crate::access::redis::conn::Redis;
use crate::access::usage::counts::{Counts, NAMES};
use crate::access::usage::report::UsageRow;
use crate::dates;

/// Adds `n` to the count `name` of `counts`; `errors`, written by builds
/// that counted per day, is client errors.
fn add_named(counts: &mut Counts, name: &str, n: u64) {
    match name {
        "ok" => counts.ok += n,
        "errors" | "client_errors" => counts.client_errors += n,
        "rate_limited" => counts.rate_limited += n,
        "server_errors" => counts.server_errors += n,
        _ => {}
    }
}

/// Every (key, hour or day) with its counts.
fn all(redis: &Redis) -> Result<HashMap<(String, String), Counts>, AccessError> {
    let fields: HashMap<String, u64> = redis.call(|c| c.hgetall(USAGE))?;
    let mut out: HashMap<(String, String), Counts> = HashMap::new();
    for (field, n) in fields {
        let mut parts = field.splitn(3, '|');
        let (Some(key), Some(period), Some(name)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        add_named(out.entry((key.into(), period.into())).or_default(), name, n);
    }
    Ok(out)
}

/// `keys usage`: rows of the UTC days `from` to `to` (inclusive), by key
/// then period.
pub fn rows(
    redis: &Redis,
    from: &str,
    to: &str,
    key: Option<&str>,
) -> Result<Vec<UsageRow>, AccessError> {
    // An hour `2026-11-30T23` sorts after its day and before the next.
    let until = format!("{to}U");
    let mut rows: Vec<UsageRow> = all(redis)?
        .into_iter()
        .filter(|((k, period), _)| {
            period.as_str() >= from && *period < until && key.is_none_or(|want| want == k)
        })
        .map(|((key_id, period), counts)| UsageRow {
            key_id,
            period,
            counts,
        })
        .collect();
    rows.sort_by(|a, b| (&a.key_id, &a.period).cmp(&(&b.key_id, &b.period)));
    Ok(rows)
}

/// `keys list`: each key's last-used time and its requests from `since` on.
pub fn summary(
    redis: &Redis,
    since: &str,
) -> Result<HashMap<String, (Option<String>, u64)>, AccessError> {
    let mut out: HashMap<String, (Option<String>, u64)> = HashMap::new();
    for ((key, period), c) in all(redis)? {
        if period.as_str() >= since {
            out.entry(key).or_default().1 += c.total();
        }
    }
    let used: HashMap<String, i64> = redis.call(|c| c.hgetall(LAST_USED))?;
    for (key, at) in used {
        out.entry(key).or_default().0 = Some(dates::format_timestamp(at));
    }
    Ok(out)
}

/// One key's counts of one UTC day (`YYYY-MM-DD`), as every server has
/// added them so far: its hours', and the day's own from builds that
/// counted per day.
pub fn day(redis: &Redis, key_id: &str, day: &str) -> Result<Counts, AccessError> {
    let mut fields: Vec<(String, &str)> = Vec::new();
    for hour in 0..24 {
        for name in NAMES {
            fields.push((format!("{key_id}|{day}T{hour:02}|{name}"), name));
        }
    }
    // A whole day: written as `errors` by a build that counted per day, or
    // sent under today's names from such a build's spool.
    for name in NAMES.iter().copied().chain(["errors"]) {
        fields.push((format!("{key_id}|{day}|{name}"), name));
    }
    let values: Vec<Option<u64>> = redis.call(|c| {
        let mut cmd = redis::cmd("HMGET");
        cmd.arg(USAGE);
        for (field, _) in &fields {
            cmd.arg(field);
        }
        cmd.query(c)
    })?;
    let mut counts = Counts::default();
    for ((_, name), n) in fields.iter().zip(values) {
        add_named(&mut counts, name, n.unwrap_or(0));
    }
    Ok(counts)
}
