//! Unit tests of the command-line parser (config.rs).

use std::time::Duration;

use super::*;
use crate::cli::help::SERVE_USAGE;
use crate::domain::Plan;

fn files(db: &str, keys: &str) -> Files {
    Files {
        db: db.into(),
        keys: keys.into(),
        redis: None,
    }
}

pub(super) const DEFAULT_KEYS: &str = "data/keys.db";

pub(super) fn args(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

pub(super) fn no_env(_: &str) -> Option<String> {
    None
}

#[test]
fn flags_beat_environment_beats_defaults() {
    let env = |k: &str| match k {
        "AREA_DB" => Some("env.db".to_string()),
        "AREA_ADDR" => Some("0.0.0.0:9".to_string()),
        "AREA_WORKERS" => Some("3".to_string()),
        "AREA_KEYS" => Some("env-keys.db".to_string()),
        _ => None,
    };
    let Command::Serve(c) = parse(&args("serve --db flag.db"), &env).unwrap() else {
        panic!()
    };
    assert_eq!(
        c,
        ServeConfig {
            db: "flag.db".into(),
            keys: "env-keys.db".into(),
            redis: None,
            addr: "0.0.0.0:9".into(),
            workers: 3,
            client_timeout: Duration::from_secs(10),
            metrics_addr: None,
            limits: crate::transport::ConnLimits::default(),
            exports_per_key: crate::app::exports::DEFAULT_MAX_EXPORTS_PER_KEY,
        }
    );
    let Command::Serve(c) = parse(&args("serve --workers=5"), &no_env).unwrap() else {
        panic!()
    };
    assert_eq!(
        (c.db, c.keys, c.addr, c.workers),
        (
            DEFAULT_DB.into(),
            DEFAULT_KEYS.into(),
            DEFAULT_ADDR.into(),
            5
        )
    );
    assert_eq!(
        parse(&args("keys list"), &env).unwrap(),
        Command::Keys {
            files: files("env.db", "env-keys.db"),
            keys_file: KeysFile::Named,
            action: KeysAction::List {
                format: Format::Table
            }
        }
    );
    // Without --keys or AREA_KEYS, the keys file sits beside the dataset.
    assert_eq!(
        parse(&args("keys list --db /srv/a/areas.db"), &no_env).unwrap(),
        Command::Keys {
            files: files("/srv/a/areas.db", "/srv/a/keys.db"),
            keys_file: KeysFile::Beside,
            action: KeysAction::List {
                format: Format::Table
            }
        }
    );
    assert_eq!(
        parse(&args("plans list --keys k.db"), &env).unwrap(),
        Command::Plans {
            files: files("env.db", "k.db"),
            keys_file: KeysFile::Named,
            action: PlansAction::List
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
        "keys set key_1",
        "keys set --plan growth",
        "keys set key_1 --plan gold",
        "keys usage --from 2026-02-30",
        "keys usage --from 2026-11-02 --to 2026-11-01",
        "keys usage --format xml",
        "keys list --format table,csv",
        "keys list --new-keys-file",
        "keys revoke key_1 --new-keys-file",
        "keys create --plan free --format csv",
        "plans list --new-keys-file",
        "keys migrate",
        "plans",
        "plans set growth",
        "plans set gold --rpm 5",
        "plans set growth --rpm 0",
        "plans set growth --rpm lots",
        "backup",
        "backup a b",
        "restore",
        "restore a b",
        "restore a --force",
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
            keys: DEFAULT_KEYS.into(),
            redis: None,
            force: true,
            synthetic: None
        }
    );
    assert_eq!(
        parse(&args("init --synthetic 1000"), &no_env).unwrap(),
        Command::Init {
            db: DEFAULT_DB.into(),
            keys: DEFAULT_KEYS.into(),
            redis: None,
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
            keys: DEFAULT_KEYS.into(),
            redis: None,
            file: "x.csv".into(),
            options: Default::default(),
            check: false,
        }
    );
    let Command::Import { options, check, .. } =
        parse(&args("import --allow-shrink --check x.csv"), &no_env).unwrap()
    else {
        panic!("not an import");
    };
    assert!(options.allow.shrink && check);
    assert_eq!(
        options.region, None,
        "the served dataset's, else South Africa's"
    );
    let Command::Import { options, .. } =
        parse(&args("import --region -10,-40,40,-20 x.csv"), &no_env).unwrap()
    else {
        panic!("not an import");
    };
    let r = options.region.expect("--region");
    assert_eq!(
        (r.min_lng, r.min_lat, r.max_lng, r.max_lat),
        (-10.0, -40.0, 40.0, -20.0)
    );
    let refused = parse(&args("import --region 40,-40,10,-20 x.csv"), &no_env).unwrap_err();
    assert!(
        refused.message.contains("each minimum below its maximum"),
        "{}",
        refused.message
    );
    let Command::Import { options, .. } = parse(
        &args("import --ignore-column notes --ignore-column=owner x.csv"),
        &no_env,
    )
    .unwrap() else {
        panic!("not an import");
    };
    assert_eq!(options.csv.ignore_columns, ["notes", "owner"]);
    let Command::Import { options, .. } =
        parse(&args("import --delimiter ; --decimal-comma x.csv"), &no_env).unwrap()
    else {
        panic!("not an import");
    };
    assert_eq!(
        (options.csv.delimiter, options.csv.decimal_comma),
        (Some(b';'), true)
    );
    let Command::Import { options, .. } =
        parse(&args("import --delimiter tab x.csv"), &no_env).unwrap()
    else {
        panic!("not an import");
    };
    assert_eq!(options.csv.delimiter, Some(b'\t'));
    let refused = parse(&args("import --delimiter | x.csv"), &no_env).unwrap_err();
    assert!(
        refused.message.contains("--delimiter is ',', ';' or tab"),
        "{}",
        refused.message
    );
    assert_eq!(
        parse(&args("keys create --plan growth --label dev"), &no_env).unwrap(),
        Command::Keys {
            files: files(DEFAULT_DB, DEFAULT_KEYS),
            keys_file: KeysFile::Beside,
            action: KeysAction::Create {
                plan: Plan::Growth,
                label: "dev".into(),
                format: CreateFormat::Key
            }
        }
    );
    assert_eq!(
        parse(&args("keys revoke key_1 --db x.db"), &no_env).unwrap(),
        Command::Keys {
            files: files("x.db", "keys.db"),
            keys_file: KeysFile::Beside,
            action: KeysAction::Revoke { id: "key_1".into() }
        }
    );
    assert_eq!(
        parse(&args("keys set key_1 --label Acme"), &no_env).unwrap(),
        Command::Keys {
            files: files(DEFAULT_DB, DEFAULT_KEYS),
            keys_file: KeysFile::Beside,
            action: KeysAction::Set {
                id: "key_1".into(),
                plan: None,
                label: Some("Acme".into())
            }
        }
    );
    assert_eq!(
        parse(
            &args("keys usage --from 2026-11-01 --to 2026-11-30 --key key_1 --format csv"),
            &no_env
        )
        .unwrap(),
        Command::Keys {
            files: files(DEFAULT_DB, DEFAULT_KEYS),
            keys_file: KeysFile::Beside,
            action: KeysAction::Usage {
                from: crate::dates::parse_date("2026-11-01"),
                to: crate::dates::parse_date("2026-11-30"),
                key: Some("key_1".into()),
                by: By::Key,
                tz: None,
                format: Format::Csv
            }
        }
    );
    assert_eq!(
        parse(&args("keys migrate a.db b.db"), &no_env).unwrap(),
        Command::Keys {
            files: files(DEFAULT_DB, DEFAULT_KEYS),
            keys_file: KeysFile::Beside,
            action: KeysAction::Migrate {
                from: vec!["a.db".into(), "b.db".into()]
            }
        }
    );
    assert_eq!(
        parse(&args("plans set starter --rpm unlimited"), &no_env).unwrap(),
        Command::Plans {
            files: files(DEFAULT_DB, DEFAULT_KEYS),
            keys_file: KeysFile::Beside,
            action: PlansAction::Set {
                plan: Plan::Starter,
                per_minute: None
            }
        }
    );
    assert_eq!(
        parse(
            &args("keys create --plan free --new-keys-file --format json"),
            &no_env
        )
        .unwrap(),
        Command::Keys {
            files: files(DEFAULT_DB, DEFAULT_KEYS),
            keys_file: KeysFile::NewBeside,
            action: KeysAction::Create {
                plan: Plan::Free,
                label: String::new(),
                format: CreateFormat::Json
            }
        }
    );
    let env = |k: &str| (k == "AREA_KEYS").then(|| "/k/keys.db".to_string());
    assert_eq!(
        parse(&args("keys list --format csv"), &env).unwrap(),
        Command::Keys {
            files: files(DEFAULT_DB, "/k/keys.db"),
            keys_file: KeysFile::Named,
            action: KeysAction::List {
                format: Format::Csv
            }
        }
    );
    assert_eq!(
        parse(&args("backup /b --keys /k/keys.db"), &no_env).unwrap(),
        Command::Backup {
            files: files(DEFAULT_DB, "/k/keys.db"),
            dir: "/b".into()
        }
    );
    assert_eq!(
        parse(&args("restore /b --yes"), &no_env).unwrap(),
        Command::Restore {
            files: files(DEFAULT_DB, DEFAULT_KEYS),
            dir: "/b".into(),
            yes: true
        }
    );
    assert_eq!(
        parse(&args("serve --help"), &no_env).unwrap(),
        Command::Help(SERVE_USAGE)
    );
}

#[test]
fn max_exports_per_key_is_a_flag_or_variable_from_one_to_the_servers_most() {
    let serve = |line: &str, env: &dyn Fn(&str) -> Option<String>| match parse(&args(line), env) {
        Ok(Command::Serve(c)) => Ok(c.exports_per_key),
        Ok(other) => panic!("{other:?}"),
        Err(e) => Err(e.message),
    };
    let env = |k: &str| (k == "AREA_MAX_EXPORTS_PER_KEY").then(|| "3".to_string());
    assert_eq!(serve("serve", &no_env), Ok(2));
    assert_eq!(serve("serve", &env), Ok(3));
    assert_eq!(serve("serve --max-exports-per-key 4", &env), Ok(4));
    for bad in ["0", "5", "two"] {
        let said = serve(&format!("serve --max-exports-per-key {bad}"), &no_env).unwrap_err();
        assert_eq!(
            said,
            format!("--max-exports-per-key must be a number from 1 to 4, not '{bad}'")
        );
    }
}

#[test]
fn info_reads_its_file_else_the_dataset_and_a_format() {
    let info = |s: &str, env: &dyn Fn(&str) -> Option<String>| parse(&args(s), env);
    let env = |k: &str| (k == "AREA_DB").then(|| "env.db".to_string());
    let shown = |file: &str, format| {
        Ok(Command::Info {
            file: file.into(),
            format,
        })
    };
    assert_eq!(
        info("info other.db", &env),
        shown("other.db", InfoFormat::Text)
    );
    assert_eq!(
        info("info --format json", &env),
        shown("env.db", InfoFormat::Json)
    );
    assert_eq!(info("info", &no_env), shown(DEFAULT_DB, InfoFormat::Text));
    let refused = info("info --format yaml x.db", &no_env).unwrap_err();
    assert_eq!(refused.message, "--format is text or json, not 'yaml'");
    assert!(info("info a.db b.db", &no_env).is_err(), "one FILE at most");
}

#[test]
fn keys_usage_takes_months_a_zone_and_what_to_add_up() {
    let usage = |line: &str| parse(&args(line), &|_: &str| None);
    let day = |d: &str| crate::dates::parse_date(d);
    let Ok(Command::Keys { action, .. }) =
        usage("keys usage --month 2026-11 --tz Africa/Johannesburg --by day")
    else {
        panic!("parsed")
    };
    assert_eq!(
        action,
        KeysAction::Usage {
            from: day("2026-11-01"),
            to: day("2026-11-30"),
            key: None,
            by: By::Day,
            tz: Some("Africa/Johannesburg".into()),
            format: Format::Table
        }
    );
    let Ok(Command::Keys { action, .. }) = usage("keys usage --from 2026-02 --to 2026-03-10")
    else {
        panic!("parsed")
    };
    let KeysAction::Usage { from, to, .. } = action else {
        panic!("usage")
    };
    assert_eq!((from, to), (day("2026-02-01"), day("2026-03-10")));
    let Ok(Command::Keys { action, .. }) = usage("keys usage --to 2024-02") else {
        panic!("parsed")
    };
    assert!(matches!(action, KeysAction::Usage { to, .. } if to == day("2024-02-29")));
    for (bad, said) in [
        ("keys usage --month 2026-11 --from 2026-11-02", "not both"),
        ("keys usage --month 2026-13", "YYYY-MM"),
        (
            "keys usage --from 2026-1",
            "YYYY-MM-DD or a month as YYYY-MM",
        ),
        ("keys usage --tz Mars/Olympus", "'Mars/Olympus'"),
        ("keys usage --by month", "--by must be key or day"),
    ] {
        let why = usage(bad).unwrap_err().message;
        assert!(why.contains(said), "{bad}: {why}");
    }
}
