//! The operator's commands on keys and plans when Redis is named: the same
//! actions and output as on the keys file, with no dataset nor keys file
//! needed (docs/operations.md, "Keys"). Every call gives up after `CLI_TIMEOUT`.

use std::collections::HashMap;

use super::config::{Files, KeysAction, PlansAction, UsageFormat};
use crate::access::keys::KeyRow;
use crate::access::plans;
use crate::access::redis::conn::{CLI_TIMEOUT, Redis};
use crate::access::redis::url::RedisUrl;
use crate::access::redis::{files as redis_files, keys, usage};
use crate::access::usage_report::{self, DEFAULT_DAYS, UsageRow};
use crate::dates;

/// What `keys list` and `keys usage` print, as read from Redis; keys_cmd.rs
/// prints it as it prints the keys file's.
pub enum Listing {
    /// Each key, with its last day used and its requests of the last
    /// `DEFAULT_DAYS` days.
    Keys(Vec<KeyRow>, HashMap<String, (Option<String>, u64)>),
    Usage(Vec<UsageRow>, UsageFormat),
}

/// Runs a keys command on Redis; what it lists is handed back to print.
pub fn keys(url: &RedisUrl, files: &Files, action: KeysAction) -> Result<Option<Listing>, String> {
    let redis = Redis::new(url, CLI_TIMEOUT)?;
    match action {
        KeysAction::Create { plan, label } => {
            let (id, key) = keys::create(&redis, plan, &label)?;
            println!("{key}");
            eprintln!(
                "created key {id} on the {} plan in Redis; it is shown only this once",
                plan.name()
            );
        }
        KeysAction::List => {
            let since = dates::format_date(dates::today() - (DEFAULT_DAYS - 1));
            let summary = usage::summary(&redis, &since)?;
            return Ok(Some(Listing::Keys(keys::list(&redis)?, summary)));
        }
        KeysAction::Revoke { id } => {
            keys::revoke(&redis, &id)?;
            eprintln!("revoked {id}");
        }
        KeysAction::Set { id, plan, label } => {
            keys::set(&redis, &id, plan, label.as_deref())?;
            eprintln!("changed {id}");
        }
        KeysAction::Usage {
            from,
            to,
            key,
            format,
        } => {
            let (from, to) = usage_report::window(from, to);
            let rows = usage::rows(&redis, &from, &to, key.as_deref())?;
            return Ok(Some(Listing::Usage(rows, format)));
        }
        KeysAction::Migrate { from } => {
            // Named files are merged into the keys file first, as without Redis.
            if !from.is_empty() {
                return Err(
                    "with Redis, keys migrate copies the keys file (--keys FILE) alone: \
                     merge other files into it first, without --redis"
                        .into(),
                );
            }
            for line in redis_files::migrate(&redis, &files.keys)? {
                eprintln!("{line}");
            }
        }
    }
    Ok(None)
}

pub fn plans(url: &RedisUrl, action: PlansAction) -> Result<(), String> {
    let redis = Redis::new(url, CLI_TIMEOUT)?;
    match action {
        PlansAction::List => {
            for (plan, limit) in keys::plan_list(&redis)? {
                println!("{}\t{}", plan.name(), plans::shown(limit));
            }
        }
        PlansAction::Set { plan, per_minute } => {
            keys::set_limit(&redis, plan, per_minute)?;
            eprintln!(
                "the {} plan now allows {} requests a minute, on every server within a second",
                plan.name(),
                plans::shown(per_minute)
            );
        }
    }
    Ok(())
}

/// `backup DIR` with Redis: the keys and usage files from Redis, and the
/// dataset when this host has one.
pub fn backup(url: &RedisUrl, files: &Files, dir: &std::path::Path) -> Result<(), String> {
    let redis = Redis::new(url, CLI_TIMEOUT)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    redis_files::backup(&redis, &files.keys, dir)
}
