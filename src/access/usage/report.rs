//! Reading the usage file: `keys usage`'s rows, the last-used and 30-day
//! columns of `keys list`, and a key's day for `GET /v1/key`. Hours are
//! written `YYYY-MM-DDTHH` and days `YYYY-MM-DD`, UTC, which sort as they
//! read.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, OpenFlags, params};

use crate::access::AccessError;
use crate::access::usage::counts::Counts;
use crate::file_error::cannot;

/// How many days `keys usage` and `keys list` cover when not told.
pub const DEFAULT_DAYS: i64 = 30;
/// How long a read waits: in WAL mode only while the file is being opened
/// or checkpointed, never behind a flush.
const READ_PATIENCE: std::time::Duration = std::time::Duration::from_millis(200);

/// One key's requests in one UTC hour, or on one UTC day for counts kept
/// before hours: what either store holds, before a report adds it up
/// (usage/invoice.rs).
#[derive(Debug, Clone, PartialEq)]
pub struct UsageRow {
    pub key_id: String,
    /// `YYYY-MM-DDTHH` (a UTC hour) or `YYYY-MM-DD` (a whole UTC day).
    pub period: String,
    pub counts: Counts,
}

/// The hours, as rows of (key_id, hour, the four counts).
const HOURS: &str =
    "SELECT key_id, hour, ok, client_errors, rate_limited, server_errors FROM usage_hours";
/// The days kept from before hours, as the same rows: their errors are
/// read as client errors (usage/file.rs).
const DAYS: &str = "SELECT key_id, day AS hour, ok, errors AS client_errors, rate_limited, 0 AS server_errors FROM usage";

/// The usage file opened read-only with the rows of the tables it has, or
/// None while no server has written it: a file no server of this build
/// has written yet has only the days.
fn open(path: &Path) -> Result<Option<(Connection, String)>, AccessError> {
    if !path.exists() {
        return Ok(None);
    }
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(cannot("open", path))?;
    conn.busy_timeout(READ_PATIENCE)?;
    // A file a server has only just made may not have its tables yet.
    let has = |table: &str| -> Result<bool, AccessError> {
        conn.query_row(
            "SELECT count(*) > 0 FROM sqlite_schema WHERE name = ?1",
            [table],
            |r| r.get(0),
        )
        .map_err(|e| cannot("read", path)(e).into())
    };
    let tables: Vec<&str> = [("usage_hours", HOURS), ("usage", DAYS)]
        .into_iter()
        .filter_map(|(table, rows)| has(table).map(|h| h.then_some(rows)).transpose())
        .collect::<Result<_, _>>()?;
    if tables.is_empty() {
        return Ok(None);
    }
    let rows = tables.join(" UNION ALL ");
    Ok(Some((conn, rows)))
}

/// Rows of the UTC days `from` to `to` (inclusive, `YYYY-MM-DD`), of one
/// key or all, by key then period.
pub fn rows(
    path: &Path,
    from: &str,
    to: &str,
    key: Option<&str>,
) -> Result<Vec<UsageRow>, AccessError> {
    let Some((conn, both)) = open(path)? else {
        return Ok(Vec::new());
    };
    let fail = cannot("read", path);
    // An hour `2026-11-30T23` sorts after its day and before the next. A
    // key named in the statement itself lets SQLite search each table's
    // primary key (`GET /v1/key` reads a day so on every call).
    let one_key = match key {
        Some(_) => "AND key_id = ?3",
        None => "AND ?3 IS NULL",
    };
    let mut stmt = conn
        .prepare(&format!(
            "SELECT * FROM ({both})
             WHERE hour >= ?1 AND hour < ?2 || 'U' {one_key}
             ORDER BY key_id, hour"
        ))
        .map_err(&fail)?;
    let rows = stmt.query_map(params![from, to, key], |r| {
        Ok(UsageRow {
            key_id: r.get(0)?,
            period: r.get(1)?,
            counts: counts_at(r, 2)?,
        })
    });
    Ok(rows.and_then(Iterator::collect).map_err(&fail)?)
}

/// The four counts from column `first` on.
fn counts_at(r: &rusqlite::Row, first: usize) -> rusqlite::Result<Counts> {
    let n = |i: usize| r.get::<_, i64>(first + i).map(|n| n as u64);
    Ok(Counts {
        ok: n(0)?,
        client_errors: n(1)?,
        rate_limited: n(2)?,
        server_errors: n(3)?,
    })
}

/// Each key's last-used time and its requests from `since` on.
pub fn summary(
    path: &Path,
    since: &str,
) -> Result<HashMap<String, (Option<String>, u64)>, AccessError> {
    let mut out: HashMap<String, (Option<String>, u64)> = HashMap::new();
    let Some((conn, both)) = open(path)? else {
        return Ok(out);
    };
    let mut stmt = conn.prepare(&format!(
        "SELECT key_id, sum(ok + client_errors + rate_limited + server_errors)
             FROM ({both}) WHERE hour >= ?1 GROUP BY key_id"
    ))?;
    let totals = stmt.query_map([since], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
    })?;
    for row in totals {
        let (key, total) = row?;
        out.entry(key).or_default().1 = total as u64;
    }
    let mut stmt = conn.prepare("SELECT key_id, at FROM last_used")?;
    let used = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    for row in used {
        let (key, at) = row?;
        out.entry(key).or_default().0 = Some(at);
    }
    Ok(out)
}

/// One key's counts of one UTC day, as written so far by every server.
pub fn day(path: &Path, key_id: &str, day: &str) -> Result<Counts, AccessError> {
    let mut counts = Counts::default();
    for row in rows(path, day, day, Some(key_id))? {
        counts.add(row.counts);
    }
    Ok(counts)
}
