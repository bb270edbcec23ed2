//! Running the operator's commands on keys, plans and backups. Each writes
//! the keys file alone (never the dataset), so servers pick the change up
//! within a second (access/key_store.rs). With Redis named, keys_redis.rs
//! runs them and hands back what `keys list` and `keys usage` print, which
//! this file prints for both stores.

use std::path::Path;

use super::config::{Files, KeysAction, PlansAction, UsageFormat};
use super::keys_redis::{self, Listing};
use crate::access::usage::usage_path;
use crate::access::usage_report::{self, DEFAULT_DAYS, UsageRow};
use crate::access::{key_file, keys, migrate, plans};
use crate::dates;

pub fn keys(files: &Files, action: KeysAction) -> Result<(), String> {
    if let Some(url) = &files.redis {
        return match keys_redis::keys(url, files, action)? {
            Some(Listing::Keys(keys, usage)) => {
                print_list(keys, &usage);
                Ok(())
            }
            Some(Listing::Usage(rows, format)) => print_usage(&rows, format),
            None => Ok(()),
        };
    }
    let path = &files.keys;
    let creates = matches!(
        action,
        KeysAction::Create { .. } | KeysAction::Migrate { .. }
    );
    if !creates {
        key_file::open_existing(path)?;
    }
    match action {
        KeysAction::Create { plan, label } => {
            let (id, key) = key_file::change(path, |conn| keys::create(conn, plan, &label))?;
            println!("{key}");
            eprintln!(
                "created key {id} on the {} plan; it is shown only this once",
                plan.name()
            );
        }
        KeysAction::List => list(path)?,
        KeysAction::Revoke { id } => {
            key_file::change(path, |conn| keys::revoke(conn, &id))?;
            eprintln!("revoked {id}");
        }
        KeysAction::Set { id, plan, label } => {
            key_file::change(path, |conn| keys::set(conn, &id, plan, label.as_deref()))?;
            eprintln!("changed {id}");
        }
        KeysAction::Usage {
            from,
            to,
            key,
            format,
        } => {
            let (from, to) = usage_report::window(from, to);
            let rows = usage_report::rows(&usage_path(path), &from, &to, key.as_deref())?;
            print_usage(&rows, format)?;
        }
        KeysAction::Migrate { from } => migrate_all(&from, path)?,
    }
    Ok(())
}

/// Merges each file in turn; one that holds no keys (moved out already) is
/// said and passed over, and a failure of one does not stop the others.
fn migrate_all(from: &[std::path::PathBuf], keys: &Path) -> Result<(), String> {
    let mut failed = 0;
    for file in from {
        let shown = file.display();
        match migrate::merge(file, keys) {
            Ok(Some(m)) => eprintln!(
                "{shown}: {} keys, {} new, {} revoked by it{}",
                m.keys,
                m.added,
                m.revoked,
                match m.other_limits.is_empty() {
                    true => String::new(),
                    false => format!(
                        "; its limits for {} differ and were not taken (see: area-scoring plans list)",
                        m.other_limits.join(", ")
                    ),
                }
            ),
            Ok(None) => {
                eprintln!("{shown}: holds no API keys (moved out already, or never had any)")
            }
            Err(why) => {
                eprintln!("area-scoring: {why}");
                failed += 1;
            }
        }
    }
    match failed {
        0 => Ok(()),
        n => Err(format!("{n} of {} files could not be merged", from.len())),
    }
}

/// One line a key, tab-separated: id, plan, label, created, revoked, then
/// last used and the requests of the last 30 days.
fn list(path: &Path) -> Result<(), String> {
    let conn = key_file::open_existing(path)?;
    let since = dates::format_date(dates::today() - (DEFAULT_DAYS - 1));
    let usage = usage_report::summary(&usage_path(path), &since)?;
    print_list(keys::list(&conn)?, &usage);
    Ok(())
}

/// `keys list`'s lines, from whichever store the keys and usage came.
fn print_list(
    keys: Vec<keys::KeyRow>,
    usage: &std::collections::HashMap<String, (Option<String>, u64)>,
) {
    for k in keys {
        let (last_used, requests) = usage.get(&k.id).cloned().unwrap_or_default();
        println!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}",
            k.id,
            k.plan,
            if k.label.is_empty() { "-" } else { &k.label },
            k.created_at,
            k.revoked_at.as_deref().unwrap_or("-"),
            last_used.as_deref().unwrap_or("-"),
            requests
        );
    }
}

const USAGE_COLUMNS: [&str; 5] = ["key_id", "day", "ok", "errors", "rate_limited"];

fn print_usage(rows: &[UsageRow], format: UsageFormat) -> Result<(), String> {
    let cells = |r: &UsageRow| {
        [
            r.key_id.clone(),
            r.day.clone(),
            r.ok.to_string(),
            r.errors.to_string(),
            r.rate_limited.to_string(),
        ]
    };
    match format {
        UsageFormat::Json => {
            println!(
                "{}",
                serde_json::to_string(rows).map_err(|e| e.to_string())?
            )
        }
        // Key ids and dates hold no comma or quote: nothing to escape.
        UsageFormat::Csv => {
            println!("{}", USAGE_COLUMNS.join(","));
            for r in rows {
                println!("{}", cells(r).join(","));
            }
        }
        UsageFormat::Table => {
            let widths = [16, 10, 10, 10, 12];
            let line = |cells: &[String]| {
                let padded: Vec<String> = cells
                    .iter()
                    .zip(widths)
                    .map(|(c, w)| format!("{c:<w$}"))
                    .collect();
                println!("{}", padded.join("  ").trim_end());
            };
            line(&USAGE_COLUMNS.map(String::from));
            for r in rows {
                line(&cells(r));
            }
        }
    }
    Ok(())
}

pub fn plans(files: &Files, action: PlansAction) -> Result<(), String> {
    if let Some(url) = &files.redis {
        return keys_redis::plans(url, action);
    }
    match action {
        PlansAction::List => {
            let conn = key_file::open_existing(&files.keys)?;
            for (plan, limit) in plans::list(&conn)? {
                println!("{}\t{}", plan.name(), plans::shown(limit));
            }
        }
        PlansAction::Set { plan, per_minute } => {
            key_file::change(&files.keys, |conn| plans::set_limit(conn, plan, per_minute))?;
            eprintln!(
                "the {} plan now allows {} requests a minute",
                plan.name(),
                plans::shown(per_minute)
            );
        }
    }
    Ok(())
}
