//! Between a keys file and Redis: `keys migrate --redis` copies a keys file
//! and its usage file into Redis, and `backup DIR --redis` writes what Redis
//! holds into files of the same kind, so that either set-up restores.
//!
//! A migration adds what Redis lacks and changes nothing twice: keys by id,
//! a revocation once, a plan's limit only where Redis has none, and of the
//! usage file what it holds beyond what it added before
//! (access/redis/file_usage.rs).

use std::path::{Path, PathBuf};

use rusqlite::params;
use sha2::{Digest, Sha256};

use super::conn::Redis;
use super::file_usage;
use super::keys::{self as shared_keys, KeyRecord, to_hex};
use super::usage::{self as shared_usage, Row};
use crate::access::AccessError;
use crate::access::usage::report as usage_report;
use crate::access::usage::{self, usage_path};
use crate::access::{key_file, plan_history, plans};
use crate::dates::{self, SECONDS_PER_DAY};
use crate::file_error::cannot;

/// What a keys file becomes once its keys are in Redis.
pub fn migrated_path(keys: &Path) -> PathBuf {
    let mut name = keys.as_os_str().to_os_string();
    name.push(".migrated");
    PathBuf::from(name)
}

/// Copies `keys` (or, migrated already, its `.migrated` file) and its usage
/// into Redis; returns what to tell the operator.
pub fn migrate(redis: &Redis, keys: &Path) -> Result<Vec<String>, AccessError> {
    let moved = migrated_path(keys);
    let source = match (keys.is_file(), moved.is_file()) {
        (true, _) => keys.to_path_buf(),
        (false, true) => moved.clone(),
        (false, false) => return Err(AccessError::NoKeysFileAt(keys.to_path_buf())),
    };
    let conn = key_file::open_read(&source)?;
    let fail = cannot("read", &source);
    let mut stmt = conn
        .prepare("SELECT id, key_hash, plan, label, created_at, revoked_at FROM api_keys")
        .map_err(&fail)?;
    let mut history = plan_history::all(&conn)?;
    let records: Vec<KeyRecord> = stmt
        .query_map([], |r| {
            let id: String = r.get(0)?;
            Ok(KeyRecord {
                plans: history.remove(&id).unwrap_or_default(),
                id,
                hash: to_hex(&r.get::<_, Vec<u8>>(1)?),
                plan: r.get(2)?,
                label: r.get(3)?,
                created_at: r.get(4)?,
                revoked_at: r.get(5)?,
            })
        })
        .and_then(Iterator::collect)
        .map_err(&fail)?;
    let limits = plans::limits(&conn).map_err(&fail)?;
    let held = shared_keys::load(redis)?;
    let (mut added, mut revoked) = (0, 0);
    for record in &records {
        match held.keys.iter().find(|k| k.id == record.id) {
            None => {
                shared_keys::put(redis, record)?;
                added += 1;
            }
            Some(k) if k.revoked_at.is_none() && record.revoked_at.is_some() => {
                let mut k = k.clone();
                k.revoked_at.clone_from(&record.revoked_at);
                shared_keys::put(redis, &k)?;
                revoked += 1;
            }
            Some(_) => {}
        }
    }
    let mut said = vec![format!(
        "{}: {} keys, {added} new in Redis, {revoked} revoked by it",
        source.display(),
        records.len()
    )];
    for (plan, limit) in limits {
        match held.plans.get(plan.name()) {
            None => shared_keys::set_limit(redis, plan, limit)?,
            Some(there) if *there != plans::shown(limit) => said.push(format!(
                "the {} plan allows {there} a minute in Redis and {} in the file: Redis's is kept",
                plan.name(),
                plans::shown(limit)
            )),
            Some(_) => {}
        }
    }
    said.push(migrate_usage(redis, &usage_path(keys))?);
    if source == keys {
        std::fs::rename(keys, &moved).map_err(cannot("rename", keys))?;
        said.push(format!(
            "renamed {} to {}, so that no server reads it by mistake",
            keys.display(),
            moved.display()
        ));
    }
    Ok(said)
}

/// Adds what the usage file holds beyond what it added before.
fn migrate_usage(redis: &Redis, path: &Path) -> Result<String, AccessError> {
    let rows = usage_report::rows(path, "0000-00-00", "9999-99-99", None)?;
    if rows.is_empty() {
        return Ok(format!("{}: no usage to copy", path.display()));
    }
    let used = usage_report::summary(path, "9999-99-99")?;
    let mut digest = Sha256::new();
    let rows: Vec<Row> = rows
        .into_iter()
        .map(|r| {
            // As before server errors were told apart, for the name above.
            let c = r.counts;
            digest.update(format!(
                "{}|{}|{}|{}|{}\n",
                r.key_id, r.period, c.ok, c.client_errors, c.rate_limited
            ));
            let last_used = used
                .get(&r.key_id)
                .and_then(|(at, _)| at.as_deref())
                .and_then(unix_of)
                .unwrap_or(0);
            Row {
                key_id: r.key_id,
                period: r.period,
                counts: r.counts,
                last_used,
            }
        })
        .collect();
    // The name the same contents were sent under before files had identities.
    let sent_whole = format!("file_{}", &to_hex(&digest.finalize())[..32]);
    let identity = file_usage::identity(path)?;
    Ok(
        match file_usage::add(redis, &identity, &sent_whole, &rows)? {
            0 => format!("{}: its usage was in Redis already", path.display()),
            added => format!(
                "{}: usage of {added} requests added to Redis",
                path.display()
            ),
        },
    )
}

/// Writes Redis's keys, plans and usage into `dir`, as a keys file named
/// like `keys` and its usage file.
pub fn backup(redis: &Redis, keys: &Path, dir: &Path) -> Result<(), AccessError> {
    let name = keys
        .file_name()
        .ok_or_else(|| AccessError::NoFileName(keys.to_path_buf()))?;
    let state = shared_keys::load(redis)?;
    let rows = shared_usage::rows(redis, "0000-00-00", "9999-99-99", None)?;
    let used = shared_usage::summary(redis, "9999-99-99")?;
    let target = dir.join(name);
    // Written in a folder of their own, then renamed into place once whole.
    let partial = dir.join(".partial");
    let _ = std::fs::remove_dir_all(&partial);
    let temp = partial.join(name);
    let temp_usage = usage_path(&temp);
    {
        let (conn, _) = key_file::open(&temp)?;
        let fail = cannot("write", &temp);
        for k in &state.keys {
            let hash: Vec<u8> = (0..k.hash.len() / 2)
                .filter_map(|i| u8::from_str_radix(&k.hash[2 * i..2 * i + 2], 16).ok())
                .collect();
            conn.execute(
                "INSERT INTO api_keys (id, key_hash, plan, label, created_at, revoked_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![k.id, hash, k.plan, k.label, k.created_at, k.revoked_at],
            )
            .map_err(&fail)?;
            plan_history::write(&conn, &k.id, &k.plans)?;
        }
        for (plan, limit) in state.limits() {
            plans::set_limit(&conn, plan, limit)?;
        }
        let usage_conn = usage::open_file(&temp_usage, usage::BUSY_TIMEOUT)?;
        let fail = cannot("write", &temp_usage);
        for r in &rows {
            // Hours to the hours; a day kept from before them to the days.
            let [ok, client, limited, server] = r.counts.values().map(|n| n as i64);
            let (insert, values) = match r.period.contains('T') {
                true => (
                    "INSERT INTO usage_hours (key_id, hour, ok, client_errors, rate_limited, server_errors)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![r.key_id, r.period, ok, client, limited, server],
                ),
                false => (
                    "INSERT INTO usage (key_id, day, ok, errors, rate_limited) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![r.key_id, r.period, ok, client + server, limited],
                ),
            };
            usage_conn.execute(insert, values).map_err(&fail)?;
        }
        for (key, (at, _)) in &used {
            if let Some(at) = at {
                usage_conn
                    .execute(
                        "INSERT INTO last_used (key_id, at) VALUES (?1, ?2)",
                        params![key, at],
                    )
                    .map_err(&fail)?;
            }
        }
        usage_conn
            .pragma_update(None, "journal_mode", "DELETE")
            .map_err(&fail)?;
    }
    let usage_target = usage_path(&target);
    for (from, to) in [(&temp, &target), (&temp_usage, &usage_target)] {
        std::fs::rename(from, to).map_err(cannot("write", to))?;
        eprintln!("backed up Redis at {} to {}", redis.url, to.display());
    }
    let _ = std::fs::remove_dir_all(&partial);
    Ok(())
}

/// A timestamp as `format_timestamp` writes it (`YYYY-MM-DDTHH:MM:SSZ`), in unix seconds.
fn unix_of(at: &str) -> Option<i64> {
    let day = dates::parse_date(at.get(..10)?)?;
    let part = |r: std::ops::Range<usize>| at.get(r)?.parse::<i64>().ok();
    Some(day * SECONDS_PER_DAY + part(11..13)? * 3600 + part(14..16)? * 60 + part(17..19)?)
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_read_back_as_written() {
        for t in [0, 1_764_115_200, 1_764_201_599] {
            assert_eq!(super::unix_of(&crate::dates::format_timestamp(t)), Some(t));
        }
    }
}
