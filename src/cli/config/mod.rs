//! The command line: subcommands, flags, environment variables and defaults.
//!
//! A flag beats its environment variable, which beats the default. Parsing
//! only builds a `Command`; `cli/mod.rs` runs it.

use std::ops::RangeInclusive;
use std::path::PathBuf;

use super::flags::Flags;
use crate::access::key_file;
use crate::access::redis::url::{self as redis_url, REDIS_FLAG, RedisUrl};
use crate::access::redis::url_file::{REDIS_FILE_VARIABLE, REDIS_VARIABLE};
use crate::cli::help::{
    IMPORT_USAGE, INFO_USAGE, INIT_USAGE, OPENAPI_USAGE, ROLLBACK_USAGE, UPGRADE_USAGE, USAGE,
};
use crate::cli::info::INFO_FORMATS;
pub use crate::cli::info::InfoFormat;
use crate::data::import::{self, CsvOptions, region::Region};
use crate::server::ServeConfig;
pub use keys::{By, CreateFormat, Format, KeysAction, KeysFile, PlansAction};

pub const DEFAULT_DB: &str = "data/areas.db";
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";
pub const DEFAULT_CLIENT_TIMEOUT_SECS: u64 = 10;
/// `--client-timeout`, in seconds.
pub const CLIENT_TIMEOUT_SECS: RangeInclusive<u64> = 1..=3600;
/// `--max-connections`: at least one, at most a million (the descriptor
/// limit caps it further; see transport/limits.rs).
pub const MAX_CONNECTIONS: RangeInclusive<usize> = 1..=1_000_000;
/// `--max-connections-per-address`; 0 turns the cap off.
pub const MAX_CONNECTIONS_PER_ADDRESS: RangeInclusive<usize> = 0..=1_000_000;
/// `--max-exports-per-key`: one key may take every export slot, no more.
pub const EXPORTS_PER_KEY: RangeInclusive<usize> = 1..=crate::app::exports::MAX_EXPORTS;
/// `--workers`; the default is twice the cores.
pub const WORKERS: RangeInclusive<usize> = 1..=256;
/// `init --synthetic N`.
pub const SYNTHETIC_AREAS: RangeInclusive<usize> = 1..=10_000_000;
/// `init --history-days D`, and its default.
pub const HISTORY_DAYS: RangeInclusive<usize> = 1..=3650;
pub const DEFAULT_HISTORY_DAYS: usize = 400;

/// The files a command works on: the dataset, and the keys file (by
/// default beside the dataset; the usage file sits beside the keys file).
#[derive(Debug, Clone, PartialEq)]
pub struct Files {
    pub db: PathBuf,
    pub keys: PathBuf,
    /// Keys, plans and usage are in Redis instead of the keys file when named.
    pub redis: Option<RedisUrl>,
}

#[derive(Debug, PartialEq)]
pub enum Command {
    Init {
        db: PathBuf,
        keys: PathBuf,
        redis: Option<RedisUrl>,
        force: bool,
        synthetic: Option<Synthetic>,
    },
    Import {
        db: PathBuf,
        keys: PathBuf,
        redis: Option<RedisUrl>,
        file: PathBuf,
        /// `--allow-shrink`, the CSV flags and `--region`.
        options: import::Options,
        /// `--check`: say what the import would change, and write nothing.
        check: bool,
    },
    /// `rollback`: put `<db>.previous` back.
    Rollback {
        db: PathBuf,
    },
    /// `info [FILE]`: print a dataset's identity (FILE, else the dataset).
    Info {
        file: PathBuf,
        format: InfoFormat,
    },
    /// `upgrade [FILE]`: rewrite a dataset of an older layout (FILE, else the dataset).
    Upgrade {
        file: PathBuf,
    },
    /// `openapi`: print the OpenAPI document.
    OpenApi,
    Serve(ServeConfig),
    Keys {
        files: Files,
        keys_file: KeysFile,
        action: KeysAction,
    },
    Plans {
        files: Files,
        keys_file: KeysFile,
        action: PlansAction,
    },
    /// `backup DIR`: consistent copies of the keys, usage and dataset files.
    Backup {
        files: Files,
        dir: PathBuf,
    },
    /// `restore DIR [--yes]`: put back what `backup DIR` wrote.
    Restore {
        files: Files,
        dir: PathBuf,
        /// `--yes`: restore even when that undoes changes made since the backup.
        yes: bool,
    },
    /// `--help`: print this text on stdout and exit 0.
    Help(&'static str),
    /// `--version`: print the name and version on stdout and exit 0.
    Version,
}

/// `init --synthetic N [--history-days D]`: a large generated database for benchmarks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Synthetic {
    pub areas: usize,
    pub history_days: usize,
}

/// Refused arguments: print `message` and `usage` on stderr, exit 2.
#[derive(Debug, PartialEq)]
pub struct UsageError {
    pub message: String,
    pub usage: &'static str,
}

/// Parses the arguments after the program name. `env` reads environment variables.
pub fn parse(args: &[String], env: &dyn Fn(&str) -> Option<String>) -> Result<Command, UsageError> {
    let Some((command, rest)) = args.split_first() else {
        return Err(usage_error(USAGE)("no command given".into()));
    };
    let context = Context { env };
    match command.as_str() {
        "--help" | "-h" | "help" => Ok(Command::Help(USAGE)),
        "--version" | "-V" | "version" => Ok(Command::Version),
        "init" => context.init(rest),
        "import" => context.import(rest),
        "rollback" => context.rollback(rest),
        "info" => context.info(rest),
        "upgrade" => context.upgrade(rest),
        "openapi" => context.openapi(rest),
        "serve" => context.serve(rest),
        "keys" => context.keys(rest),
        "plans" => context.plans(rest),
        "backup" => context.backup(rest),
        "restore" => context.restore(rest),
        other => Err(usage_error(USAGE)(format!("unknown command '{other}'"))),
    }
}

/// A refusal that prints `usage` after its message.
fn usage_error(usage: &'static str) -> impl Fn(String) -> UsageError {
    move |message| UsageError { message, usage }
}

/// What every subcommand's parser shares: the environment, and the flags
/// every command takes.
struct Context<'a> {
    env: &'a dyn Fn(&str) -> Option<String>,
}

impl Context<'_> {
    /// A flag's value, else its environment variable's.
    fn setting(&self, f: &Flags, flag: &str, variable: &str) -> Option<String> {
        f.value(flag).or_else(|| (self.env)(variable))
    }

    fn db(&self, f: &Flags) -> PathBuf {
        self.setting(f, "--db", "AREA_DB")
            .unwrap_or_else(|| DEFAULT_DB.into())
            .into()
    }

    /// The dataset, and the keys file: `--keys`, else `AREA_KEYS`, else
    /// `keys.db` in the dataset's folder.
    fn files(&self, f: &Flags) -> Files {
        let db = self.db(f);
        let keys = self
            .setting(f, "--keys", "AREA_KEYS")
            .map_or_else(|| key_file::default_path(&db), PathBuf::from);
        // Checked by `flags` already: every command's flags pass through it.
        let redis = self.redis(f).ok().flatten();
        Files { db, keys, redis }
    }

    /// `--redis` (never with a password), else `AREA_REDIS` or the file
    /// `AREA_REDIS_FILE` names, else none.
    fn redis(&self, f: &Flags) -> Result<Option<RedisUrl>, String> {
        redis_url::choose(
            f.value(REDIS_FLAG),
            (self.env)(REDIS_VARIABLE),
            (self.env)(REDIS_FILE_VARIABLE),
        )
    }

    /// The subcommand's flags, or its help text when `--help` is among them.
    fn flags(
        &self,
        args: &[String],
        usage: &'static str,
        valued: &[&str],
        switches: &[&str],
        max_positional: usize,
    ) -> Result<Result<Flags, Command>, UsageError> {
        // Every command takes --redis (docs/operations.md, "Keys").
        let valued = [valued, &[REDIS_FLAG]].concat();
        let f =
            Flags::parse(args, &valued, switches, max_positional).map_err(usage_error(usage))?;
        if !f.help {
            self.redis(&f).map_err(usage_error(usage))?;
        }
        Ok(if f.help {
            Err(Command::Help(usage))
        } else {
            Ok(f)
        })
    }

    fn init(&self, args: &[String]) -> Result<Command, UsageError> {
        let valued = ["--db", "--keys", "--synthetic", "--history-days"];
        let f = match self.flags(args, INIT_USAGE, &valued, &["--force"], 0)? {
            Ok(f) => f,
            Err(help) => return Ok(help),
        };
        let count = |name, range| number(f.value(name), name, range, "a number", INIT_USAGE);
        let areas = count("--synthetic", SYNTHETIC_AREAS)?;
        let history_days = count("--history-days", HISTORY_DAYS)?;
        let synthetic = match (areas, history_days) {
            (Some(areas), days) => Some(Synthetic {
                areas,
                history_days: days.unwrap_or(DEFAULT_HISTORY_DAYS),
            }),
            (None, Some(_)) => {
                return Err(usage_error(INIT_USAGE)(
                    "--history-days goes with --synthetic".into(),
                ));
            }
            (None, None) => None,
        };
        let Files { db, keys, redis } = self.files(&f);
        Ok(Command::Init {
            db,
            keys,
            redis,
            force: f.switch("--force"),
            synthetic,
        })
    }

    fn import(&self, args: &[String]) -> Result<Command, UsageError> {
        let valued = [
            "--db",
            "--keys",
            "--ignore-column",
            "--delimiter",
            "--region",
        ];
        let switches = ["--allow-shrink", "--decimal-comma", "--check"];
        let f = match self.flags(args, IMPORT_USAGE, &valued, &switches, 1)? {
            Ok(f) => f,
            Err(help) => return Ok(help),
        };
        let file = f
            .positional
            .first()
            .ok_or_else(|| usage_error(IMPORT_USAGE)("import needs a FILE".into()))?;
        let Files { db, keys, redis } = self.files(&f);
        Ok(Command::Import {
            db,
            keys,
            redis,
            file: file.into(),
            options: import::Options {
                allow: import::Allow {
                    shrink: f.switch("--allow-shrink"),
                },
                csv: CsvOptions {
                    ignore_columns: f.values("--ignore-column"),
                    delimiter: delimiter(f.value("--delimiter"))?,
                    decimal_comma: f.switch("--decimal-comma"),
                },
                region: f
                    .value("--region")
                    .map(|text| Region::parse(&text))
                    .transpose()
                    .map_err(usage_error(IMPORT_USAGE))?,
            },
            check: f.switch("--check"),
        })
    }

    fn rollback(&self, args: &[String]) -> Result<Command, UsageError> {
        // --keys, which every command takes, is not used: keys are no part of a dataset.
        match self.flags(args, ROLLBACK_USAGE, &["--db", "--keys"], &[], 0)? {
            Ok(f) => Ok(Command::Rollback { db: self.db(&f) }),
            Err(help) => Ok(help),
        }
    }

    fn upgrade(&self, args: &[String]) -> Result<Command, UsageError> {
        // --keys, which every command takes, is not used: keys are no part of a dataset.
        let f = match self.flags(args, UPGRADE_USAGE, &["--db", "--keys"], &[], 1)? {
            Ok(f) => f,
            Err(help) => return Ok(help),
        };
        let file = f
            .positional
            .first()
            .map_or_else(|| self.db(&f), PathBuf::from);
        Ok(Command::Upgrade { file })
    }

    fn openapi(&self, args: &[String]) -> Result<Command, UsageError> {
        match self.flags(args, OPENAPI_USAGE, &["--db", "--keys"], &[], 0)? {
            Ok(_) => Ok(Command::OpenApi),
            Err(help) => Ok(help),
        }
    }

    fn info(&self, args: &[String]) -> Result<Command, UsageError> {
        // --keys, which every command takes, is not used: keys are no part of a dataset.
        let f = match self.flags(args, INFO_USAGE, &["--db", "--keys", "--format"], &[], 1)? {
            Ok(f) => f,
            Err(help) => return Ok(help),
        };
        let format = match f.value("--format") {
            None => INFO_FORMATS[0].1,
            Some(word) => INFO_FORMATS
                .iter()
                .find(|(name, _)| *name == word)
                .map(|(_, format)| *format)
                .ok_or_else(|| {
                    usage_error(INFO_USAGE)(format!("--format is text or json, not '{word}'"))
                })?,
        };
        let file = f
            .positional
            .first()
            .map_or_else(|| self.db(&f), PathBuf::from);
        Ok(Command::Info { file, format })
    }
}

/// `import --delimiter`: `,`, `;` or `tab` (or a tab itself).
fn delimiter(value: Option<String>) -> Result<Option<u8>, UsageError> {
    match value.as_deref() {
        None => Ok(None),
        Some(",") => Ok(Some(b',')),
        Some(";") => Ok(Some(b';')),
        Some("tab" | "\t") => Ok(Some(b'\t')),
        Some(other) => Err(usage_error(IMPORT_USAGE)(format!(
            "--delimiter is ',', ';' or tab, not '{other}'"
        ))),
    }
}

/// A whole number within `range`, if given; `what` names it in the refusal.
fn number<T>(
    value: Option<String>,
    name: &str,
    range: RangeInclusive<T>,
    what: &str,
    usage: &'static str,
) -> Result<Option<T>, UsageError>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    let Some(v) = value else { return Ok(None) };
    match v.parse::<T>() {
        Ok(n) if range.contains(&n) => Ok(Some(n)),
        _ => Err(usage_error(usage)(format!(
            "{name} must be {what} from {} to {}, not '{v}'",
            range.start(),
            range.end()
        ))),
    }
}

fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()) * 2
}

mod keys;
mod serve;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod redis_tests;
