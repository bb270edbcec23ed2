//! Usage in Redis read back: `keys usage`'s rows, `keys list`'s summary,
//! and one key's day for `GET /v1/key` (usage.rs writes what they read).

use std::collections::HashMap;

use redis::Commands;

use super::{LAST_USED, USAGE};
use crate::access::redis::conn::Redis;
use crate::access::usage_counts::Counts;
use crate::access::usage_report::UsageRow;
use crate::dates;

/// Every (key, day) with its counts.
fn all(redis: &Redis) -> Result<HashMap<(String, String), Counts>, String> {
    let fields: HashMap<String, u64> = redis.call(|c| c.hgetall(USAGE))?;
    let mut out: HashMap<(String, String), Counts> = HashMap::new();
    for (field, n) in fields {
        let mut parts = field.splitn(3, '|');
        let (Some(key), Some(day), Some(what)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let counts = out.entry((key.into(), day.into())).or_default();
        match what {
            "ok" => counts.ok += n,
            "errors" => counts.errors += n,
            _ => counts.rate_limited += n,
        }
    }
    Ok(out)
}

/// `keys usage`: rows from `from` to `to` (inclusive), by key then day.
pub fn rows(
    redis: &Redis,
    from: &str,
    to: &str,
    key: Option<&str>,
) -> Result<Vec<UsageRow>, String> {
    let mut rows: Vec<UsageRow> = all(redis)?
        .into_iter()
        .filter(|((k, day), _)| {
            day.as_str() >= from && day.as_str() <= to && key.is_none_or(|want| want == k)
        })
        .map(|((key_id, day), c)| UsageRow {
            key_id,
            day,
            ok: c.ok,
            errors: c.errors,
            rate_limited: c.rate_limited,
        })
        .collect();
    rows.sort_by(|a, b| (&a.key_id, &a.day).cmp(&(&b.key_id, &b.day)));
    Ok(rows)
}

/// `keys list`: each key's last-used time and its requests from `since` on.
pub fn summary(
    redis: &Redis,
    since: &str,
) -> Result<HashMap<String, (Option<String>, u64)>, String> {
    let mut out: HashMap<String, (Option<String>, u64)> = HashMap::new();
    for ((key, day), c) in all(redis)? {
        if day.as_str() >= since {
            out.entry(key).or_default().1 += c.total();
        }
    }
    let used: HashMap<String, i64> = redis.call(|c| c.hgetall(LAST_USED))?;
    for (key, at) in used {
        out.entry(key).or_default().0 = Some(dates::format_timestamp(at));
    }
    Ok(out)
}

/// One key's counts of one day, as every server has added them so far.
pub fn day(redis: &Redis, key_id: &str, day: &str) -> Result<Counts, String> {
    let field = |what: &str| format!("{key_id}|{day}|{what}");
    let (ok, errors, rate_limited): (Option<u64>, Option<u64>, Option<u64>) = redis.call(|c| {
        redis::cmd("HMGET")
            .arg(USAGE)
            .arg(field("ok"))
            .arg(field("errors"))
            .arg(field("rate_limited"))
            .query(c)
    })?;
    Ok(Counts {
        ok: ok.unwrap_or(0),
        errors: errors.unwrap_or(0),
        rate_limited: rate_limited.unwrap_or(0),
    })
}
