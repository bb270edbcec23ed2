//! The command line: subcommands, flags, environment variables and defaults.
//!
//! A flag beats its environment variable, which beats the default. Parsing
//! only builds a `Command`; `cli.rs` runs it.

use std::path::PathBuf;
use std::time::Duration;

use crate::domain::Plan;
use crate::server::ServeConfig;

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

pub const USAGE: &str = "usage: area-scoring <command> [options]

commands:
  init [--db PATH] [--force]                         create the database from schema.sql and seed/
  import [--db PATH] FILE                            replace the areas with your own (CSV or JSON Lines)
  serve [--db PATH] [--addr HOST:PORT] [--workers N] [--client-timeout SECS] [--metrics-addr HOST:PORT]
                                                     serve the API
  keys create [--db PATH] --plan PLAN [--label TEXT] issue an API key (plans: free, starter, growth, enterprise)
  keys list [--db PATH]                              list keys (ids, never the keys)
  keys revoke [--db PATH] ID                         revoke a key by its id

environment: AREA_DB, AREA_ADDR, AREA_WORKERS, AREA_CLIENT_TIMEOUT, AREA_METRICS_ADDR
(a flag beats its variable)
run 'area-scoring <command> --help' for more";

const INIT_USAGE: &str =
    "usage: area-scoring init [--db PATH] [--force] [--synthetic N [--history-days D]]

Creates the database from schema.sql and the seed places with synthetic scores.
  --db PATH           database file (default data/areas.db, or AREA_DB)
  --force             replace an existing file (its API keys are kept)
  --synthetic N       instead of the seed, N generated areas around the seed places (for benchmarks)
  --history-days D    days of history per generated area (default 400)";

const IMPORT_USAGE: &str = "usage: area-scoring import [--db PATH] FILE

Replaces the areas of the database with those in FILE (.csv or .jsonl; see README).
Every row is checked first and every bad row reported; nothing changes unless all are good.
API keys are kept. A running server picks up the new file on reload.
  --db PATH   database file (default data/areas.db, or AREA_DB)";

const SERVE_USAGE: &str = "usage: area-scoring serve [--db PATH] [--addr HOST:PORT] [--workers N]
                          [--client-timeout SECS] [--metrics-addr HOST:PORT]

  --db PATH                database file (default data/areas.db, or AREA_DB)
  --addr HOST:PORT         address to listen on (default 127.0.0.1:8080, or AREA_ADDR); port 0 picks a free port
  --workers N              request worker threads, 1 to 256 (default 2 per CPU, or AREA_WORKERS)
  --client-timeout SECS    drop a client that sends or reads nothing for this long, 1 to 3600
                           (default 10, or AREA_CLIENT_TIMEOUT)
  --metrics-addr HOST:PORT serve /metrics there instead of on --addr (or AREA_METRICS_ADDR)

Signals: SIGTERM/SIGINT finish the requests in flight and exit 0; SIGHUP reloads the
database file (replacing the file by a rename is also noticed within a second).";

const KEYS_USAGE: &str = "usage: area-scoring keys create [--db PATH] --plan PLAN [--label TEXT]
       area-scoring keys list [--db PATH]
       area-scoring keys revoke [--db PATH] ID

  create  prints the new key on stdout, and nothing else; plans: free, starter, growth, enterprise
  list    one line per key: id, plan, label, created, revoked
  revoke  revokes the key with that id";

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
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn flags_beat_environment_beats_defaults() {
        let env = |k: &str| match k {
            "AREA_DB" => Some("env.db".to_string()),
            "AREA_ADDR" => Some("0.0.0.0:9".to_string()),
            "AREA_WORKERS" => Some("3".to_string()),
            _ => None,
        };
        let Command::Serve(c) = parse(&args("serve --db flag.db"), &env).unwrap() else {
            panic!()
        };
        assert_eq!(
            c,
            ServeConfig {
                db: "flag.db".into(),
                addr: "0.0.0.0:9".into(),
                workers: 3,
                client_timeout: Duration::from_secs(10),
                metrics_addr: None,
            }
        );
        let Command::Serve(c) = parse(&args("serve --workers=5"), &no_env).unwrap() else {
            panic!()
        };
        assert_eq!(
            (c.db, c.addr, c.workers),
            (DEFAULT_DB.into(), DEFAULT_ADDR.into(), 5)
        );
        assert_eq!(
            parse(&args("keys list"), &env).unwrap(),
            Command::KeysList {
                db: "env.db".into()
            }
        );
    }

    #[test]
    fn refuses_unknown_flags_and_missing_values() {
        for bad in [
            "",
            "serve --port 1",
            "serve --db",
            "serve --workers 0",
            "serve --workers x",
            "init --force=1",
            "keys",
            "keys create",
            "keys create --plan gold",
            "keys revoke",
            "keys revoke a b",
            "bogus",
            "serve --db a --db b",
            "serve --client-timeout 0",
            "serve --client-timeout 0",
            "init --history-days 5",
            "init --synthetic 0",
            "import",
            "import a b",
        ] {
            assert!(parse(&args(bad), &no_env).is_err(), "{bad}");
        }
    }

    #[test]
    fn parses_every_command() {
        assert_eq!(
            parse(&args("init --force"), &no_env).unwrap(),
            Command::Init {
                db: DEFAULT_DB.into(),
                force: true,
                synthetic: None
            }
        );
        assert_eq!(
            parse(&args("init --synthetic 1000"), &no_env).unwrap(),
            Command::Init {
                db: DEFAULT_DB.into(),
                force: false,
                synthetic: Some(Synthetic {
                    areas: 1000,
                    history_days: 400
                })
            }
        );
        assert_eq!(
            parse(&args("import x.csv"), &no_env).unwrap(),
            Command::Import {
                db: DEFAULT_DB.into(),
                file: "x.csv".into()
            }
        );
        assert_eq!(
            parse(&args("keys create --plan growth --label dev"), &no_env).unwrap(),
            Command::KeysCreate {
                db: DEFAULT_DB.into(),
                plan: Plan::Growth,
                label: "dev".into()
            }
        );
        assert_eq!(
            parse(&args("keys revoke key_1 --db x.db"), &no_env).unwrap(),
            Command::KeysRevoke {
                db: "x.db".into(),
                id: "key_1".into()
            }
        );
        assert_eq!(
            parse(&args("serve --help"), &no_env).unwrap(),
            Command::Help(SERVE_USAGE)
        );
    }
}
