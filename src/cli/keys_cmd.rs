//! Running the operator's commands on keys, plans and backups. Each writes
//! the keys file alone (never the dataset), so servers pick the change up
//! within a second (access/key_store.rs), and names on stderr the file it
//! wrote or read. None makes a keys file that was not named (`KeysFile`).
//! With Redis named, keys_redis.rs runs them and hands back what `keys list`
//! and `keys usage` print, which this file prints for both stores (`keys
//! usage` through usage_print.rs).

use std::collections::HashMap;
use std::path::Path;

use super::config::{CreateFormat, Files, Format, KeysAction, KeysFile, PlansAction};
use super::error::CliError;
use super::keys_redis::{self, Listing};
use super::usage_print;
use crate::access::redis::url::RedisUrl;
use crate::access::usage::invoice::Period;
use crate::access::usage::report::{self as usage_report, DEFAULT_DAYS};
use crate::access::usage::usage_path;
use crate::access::{key_file, keys, migrate, plans};
use crate::dates;
use crate::domain::Plan;

pub fn keys(files: &Files, keys_file: KeysFile, action: KeysAction) -> Result<(), CliError> {
    if let Some(url) = &files.redis {
        return match keys_redis::keys(url, files, action)? {
            Some(listing) => print_from_redis(listing, url),
            None => Ok(()),
        };
    }
    let writes = matches!(
        action,
        KeysAction::Create { .. } | KeysAction::Migrate { .. }
    );
    let path = &files.keys;
    find_keys_file(files, keys_file, writes)?;
    super::move_keys(&files.db, path)?;
    if !writes {
        key_file::open_existing(path)?;
    }
    let shown = shown(path);
    match action {
        KeysAction::Create {
            plan,
            label,
            format,
        } => {
            let (id, key) = key_file::change(path, |conn| keys::create(conn, plan, &label))?;
            print_created(&id, &key, plan, &label, format)?;
            eprintln!(
                "created key {id} on the {} plan in {shown}; it is shown only this once",
                plan.name()
            );
        }
        KeysAction::List { format } => list(path, format)?,
        KeysAction::Revoke { id } => {
            match key_file::change(path, |conn| keys::revoke(conn, &id))? {
                None => eprintln!("revoked {id} in {shown}"),
                Some(at) => eprintln!("{id} was already revoked at {at}, in {shown}"),
            }
        }
        KeysAction::Set { id, plan, label } => {
            let changes =
                key_file::change(path, |conn| keys::set(conn, &id, plan, label.as_deref()))?;
            eprintln!("{id} in {shown}: {}", keys::said_of_changes(&changes));
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
            let (utc_from, utc_to) = period.utc_days();
            let usage = usage_path(path);
            let rows = usage_report::rows(&usage, &utc_from, &utc_to, key.as_deref())?;
            let keys = keys::list(&key_file::open_existing(path)?)?;
            usage_print::print(&keys, &rows, &period, key.as_deref(), by, format)?;
            eprintln!(
                "usage from {} of the keys in {shown}, read from {}",
                usage_print::said(&period),
                self::shown(&usage)
            );
        }
        KeysAction::Migrate { from } => migrate_all(&from, path)?,
    }
    Ok(())
}

/// Prints what a key command read from or made in Redis, as for the keys
/// file, naming Redis on stderr.
fn print_from_redis(listing: Listing, url: &RedisUrl) -> Result<(), CliError> {
    match listing {
        Listing::Created(id, key, plan, label, format) => {
            print_created(&id, &key, plan, &label, format)?;
            eprintln!(
                "created key {id} on the {} plan in Redis at {url}; it is shown only this once",
                plan.name()
            );
        }
        Listing::Keys(keys, usage, format) => {
            let count = counted(keys.len());
            print_list(keys, &usage, format)?;
            eprintln!("{count} in Redis at {url}");
        }
        Listing::Usage(keys, rows, period, key, by, format) => {
            usage_print::print(&keys, &rows, &period, key.as_deref(), by, format)?;
            eprintln!(
                "usage from {} read from Redis at {url}",
                usage_print::said(&period)
            );
        }
    }
    Ok(())
}

/// Refuses, in one line, a keys file that is neither there nor named: a key
/// written into a new file beside the dataset is read by no server pointed
/// at another (`--keys`, `AREA_KEYS`). `makes` is whether the command
/// takes `--new-keys-file`.
fn find_keys_file(files: &Files, keys_file: KeysFile, makes: bool) -> Result<(), CliError> {
    if files.keys.exists() {
        return Ok(());
    }
    let (keys, db) = (shown(&files.keys), shown(&files.db));
    match keys_file {
        KeysFile::Named => Ok(()),
        KeysFile::NewBeside if files.db.is_file() => Ok(()),
        KeysFile::NewBeside => Err(CliError::NoDatasetBeside { db }),
        KeysFile::Beside => Err(CliError::NoKeysFileBeside { keys, db, makes }),
    }
}

/// `keys create`'s stdout: the key alone, or its id, key, plan and label
/// as one JSON object.
fn print_created(
    id: &str,
    key: &str,
    plan: Plan,
    label: &str,
    format: CreateFormat,
) -> Result<(), CliError> {
    match format {
        CreateFormat::Key => println!("{key}"),
        CreateFormat::Json => {
            #[derive(serde::Serialize)]
            struct Created<'a> {
                key_id: &'a str,
                key: &'a str,
                plan: &'a str,
                label: &'a str,
            }
            let created = Created {
                key_id: id,
                key,
                plan: plan.name(),
                label,
            };
            println!("{}", serde_json::to_string(&created)?);
        }
    }
    Ok(())
}

/// Merges each file in turn; one that holds no keys (moved out already) is
/// said and passed over, and a failure of one does not stop the others.
fn migrate_all(from: &[std::path::PathBuf], keys: &Path) -> Result<(), CliError> {
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
    eprintln!("the keys file merged into is {}", shown(keys));
    match failed {
        0 => Ok(()),
        failed => Err(CliError::NotMerged {
            failed,
            files: from.len(),
        }),
    }
}

/// Each key with its last day used and its requests of the last 30 days.
fn list(path: &Path, format: Format) -> Result<(), CliError> {
    let conn = key_file::open_existing(path)?;
    let since = dates::format_date(dates::today() - (DEFAULT_DAYS - 1));
    let usage = usage_report::summary(&usage_path(path), &since)?;
    let keys = keys::list(&conn)?;
    let count = counted(keys.len());
    print_list(keys, &usage, format)?;
    eprintln!("{count} in {}", shown(path));
    Ok(())
}

/// "1 key", "2 keys".
fn counted(n: usize) -> String {
    match n {
        1 => "1 key".into(),
        n => format!("{n} keys"),
    }
}

/// A file as the operator should find it: from the root, as a command may
/// run in any folder.
fn shown(path: &Path) -> String {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// `keys list`'s columns; JSON names its fields so too.
const LIST_COLUMNS: [&str; 7] = [
    "key_id",
    "plan",
    "label",
    "created_at",
    "revoked_at",
    "last_used",
    "requests_30d",
];

/// One line of `keys list`: a key with its use.
#[derive(serde::Serialize)]
struct Listed {
    key_id: String,
    plan: String,
    label: String,
    created_at: String,
    revoked_at: Option<String>,
    last_used: Option<String>,
    requests_30d: u64,
}

impl Listed {
    /// Its cells in `LIST_COLUMNS` order, `none` where there is no value.
    fn cells<'a>(&'a self, none: &'a str) -> [String; 7] {
        let or_none = |v: Option<&'a str>| v.unwrap_or(none).to_string();
        [
            self.key_id.clone(),
            self.plan.clone(),
            or_none(Some(self.label.as_str()).filter(|l| !l.is_empty())),
            self.created_at.clone(),
            or_none(self.revoked_at.as_deref()),
            or_none(self.last_used.as_deref()),
            self.requests_30d.to_string(),
        ]
    }
}

/// `keys list`'s rows, from whichever store the keys and usage came: a
/// header, then one line a key, tab-separated, with `-` for no value; or
/// CSV with empty cells; or a JSON array with nulls.
fn print_list(
    keys: Vec<keys::KeyRow>,
    usage: &HashMap<String, (Option<String>, u64)>,
    format: Format,
) -> Result<(), CliError> {
    let rows: Vec<Listed> = keys
        .into_iter()
        .map(|k| {
            let (last_used, requests_30d) = usage.get(&k.id).cloned().unwrap_or_default();
            Listed {
                key_id: k.id,
                plan: k.plan,
                label: k.label,
                created_at: k.created_at,
                revoked_at: k.revoked_at,
                last_used,
                requests_30d,
            }
        })
        .collect();
    let fail = |source| CliError::Write {
        what: "the list",
        source,
    };
    match format {
        Format::Table => {
            println!("{}", LIST_COLUMNS.join("\t"));
            for row in &rows {
                println!("{}", row.cells("-").join("\t"));
            }
        }
        // Labels may hold commas and quotes: the csv crate quotes them.
        Format::Csv => {
            let mut out = csv::Writer::from_writer(std::io::stdout().lock());
            let record = |out: &mut csv::Writer<_>, cells: &[String]| {
                out.write_record(cells)
                    .map_err(|source| CliError::WriteCsv {
                        what: "the list",
                        source,
                    })
            };
            record(&mut out, &LIST_COLUMNS.map(String::from))?;
            for row in &rows {
                record(&mut out, &row.cells(""))?;
            }
            out.flush().map_err(fail)?;
        }
        Format::Json => println!("{}", serde_json::to_string(&rows)?),
    }
    Ok(())
}

pub fn plans(files: &Files, keys_file: KeysFile, action: PlansAction) -> Result<(), CliError> {
    if let Some(url) = &files.redis {
        return keys_redis::plans(url, action);
    }
    let writes = matches!(action, PlansAction::Set { .. });
    find_keys_file(files, keys_file, writes)?;
    super::move_keys(&files.db, &files.keys)?;
    let shown = shown(&files.keys);
    match action {
        PlansAction::List => {
            let conn = key_file::open_existing(&files.keys)?;
            for (plan, limit) in plans::list(&conn)? {
                println!("{}\t{}", plan.name(), plans::shown(limit));
            }
            eprintln!("the plans of {shown}");
        }
        PlansAction::Set { plan, per_minute } => {
            key_file::change(&files.keys, |conn| plans::set_limit(conn, plan, per_minute))?;
            eprintln!(
                "the {} plan now allows {} requests a minute, in {shown}",
                plan.name(),
                plans::shown(per_minute)
            );
        }
    }
    Ok(())
}
