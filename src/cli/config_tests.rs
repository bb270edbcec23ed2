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

const DEFAULT_KEYS: &str = "data/keys.db";

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
            action: KeysAction::List
        }
    );
    // Without --keys or AREA_KEYS, the keys file sits beside the dataset.
    assert_eq!(
        parse(&args("keys list --db /srv/a/areas.db"), &no_env).unwrap(),
        Command::Keys {
            files: files("/srv/a/areas.db", "/srv/a/keys.db"),
            action: KeysAction::List
        }
    );
    assert_eq!(
        parse(&args("plans list --keys k.db"), &env).unwrap(),
        Command::Plans {
            files: files("env.db", "k.db"),
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
        "keys migrate",
        "plans",
        "plans set growth",
        "plans set gold --rpm 5",
        "plans set growth --rpm 0",
        "plans set growth --rpm lots",
        "backup",
        "backup a b",
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
            file: "x.csv".into()
        }
    );
    assert_eq!(
        parse(&args("keys create --plan growth --label dev"), &no_env).unwrap(),
        Command::Keys {
            files: files(DEFAULT_DB, DEFAULT_KEYS),
            action: KeysAction::Create {
                plan: Plan::Growth,
                label: "dev".into()
            }
        }
    );
    assert_eq!(
        parse(&args("keys revoke key_1 --db x.db"), &no_env).unwrap(),
        Command::Keys {
            files: files("x.db", "keys.db"),
            action: KeysAction::Revoke { id: "key_1".into() }
        }
    );
    assert_eq!(
        parse(&args("keys set key_1 --label Acme"), &no_env).unwrap(),
        Command::Keys {
            files: files(DEFAULT_DB, DEFAULT_KEYS),
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
            action: KeysAction::Usage {
                from: crate::dates::parse_date("2026-11-01"),
                to: crate::dates::parse_date("2026-11-30"),
                key: Some("key_1".into()),
                format: UsageFormat::Csv
            }
        }
    );
    assert_eq!(
        parse(&args("keys migrate a.db b.db"), &no_env).unwrap(),
        Command::Keys {
            files: files(DEFAULT_DB, DEFAULT_KEYS),
            action: KeysAction::Migrate {
                from: vec!["a.db".into(), "b.db".into()]
            }
        }
    );
    assert_eq!(
        parse(&args("plans set starter --rpm unlimited"), &no_env).unwrap(),
        Command::Plans {
            files: files(DEFAULT_DB, DEFAULT_KEYS),
            action: PlansAction::Set {
                plan: Plan::Starter,
                per_minute: None
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
        parse(&args("serve --help"), &no_env).unwrap(),
        Command::Help(SERVE_USAGE)
    );
}

#[test]
fn every_command_takes_redis_and_argv_never_holds_its_password() {
    let env =
        |k: &str| (k == "AREA_REDIS").then(|| "redis://app:s3cret@10.0.0.9:6379/1".to_string());
    for command in [
        "serve",
        "init",
        "import x.csv",
        "keys list",
        "plans list",
        "backup out",
    ] {
        let parsed = parse(&args(command), &env).unwrap();
        let shown = format!("{parsed:?}");
        assert!(
            shown.contains("10.0.0.9") && !shown.contains("s3cret"),
            "{shown}"
        );
        let flagged = parse(
            &args(&format!("{command} --redis redis://10.0.0.7:6379")),
            &env,
        );
        assert!(
            format!("{:?}", flagged.unwrap()).contains("10.0.0.7"),
            "{command}"
        );
        let refused = parse(
            &args(&format!("{command} --redis=redis://u:s3cret@h:1")),
            &no_env,
        )
        .unwrap_err();
        assert!(
            refused.message.contains("AREA_REDIS"),
            "{}",
            refused.message
        );
        assert!(!refused.message.contains("s3cret"), "{}", refused.message);
    }
    let Command::Keys { files, .. } = parse(&args("keys list"), &env).unwrap() else {
        panic!()
    };
    assert_eq!(files.redis.unwrap().password.unwrap().expose(), "s3cret");
}

#[test]
fn an_unknown_option_is_named_without_its_value() {
    for command in ["import", "serve", "keys list", "plans list", "backup"] {
        let e = parse(
            &args(&format!("{command} --redix=redis://u:s3cret@h:1 x")),
            &no_env,
        )
        .unwrap_err();
        assert!(e.message.contains("--redix"), "{}", e.message);
        assert!(!e.message.contains("s3cret"), "{}", e.message);
    }
}

#[test]
fn help_names_redis_for_the_binary_and_each_command() {
    for command in [
        "--help",
        "serve --help",
        "init --help",
        "import --help",
        "keys --help",
        "plans --help",
        "backup --help",
    ] {
        let Command::Help(text) = parse(&args(command), &no_env).unwrap() else {
            panic!("{command}")
        };
        assert!(
            text.contains("--redis") && text.contains("AREA_REDIS"),
            "{command}: {text}"
        );
    }
}

#[test]
fn trusted_fronts_come_from_the_flag_else_the_environment() {
    use crate::transport::fronts::TrustedFronts;
    let env = |k: &str| (k == "AREA_TRUSTED_FRONT").then(|| "10.0.0.9".to_string());
    let fronts = |line: &str| match parse(&args(line), &env).unwrap() {
        Command::Serve(c) => c.limits.fronts,
        _ => panic!("{line}"),
    };
    let named = |list: &str| TrustedFronts::parse(list).unwrap();
    assert_eq!(fronts("serve"), named("10.0.0.9"));
    assert_eq!(
        fronts("serve --trusted-front 10.0.0.5,::1"),
        named("10.0.0.5,::1")
    );
    let Command::Serve(c) = parse(&args("serve"), &no_env).unwrap() else {
        panic!()
    };
    assert_eq!(c.limits.fronts, TrustedFronts::default());
    let cleared = |k: &str| (k == "AREA_TRUSTED_FRONT").then(|| " ".to_string());
    let Command::Serve(c) = parse(&args("serve"), &cleared).unwrap() else {
        panic!()
    };
    assert_eq!(c.limits.fronts, TrustedFronts::default());
    assert!(parse(&args("serve --trusted-front 10.0.0.5:80"), &no_env).is_err());
}
