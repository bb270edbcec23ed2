//! What a restore undoes, told before it is done: the keys revoked, created
//! or moved to another plan since the backup, each by id and label, and the
//! usage counted since (docs/deployment.md, "Backups and restore").

use std::collections::HashMap;
use std::path::Path;

use rusqlite::types::Value;
use rusqlite::{Connection, OpenFlags};

use super::error::CliError;
use crate::access::keys::{self, KeyRow};
use crate::file_error::cannot;

/// Opens a file read-only as it lies, ignoring any journal beside it: what
/// `restore` copies is that file's bytes alone.
pub fn open_as_is(path: &Path) -> Result<Connection, CliError> {
    let uri = crate::data::db::immutable_uri(path)?;
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI;
    Ok(Connection::open_with_flags(uri, flags).map_err(cannot("open", path))?)
}

/// Opens a live file read-only as a server would read it, journal and all;
/// as it lies when its journal cannot be read so (a hot one, a WAL whose
/// index a reader may not make).
fn open_live(path: &Path) -> Result<Connection, CliError> {
    let readable = |c: &Connection| {
        c.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))
            .is_ok()
    };
    match Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY) {
        Ok(conn) if readable(&conn) => Ok(conn),
        _ => open_as_is(path),
    }
}

/// One line a key whose state the restore changes.
pub fn keys(backup: &Path, live: &Path) -> Result<Vec<String>, CliError> {
    if !live.is_file() {
        return Ok(Vec::new());
    }
    let read = |conn: Result<Connection, CliError>, path: &Path| {
        conn.and_then(|c| Ok(keys::list(&c)?))
            .map_err(|e| CliError::KeysUnread {
                path: path.to_path_buf(),
                source: Box::new(e),
            })
    };
    let then = read(open_as_is(backup), backup)?;
    let now = read(open_live(live), live)?;
    let then: HashMap<&str, &KeyRow> = then.iter().map(|k| (k.id.as_str(), k)).collect();
    Ok(now
        .iter()
        .filter_map(|key| undone(then.get(key.id.as_str()).copied(), key))
        .collect())
}

/// What the restore does to `now`, a live key, that `then` was in the backup.
fn undone(then: Option<&KeyRow>, now: &KeyRow) -> Option<String> {
    let who = format!("{} ({:?})", now.id, now.label);
    let Some(then) = then else {
        return Some(format!(
            "{who}: created since the backup; the restore removes it"
        ));
    };
    if now.revoked_at.is_some() && then.revoked_at.is_none() {
        return Some(format!(
            "{who}: revoked since the backup; the restore makes it work again"
        ));
    }
    (now.plan != then.plan).then(|| {
        format!(
            "{who}: moved from the {} plan to {} since the backup; the restore puts it back on {}",
            then.plan, now.plan, then.plan
        )
    })
}

/// A line on the usage counted since the backup, which the restore loses,
/// when the live usage file holds any.
pub fn usage(backup: &Path, live: &Path) -> Result<Option<String>, CliError> {
    if !live.is_file() {
        return Ok(None);
    }
    let then = rows(open_as_is(backup), backup)?;
    let now = match rows(open_live(live), live) {
        Ok(rows) => rows,
        Err(e) => {
            return Ok(Some(format!(
                "{e}: whatever it counted since the backup is lost"
            )));
        }
    };
    let changed = now
        .iter()
        .filter(|(k, row)| then.get(*k) != Some(row))
        .count();
    Ok((changed > 0).then(|| {
        format!(
            "usage: {changed} counts (a key's day or hour) made since the backup in {} are lost",
            live.display()
        )
    }))
}

/// The usage rows by table, key and period (a day, or an hour), whatever
/// their count columns: the daily table of older builds and the hourly one.
fn rows(
    conn: Result<Connection, CliError>,
    path: &Path,
) -> Result<HashMap<(String, String), Vec<Value>>, CliError> {
    let fail = |source| CliError::UsageUnread {
        path: path.to_path_buf(),
        source,
    };
    let conn = conn?;
    let mut all = HashMap::new();
    for (table, period) in [("usage", "day"), ("usage_hours", "hour")] {
        let present: bool = conn
            .query_row(
                "SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = ?1",
                [table],
                |r| r.get(0),
            )
            .map_err(fail)?;
        if !present {
            continue;
        }
        // The table's name is one of the two above, never a user's value.
        let mut stmt = conn
            .prepare(&format!("SELECT * FROM {table}"))
            .map_err(fail)?;
        let columns = stmt.column_count();
        let read = stmt
            .query_map([], |r| {
                let key: String = r.get("key_id")?;
                let at: String = r.get(period)?;
                let values = (0..columns).map(|i| r.get(i)).collect::<Result<_, _>>()?;
                Ok(((key, format!("{table} {at}")), values))
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>());
        all.extend(read.map_err(fail)?);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(plan: &str, revoked: bool) -> KeyRow {
        KeyRow {
            id: "key_1".into(),
            plan: plan.into(),
            label: "Acme".into(),
            created_at: "2026-11-01T00:00:00Z".into(),
            revoked_at: revoked.then(|| "2026-11-20T00:00:00Z".into()),
            plans: Vec::new(),
        }
    }

    #[test]
    fn each_change_since_the_backup_is_named_with_the_key() {
        let free = key("free", false);
        let said = |then: Option<&KeyRow>, now: KeyRow| undone(then, &now).unwrap_or_default();
        assert!(said(None, key("free", false)).contains("created since the backup"));
        let revoked = said(Some(&free), key("free", true));
        assert!(
            revoked.starts_with("key_1 (\"Acme\"): revoked"),
            "{revoked}"
        );
        let moved = said(Some(&free), key("growth", false));
        assert!(moved.contains("from the free plan to growth"), "{moved}");
        assert_eq!(undone(Some(&key("free", true)), &key("free", true)), None);
        assert_eq!(undone(Some(&free), &key("free", false)), None);
    }
}
