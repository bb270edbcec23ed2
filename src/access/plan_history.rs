//! Each key's plans over time, in the keys file: the plan it was created
//! on and every change, each with the time it took effect, so that an
//! invoice names the plans a key had over a month (usage/invoice.rs).
//!
//! Keys created before plans were recorded have no history until their
//! first change, which records the plan they had before it with no time
//! (`since` NULL: held from before the records began).

use std::collections::HashMap;

use crate::access::AccessError;
use rusqlite::{Connection, params};

/// Made in every keys file a command opens for writing (key_file.rs), as
/// files made before it lack it.
pub(crate) const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS plan_history (
        key_id TEXT NOT NULL REFERENCES api_keys (id),
        plan   TEXT NOT NULL REFERENCES plans (name),
        since  TEXT
    );
    CREATE INDEX IF NOT EXISTS plan_history_by_key ON plan_history (key_id, since);";

/// A plan a key had from a time on; None: from before plans were recorded.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlanSince {
    pub plan: String,
    pub since: Option<String>,
}

/// Writes `plans` as `key_id`'s history, as a backup or migration copies it.
pub fn write(conn: &Connection, key_id: &str, plans: &[PlanSince]) -> Result<(), AccessError> {
    for p in plans {
        conn.execute(
            "INSERT INTO plan_history (key_id, plan, since) VALUES (?1, ?2, ?3)",
            params![key_id, p.plan, p.since],
        )
        .map_err(AccessError::failed("write the plan history"))?;
    }
    Ok(())
}

/// Records that `key_id` is on `plan` from `since`; a key with no record
/// yet first gets the plan it had, `before`, from an unknown time.
pub fn record(
    conn: &Connection,
    key_id: &str,
    before: Option<&str>,
    plan: &str,
    since: &str,
) -> Result<(), AccessError> {
    let fail = AccessError::failed("record the plan change");
    let recorded: bool = conn
        .query_row(
            "SELECT count(*) > 0 FROM plan_history WHERE key_id = ?1",
            [key_id],
            |r| r.get(0),
        )
        .map_err(&fail)?;
    if let (false, Some(before)) = (recorded, before) {
        conn.execute(
            "INSERT INTO plan_history (key_id, plan, since) VALUES (?1, ?2, NULL)",
            params![key_id, before],
        )
        .map_err(&fail)?;
    }
    conn.execute(
        "INSERT INTO plan_history (key_id, plan, since) VALUES (?1, ?2, ?3)",
        params![key_id, plan, since],
    )
    .map_err(&fail)?;
    Ok(())
}

/// Every key's history, oldest first; none from a file made before it
/// that was opened only to read.
pub fn all(conn: &Connection) -> Result<HashMap<String, Vec<PlanSince>>, AccessError> {
    let fail = AccessError::failed("read the plan history");
    let held: bool = conn
        .query_row(
            "SELECT count(*) > 0 FROM sqlite_schema WHERE name = 'plan_history'",
            [],
            |r| r.get(0),
        )
        .map_err(&fail)?;
    if !held {
        return Ok(HashMap::new());
    }
    let mut stmt = conn
        .prepare("SELECT key_id, plan, since FROM plan_history ORDER BY key_id, since, rowid")
        .map_err(&fail)?;
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                PlanSince {
                    plan: r.get(1)?,
                    since: r.get(2)?,
                },
            ))
        })
        .map_err(&fail)?;
    let mut out: HashMap<String, Vec<PlanSince>> = HashMap::new();
    for row in rows {
        let (key_id, plan) = row.map_err(&fail)?;
        out.entry(key_id).or_default().push(plan);
    }
    Ok(out)
}
