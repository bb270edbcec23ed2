//! The operator's commands on keys, plans and their files: `keys`, `plans`
//! `backup` and `restore`, parsed into a `Command` (docs/operations.md, "Keys").

use std::path::PathBuf;

use super::{Command, Context, Flags, usage_error};
use crate::access::plans;
use crate::cli::help::{BACKUP_USAGE, KEYS_USAGE, PLANS_USAGE, RESTORE_USAGE};
use crate::dates;
use crate::domain::Plan;

#[derive(Debug, PartialEq)]
pub enum KeysAction {
    Create {
        plan: Plan,
        label: String,
        format: CreateFormat,
    },
    List {
        format: Format,
    },
    Revoke {
        id: String,
    },
    /// Another plan and/or label for a key; at least one is given.
    Set {
        id: String,
        plan: Option<Plan>,
        label: Option<String>,
    },
    /// Days as day numbers, inclusive, in the zone `tz` (an IANA name,
    /// checked; None is UTC); None takes the default (the last 30 days).
    Usage {
        from: Option<i64>,
        to: Option<i64>,
        key: Option<String>,
        by: By,
        tz: Option<String>,
        format: Format,
    },
    /// Merge the keys of these files (old datasets, replica copies).
    Migrate {
        from: Vec<PathBuf>,
    },
}

/// How `keys list` and `keys usage` print their rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Format {
    Table,
    Csv,
    Json,
}

/// `keys list --format` and `keys usage --format`, and the default first.
pub const FORMATS: [(&str, Format); 3] = [
    ("table", Format::Table),
    ("csv", Format::Csv),
    ("json", Format::Json),
];

/// What a line of `keys usage` adds up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum By {
    /// Each key's totals over the period, with its label and plans: an invoice.
    Key,
    /// Each key's requests on each day.
    Day,
}

/// `keys usage --by`, and the default first.
pub const BY: [(&str, By); 2] = [("key", By::Key), ("day", By::Day)];

/// How `keys create` prints the new key on stdout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CreateFormat {
    /// The key alone, for `KEY=$(area-scoring keys create ...)`.
    Key,
    /// Its id, the key, plan and label, as one JSON object.
    Json,
}

/// `keys create --format`, and the default first.
pub const CREATE_FORMATS: [(&str, CreateFormat); 2] =
    [("key", CreateFormat::Key), ("json", CreateFormat::Json)];

/// Whether a key command may make its keys file when none is there. Only a
/// file named on purpose is made, so that no key is written where no server
/// reads it (docs/operations.md, "Keys").
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KeysFile {
    /// `--keys` or `AREA_KEYS`: made when missing by the commands that write.
    Named,
    /// `keys.db` beside the dataset, as nothing named another: used when there.
    Beside,
    /// `keys.db` beside the dataset, made when missing: `--new-keys-file`.
    NewBeside,
}

/// The switch that lets a command make the keys file beside the dataset.
pub const NEW_KEYS_FILE: &str = "--new-keys-file";

#[derive(Debug, PartialEq)]
pub enum PlansAction {
    List,
    /// None is unlimited.
    Set {
        plan: Plan,
        per_minute: Option<u32>,
    },
}

/// How many files `keys migrate` takes at once.
const MAX_MIGRATE_FILES: usize = 64;

impl Context<'_> {
    pub(super) fn keys(&self, args: &[String]) -> Result<Command, super::UsageError> {
        let fail = usage_error(KEYS_USAGE);
        let Some((action, rest)) = args.split_first() else {
            return Err(fail(
                "keys needs an action: create, list, revoke, set, usage or migrate".into(),
            ));
        };
        let files_flags = ["--db", "--keys"];
        let (valued, positional): (Vec<&str>, usize) = match action.as_str() {
            "--help" | "-h" => return Ok(Command::Help(KEYS_USAGE)),
            "create" => (
                [&files_flags[..], &["--plan", "--label", "--format"]].concat(),
                0,
            ),
            "list" => ([&files_flags[..], &["--format"]].concat(), 0),
            "revoke" => (files_flags.to_vec(), 1),
            "set" => ([&files_flags[..], &["--plan", "--label"]].concat(), 1),
            "usage" => (
                [
                    &files_flags[..],
                    &[
                        "--month", "--from", "--to", "--tz", "--by", "--key", "--format",
                    ],
                ]
                .concat(),
                0,
            ),
            "migrate" => (files_flags.to_vec(), MAX_MIGRATE_FILES),
            other => return Err(fail(format!("unknown keys action '{other}'"))),
        };
        // Only the commands that write may make the keys file.
        let switches: &[&str] = match action.as_str() {
            "create" | "migrate" => &[NEW_KEYS_FILE],
            _ => &[],
        };
        let f = match self.flags(rest, KEYS_USAGE, &valued, switches, positional)? {
            Ok(f) => f,
            Err(help) => return Ok(help),
        };
        let id = |what: &str| {
            f.positional
                .first()
                .cloned()
                .ok_or_else(|| fail(format!("keys {what} needs a key id")))
        };
        let action = match action.as_str() {
            "create" => KeysAction::Create {
                plan: plan(
                    f.value("--plan")
                        .ok_or("keys create needs --plan")
                        .map_err(|e| fail(e.into()))?,
                )
                .map_err(&fail)?,
                label: f.value("--label").unwrap_or_default(),
                format: format(&f, &CREATE_FORMATS).map_err(&fail)?,
            },
            "list" => KeysAction::List {
                format: format(&f, &FORMATS).map_err(&fail)?,
            },
            "revoke" => KeysAction::Revoke { id: id("revoke")? },
            "set" => {
                let plan = f.value("--plan").map(plan).transpose().map_err(&fail)?;
                let label = f.value("--label");
                if plan.is_none() && label.is_none() {
                    return Err(fail("keys set needs --plan PLAN or --label TEXT".into()));
                }
                KeysAction::Set {
                    id: id("set")?,
                    plan,
                    label,
                }
            }
            "usage" => usage(&f).map_err(&fail)?,
            // With Redis, the keys file itself goes there (--keys or the default).
            _ if f.positional.is_empty() && self.files(&f).redis.is_none() => {
                return Err(fail(
                    "keys migrate needs one FILE or more, or --redis URL".into(),
                ));
            }
            _ => KeysAction::Migrate {
                from: f.positional.iter().map(PathBuf::from).collect(),
            },
        };
        Ok(Command::Keys {
            files: self.files(&f),
            keys_file: self.keys_file(&f),
            action,
        })
    }

    pub(super) fn plans(&self, args: &[String]) -> Result<Command, super::UsageError> {
        let fail = usage_error(PLANS_USAGE);
        let Some((action, rest)) = args.split_first() else {
            return Err(fail("plans needs an action: list or set".into()));
        };
        let (valued, positional): (&[&str], usize) = match action.as_str() {
            "--help" | "-h" => return Ok(Command::Help(PLANS_USAGE)),
            "list" => (&["--db", "--keys"], 0),
            "set" => (&["--db", "--keys", "--rpm"], 1),
            other => return Err(fail(format!("unknown plans action '{other}'"))),
        };
        let switches: &[&str] = match action.as_str() {
            "set" => &[NEW_KEYS_FILE],
            _ => &[],
        };
        let f = match self.flags(rest, PLANS_USAGE, valued, switches, positional)? {
            Ok(f) => f,
            Err(help) => return Ok(help),
        };
        let action = match action.as_str() {
            "list" => PlansAction::List,
            _ => {
                let name = f
                    .positional
                    .first()
                    .cloned()
                    .ok_or_else(|| fail("plans set needs a plan name".into()))?;
                let rpm = f
                    .value("--rpm")
                    .ok_or_else(|| fail("plans set needs --rpm N or --rpm unlimited".into()))?;
                PlansAction::Set {
                    plan: plan(name).map_err(&fail)?,
                    per_minute: plans::parse_limit(&rpm).map_err(|e| fail(e.to_string()))?,
                }
            }
        };
        Ok(Command::Plans {
            files: self.files(&f),
            keys_file: self.keys_file(&f),
            action,
        })
    }

    /// Where the keys file came from: named, or beside the dataset and made
    /// only when `--new-keys-file` says so.
    fn keys_file(&self, f: &Flags) -> KeysFile {
        if self.setting(f, "--keys", "AREA_KEYS").is_some() {
            KeysFile::Named
        } else if f.switch(NEW_KEYS_FILE) {
            KeysFile::NewBeside
        } else {
            KeysFile::Beside
        }
    }

    pub(super) fn backup(&self, args: &[String]) -> Result<Command, super::UsageError> {
        let f = match self.flags(args, BACKUP_USAGE, &["--db", "--keys"], &[], 1)? {
            Ok(f) => f,
            Err(help) => return Ok(help),
        };
        let dir = f
            .positional
            .first()
            .ok_or_else(|| usage_error(BACKUP_USAGE)("backup needs a DIR".into()))?;
        Ok(Command::Backup {
            files: self.files(&f),
            dir: dir.into(),
        })
    }

    pub(super) fn restore(&self, args: &[String]) -> Result<Command, super::UsageError> {
        let f = match self.flags(args, RESTORE_USAGE, &["--db", "--keys"], &["--yes"], 1)? {
            Ok(f) => f,
            Err(help) => return Ok(help),
        };
        let dir = f
            .positional
            .first()
            .ok_or_else(|| usage_error(RESTORE_USAGE)("restore needs a DIR".into()))?;
        Ok(Command::Restore {
            files: self.files(&f),
            dir: dir.into(),
            yes: f.switch("--yes"),
        })
    }
}

/// `keys usage`'s flags.
fn usage(f: &Flags) -> Result<KeysAction, String> {
    // A day, or a month as its first day (`--from`) or last (`--to`).
    let day = |name: &str, last: bool| {
        f.value(name)
            .map(|v| {
                let month =
                    dates::parse_month(&v).map(|(first, end)| if last { end } else { first });
                dates::parse_date(&v).or(month).ok_or(format!(
                    "{name} must be a day as YYYY-MM-DD or a month as YYYY-MM, not '{v}'"
                ))
            })
            .transpose()
    };
    let (mut from, mut to) = (day("--from", false)?, day("--to", true)?);
    if let Some(v) = f.value("--month") {
        if from.is_some() || to.is_some() {
            return Err("--month is a whole month: give it, or --from and --to, not both".into());
        }
        let (first, last) = dates::parse_month(&v)
            .ok_or(format!("--month must be a month as YYYY-MM, not '{v}'"))?;
        (from, to) = (Some(first), Some(last));
    }
    if let (Some(from), Some(to)) = (from, to)
        && from > to
    {
        return Err("--from must not be after --to".into());
    }
    let tz = f.value("--tz");
    if let Some(name) = &tz {
        crate::access::usage::period::Zone::named(name).map_err(|e| e.to_string())?;
    }
    Ok(KeysAction::Usage {
        from,
        to,
        key: f.value("--key"),
        by: choice(f, "--by", &BY)?,
        tz,
        format: format(f, &FORMATS)?,
    })
}

/// `--format`, one of `names` (the first is the default).
fn format<T: Copy>(f: &Flags, names: &[(&str, T)]) -> Result<T, String> {
    choice(f, "--format", names)
}

/// The value of `flag`, one of `names` (the first is the default).
fn choice<T: Copy>(f: &Flags, flag: &str, names: &[(&str, T)]) -> Result<T, String> {
    let Some(v) = f.value(flag) else {
        return Ok(names[0].1);
    };
    match names.iter().find(|(name, _)| *name == v) {
        Some((_, format)) => Ok(*format),
        None => {
            let all: Vec<&str> = names.iter().map(|(name, _)| *name).collect();
            let (last, rest) = all.split_last().expect("there are formats");
            Err(format!(
                "{flag} must be {} or {last}, not '{v}'",
                rest.join(", ")
            ))
        }
    }
}

/// A plan by name, or a refusal that names them all.
fn plan(name: String) -> Result<Plan, String> {
    Plan::from_name(&name).ok_or_else(|| {
        let names: Vec<&str> = Plan::ALL.iter().map(|p| p.name()).collect();
        let (last, rest) = names.split_last().expect("there are plans");
        format!(
            "unknown plan '{name}': choose {} or {last}",
            rest.join(", ")
        )
    })
}
