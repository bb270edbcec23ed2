//! The operator's commands on keys and plans when Redis is named: the same
//! actions and output as on the keys file, with no dataset nor keys file
//! needed (docs/operations.md, "Keys"). Every call gives up after `CLI_TIMEOUT`.

use std::collections::HashMap;

use super::config::{By, CreateFormat, Files, Format, KeysAction, PlansAction};
use super::error::CliError;
use crate::access::keys::KeyRow;
use crate::access::plans;
use crate::access::redis::conn::{CLI_TIMEOUT, Redis};
use crate::access::redis::url::RedisUrl;
use crate::access::redis::{files as redis_files, keys, usage};
use crate::access::usage::invoice::Period;
use crate::access::usage::report::{DEFAULT_DAYS, UsageRow};
use crate::dates;
use crate::domain::Plan;
use crate::file_error::cannot;

/// What `keys create`, `keys list` and `keys usage` print, as made in or
/// read from Redis; keys_cmd.rs prints it as it prints the keys file's.
pub enum Listing {
    /// The new key: its id, the key, plan and label.
    Created(String, String, Plan, String, CreateFormat),
    /// Each key, with its last day used and its requests of the last
    /// `DEFAULT_DAYS` days.
    Keys(Vec<KeyRow>, HashMap<String, (Option<String>, u64)>, Format),
    /// Every key, the rows of the period's UTC days, and what was asked.
    Usage(
        Vec<KeyRow>,
        Vec<UsageRow>,
        Period,
        Option<String>,
        By,
        Format,
    ),
}

/// Runs a keys command on Redis; what it lists is handed back to print.
pub fn keys(
    url: &RedisUrl,
    files: &Files,
    action: KeysAction,
) -> Result<Option<Listing>, CliError> {
    let redis = Redis::new(url, CLI_TIMEOUT)?;
    match action {
        KeysAction::Create {
            plan,
            label,
            format,
        } => {
            let (id, key) = keys::create(&redis, plan, &label)?;
            return Ok(Some(Listing::Created(id, key, plan, label, format)));
        }
        KeysAction::List { format } => {
            let since = dates::format_date(dates::today() - (DEFAULT_DAYS - 1));
            let summary = usage::summary(&redis, &since)?;
            return Ok(Some(Listing::Keys(keys::list(&redis)?, summary, format)));
        }
        KeysAction::Revoke { id } => match keys::revoke(&redis, &id)? {
            None => eprintln!("revoked {id} in Redis at {url}"),
            Some(at) => eprintln!("{id} was already revoked at {at}, in Redis at {url}"),
        },
        KeysAction::Set { id, plan, label } => {
            let changes = keys::set(&redis, &id, plan, label.as_deref())?;
            let said = crate::access::keys::said_of_changes(&changes);
            eprintln!("{id} in Redis at {url}: {said}");
        }
        KeysAction::Usage {
            from,
            to,
            key,
            by,
            tz,
            format,
        } => {
            let period = Period::of(from, to, tz.as_deref())?;
            let (from, to) = period.utc_days();
            let rows = usage::rows(&redis, &from, &to, key.as_deref())?;
            let keys = keys::list(&redis)?;
            return Ok(Some(Listing::Usage(keys, rows, period, key, by, format)));
        }
        KeysAction::Migrate { from } => {
            // Named files are merged into the keys file first, as without Redis.
            if !from.is_empty() {
                return Err(CliError::MigrateWithRedis);
            }
            for line in redis_files::migrate(&redis, &files.keys)? {
                eprintln!("{line}");
            }
            eprintln!(
                "read the keys file {}; wrote into Redis at {url}",
                files.keys.display()
            );
        }
    }
    Ok(None)
}

pub fn plans(url: &RedisUrl, action: PlansAction) -> Result<(), CliError> {
    let redis = Redis::new(url, CLI_TIMEOUT)?;
    match action {
        PlansAction::List => {
            for (plan, limit) in keys::plan_list(&redis)? {
                println!("{}\t{}", plan.name(), plans::shown(limit));
            }
            eprintln!("the plans in Redis at {url}");
        }
        PlansAction::Set { plan, per_minute } => {
            keys::set_limit(&redis, plan, per_minute)?;
            eprintln!(
                "the {} plan now allows {} requests a minute in Redis at {url}, on every server within a second",
                plan.name(),
                plans::shown(per_minute)
            );
        }
    }
    Ok(())
}

/// `backup DIR` with Redis: the keys and usage files from Redis, and the
/// dataset when this host has one.
pub fn backup(url: &RedisUrl, files: &Files, dir: &std::path::Path) -> Result<(), CliError> {
    let redis = Redis::new(url, CLI_TIMEOUT)?;
    std::fs::create_dir_all(dir).map_err(cannot("create", dir))?;
    Ok(redis_files::backup(&redis, &files.keys, dir)?)
}
