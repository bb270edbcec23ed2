//! Unit tests of the command-line parser (config.rs).

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
