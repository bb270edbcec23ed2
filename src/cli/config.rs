//! The command line: subcommands, flags, environment variables and defaults.
//!
//! A flag beats its environment variable, which beats the default. Parsing
//! only builds a `Command`; `cli/mod.rs` runs it.

use std::path::PathBuf;
use std::time::Duration;

use crate::cli::help::{IMPORT_USAGE, INIT_USAGE, KEYS_USAGE, SERVE_USAGE, USAGE};
use crate::domain::Plan;
use crate::transport::ServeConfig;

pub const DEFAULT_DB: &str = "data/areas.db";
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";
pub const DEFAULT_CLIENT_TIMEOUT_SECS: u64 = 10;

#[derive(Debug, PartialEq)]
pub enum Command {
    Init {
        db: PathBuf,
        force: bool,
        synthetic: Option<Synthetic>,
    },
    Import {
        db: PathBuf,
        file: PathBuf,
    },
    Serve(ServeConfig),
    KeysCreate {
        db: PathBuf,
        plan: Plan,
        label: String,
    },
    KeysList {
        db: PathBuf,
    },
    KeysRevoke {
        db: PathBuf,
        id: String,
    },
    /// `--help`: print this text on stdout and exit 0.
    Help(&'static str),
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
    let fail = |usage: &'static str| move |message: String| UsageError { message, usage };
    let Some((command, rest)) = args.split_first() else {
        return Err(UsageError {
            message: "no command given".into(),
            usage: USAGE,
        });
    };
    let db = |flags: &Flags| {
        flags
            .value("--db")
            .or_else(|| env("AREA_DB"))
            .unwrap_or_else(|| DEFAULT_DB.into())
            .into()
    };
    match command.as_str() {
        "--help" | "-h" | "help" => Ok(Command::Help(USAGE)),
        "init" => {
            let f = Flags::parse(
                rest,
                &["--db", "--synthetic", "--history-days"],
                &["--force"],
                0,
            )
            .map_err(fail(INIT_USAGE))?;
            if f.help {
                return Ok(Command::Help(INIT_USAGE));
            }
            let count = |name: &str, max: usize| -> Result<Option<usize>, UsageError> {
                f.value(name)
                    .map(|v| {
                        v.parse::<usize>()
                            .ok()
                            .filter(|n| (1..=max).contains(n))
                            .ok_or_else(|| {
                                fail(INIT_USAGE)(format!(
                                    "{name} must be a number from 1 to {max}, not '{v}'"
                                ))
                            })
                    })
                    .transpose()
            };
            let areas = count("--synthetic", 10_000_000)?;
            let history_days = count("--history-days", 3650)?;
            let synthetic = match (areas, history_days) {
                (Some(areas), days) => Some(Synthetic {
                    areas,
                    history_days: days.unwrap_or(400),
                }),
                (None, Some(_)) => {
                    return Err(fail(INIT_USAGE)(
                        "--history-days goes with --synthetic".into(),
                    ));
                }
                (None, None) => None,
            };
            Ok(Command::Init {
                db: db(&f),
                force: f.switch("--force"),
                synthetic,
            })
        }
        "import" => {
            let f = Flags::parse(rest, &["--db"], &[], 1).map_err(fail(IMPORT_USAGE))?;
            if f.help {
                return Ok(Command::Help(IMPORT_USAGE));
            }
            let file = f
                .positional
                .first()
                .ok_or_else(|| fail(IMPORT_USAGE)("import needs a FILE".into()))?;
            Ok(Command::Import {
                db: db(&f),
                file: file.into(),
            })
        }
        "serve" => {
            let f = Flags::parse(
                rest,
                &[
                    "--db",
                    "--addr",
                    "--workers",
                    "--client-timeout",
                    "--metrics-addr",
                ],
                &[],
                0,
            )
            .map_err(fail(SERVE_USAGE))?;
            if f.help {
                return Ok(Command::Help(SERVE_USAGE));
            }
            let workers = match f.value("--workers").or_else(|| env("AREA_WORKERS")) {
                None => default_workers(),
                Some(w) => w
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=256).contains(n))
                    .ok_or_else(|| {
                        fail(SERVE_USAGE)(format!(
                            "--workers must be a number from 1 to 256, not '{w}'"
                        ))
                    })?,
            };
            let client_timeout = match f
                .value("--client-timeout")
                .or_else(|| env("AREA_CLIENT_TIMEOUT"))
            {
                None => DEFAULT_CLIENT_TIMEOUT_SECS,
                Some(t) => t
                    .parse::<u64>()
                    .ok()
                    .filter(|n| (1..=3600).contains(n))
                    .ok_or_else(|| {
                        fail(SERVE_USAGE)(format!(
                            "--client-timeout must be a number of seconds from 1 to 3600, not '{t}'"
                        ))
                    })?,
            };
            let addr = f
                .value("--addr")
                .or_else(|| env("AREA_ADDR"))
                .unwrap_or_else(|| DEFAULT_ADDR.into());
            let metrics_addr = f
                .value("--metrics-addr")
                .or_else(|| env("AREA_METRICS_ADDR"));
            Ok(Command::Serve(ServeConfig {
                db: db(&f),
                addr,
                workers,
                client_timeout: Duration::from_secs(client_timeout),
                metrics_addr,
            }))
        }
        "keys" => parse_keys(rest, &db),
        other => Err(UsageError {
            message: format!("unknown command '{other}'"),
            usage: USAGE,
        }),
    }
}

fn parse_keys(args: &[String], db: &dyn Fn(&Flags) -> PathBuf) -> Result<Command, UsageError> {
    let fail = |message: String| UsageError {
        message,
        usage: KEYS_USAGE,
    };
    let Some((action, rest)) = args.split_first() else {
        return Err(fail("keys needs an action: create, list or revoke".into()));
    };
    match action.as_str() {
        "--help" | "-h" => Ok(Command::Help(KEYS_USAGE)),
        "create" => {
            let f = Flags::parse(rest, &["--db", "--plan", "--label"], &[], 0).map_err(fail)?;
            if f.help {
                return Ok(Command::Help(KEYS_USAGE));
            }
            let plan = f
                .value("--plan")
                .ok_or_else(|| fail("keys create needs --plan".into()))?;
            let plan = Plan::from_name(&plan).ok_or_else(|| {
                fail(format!(
                    "unknown plan '{plan}': choose free, starter, growth or enterprise"
                ))
            })?;
            Ok(Command::KeysCreate {
                db: db(&f),
                plan,
                label: f.value("--label").unwrap_or_default(),
            })
        }
        "list" => {
            let f = Flags::parse(rest, &["--db"], &[], 0).map_err(fail)?;
            if f.help {
                return Ok(Command::Help(KEYS_USAGE));
            }
            Ok(Command::KeysList { db: db(&f) })
        }
        "revoke" => {
            let f = Flags::parse(rest, &["--db"], &[], 1).map_err(fail)?;
            if f.help {
                return Ok(Command::Help(KEYS_USAGE));
            }
            let id = f
                .positional
                .first()
                .cloned()
                .ok_or_else(|| fail("keys revoke needs a key id".into()))?;
            Ok(Command::KeysRevoke { db: db(&f), id })
        }
        other => Err(fail(format!("unknown keys action '{other}'"))),
    }
}

fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()) * 2
}

/// Flags of one subcommand: `--name value`, `--name=value`, switches, `--help`,
/// and up to `max_positional` plain arguments.
struct Flags {
    values: Vec<(String, String)>,
    switches: Vec<String>,
    positional: Vec<String>,
    help: bool,
}

impl Flags {
    fn parse(
        args: &[String],
        valued: &[&str],
        switches: &[&str],
        max_positional: usize,
    ) -> Result<Flags, String> {
        let mut flags = Flags {
            values: Vec::new(),
            switches: Vec::new(),
            positional: Vec::new(),
            help: false,
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
                _ => (arg.as_str(), None),
            };
            if name == "--help" || name == "-h" {
                flags.help = true;
            } else if valued.contains(&name) {
                let value = match inline {
                    Some(v) => v,
                    None => it
                        .next()
                        .filter(|v| !v.starts_with("--"))
                        .cloned()
                        .ok_or(format!("{name} needs a value"))?,
                };
                if flags.values.iter().any(|(n, _)| n == name) {
                    return Err(format!("{name} given twice"));
                }
                flags.values.push((name.to_string(), value));
            } else if switches.contains(&name) && inline.is_none() {
                flags.switches.push(name.to_string());
            } else if name.starts_with('-') {
                return Err(format!("unknown option '{arg}'"));
            } else if flags.positional.len() < max_positional {
                flags.positional.push(arg.clone());
            } else {
                return Err(format!("unexpected argument '{arg}'"));
            }
        }
        Ok(flags)
    }

    fn value(&self, name: &str) -> Option<String> {
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }

    fn switch(&self, name: &str) -> bool {
        self.switches.iter().any(|s| s == name)
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
