//! Reading the usage file: `keys usage`, the last-used and 30-day columns of
//! `keys list`, and a key's day for `GET /v1/key`. Dates are UTC days
//! written `YYYY-MM-DD`, which sort as they read; `keys usage`'s days
//! (`window`) are the same whichever store is read.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, OpenFlags, params};

use crate::access::usage_counts::Counts;
use crate::dates;

/// How many days `keys usage` and `keys list` cover when not told.
pub const DEFAULT_DAYS: i64 = 30;
/// How long a read waits: in WAL mode only while the file is being opened
/// or checkpointed, never behind a flush.
const READ_PATIENCE: std::time::Duration = std::time::Duration::from_millis(200);

/// One key's requests on one day: a line of an invoice.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct UsageRow {
    pub key_id: String,
    pub day: String,
    pub ok: u64,
    pub errors: u64,
    pub rate_limited: u64,
}

/// The usage file opened read-only, or None while no server has written it.
fn open(path: &Path) -> Result<Option<Connection>, String> {
    if !path.exists() {
        return Ok(None);
    }
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    conn.busy_timeout(READ_PATIENCE)
        .map_err(|e| e.to_string())?;
    // A file a server has only just made may not have its tables yet.
    let ready: bool = conn
        .query_row(
            "SELECT count(*) > 0 FROM sqlite_schema WHERE name = 'usage'",
            [],
            |r| r.get(0),
        )
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(ready.then_some(conn))
}

/// Rows from `from` to `to` (inclusive), of one key or all, by key then day.
pub fn rows(path: &Path, from: &str, to: &str, key: Option<&str>) -> Result<Vec<UsageRow>, String> {
    let Some(conn) = open(path)? else {
        return Ok(Vec::new());
    };
    let mut stmt = conn
        .prepare(
            "SELECT key_id, day, ok, errors, rate_limited FROM usage
             WHERE day BETWEEN ?1 AND ?2 AND (?3 IS NULL OR key_id = ?3)
             ORDER BY key_id, day",
        )
        .map_err(|e| e.to_string())?;
    stmt.query_map(params![from, to, key], |r| {
        Ok(UsageRow {
            key_id: r.get(0)?,
            day: r.get(1)?,
            ok: r.get::<_, i64>(2)? as u64,
            errors: r.get::<_, i64>(3)? as u64,
            rate_limited: r.get::<_, i64>(4)? as u64,
        })
    })
    .and_then(Iterator::collect)
    .map_err(|e| e.to_string())
}

/// Each key's last-used time and its requests from `since` on.
pub fn summary(path: &Path, since: &str) -> Result<HashMap<String, (Option<String>, u64)>, String> {
    let mut out: HashMap<String, (Option<String>, u64)> = HashMap::new();
    let Some(conn) = open(path)? else {
        return Ok(out);
    };
    let fail = |e: rusqlite::Error| e.to_string();
    let mut stmt = conn
        .prepare("SELECT key_id, sum(ok + errors + rate_limited) FROM usage WHERE day >= ?1 GROUP BY key_id")
        .map_err(fail)?;
    let totals = stmt
        .query_map([since], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
        })
        .map_err(fail)?;
    for row in totals {
        let (key, total) = row.map_err(fail)?;
        out.entry(key).or_default().1 = total as u64;
    }
    let mut stmt = conn
        .prepare("SELECT key_id, at FROM last_used")
        .map_err(fail)?;
    let used = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .map_err(fail)?;
    for row in used {
        let (key, at) = row.map_err(fail)?;
        out.entry(key).or_default().0 = Some(at);
    }
    Ok(out)
}

/// One key's counts of one day, as written so far by every server.
pub fn day(path: &Path, key_id: &str, day: &str) -> Result<Counts, String> {
    let Some(conn) = open(path)? else {
        return Ok(Counts::default());
    };
    let counts = conn.query_row(
        "SELECT ok, errors, rate_limited FROM usage WHERE key_id = ?1 AND day = ?2",
        params![key_id, day],
        |r| {
            Ok(Counts {
                ok: r.get::<_, i64>(0)? as u64,
                errors: r.get::<_, i64>(1)? as u64,
                rate_limited: r.get::<_, i64>(2)? as u64,
            })
        },
    );
    match counts {
        Ok(c) => Ok(c),
        Err(rusqlite::Error::QueryReturnedNoRows) => Ok(Counts::default()),
        Err(e) => Err(e.to_string()),
    }
}

/// `keys usage`'s days, as dates: up to today, and the last `DEFAULT_DAYS`
/// of them unless told otherwise.
pub fn window(from: Option<i64>, to: Option<i64>) -> (String, String) {
    let to = to.unwrap_or_else(dates::today);
    let from = from.unwrap_or(to - (DEFAULT_DAYS - 1));
    (dates::format_date(from), dates::format_date(to))
}
