//! Unit tests of the command-line parser (config.rs): Redis on every
//! command, unknown options, help, and the trusted fronts.

use super::tests::{args, no_env};
use super::*;

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
    use crate::transport::trusted_proxies::TrustedProxies;
    let env = |k: &str| (k == "AREA_TRUSTED_FRONT").then(|| "10.0.0.9".to_string());
    let fronts = |line: &str| match parse(&args(line), &env).unwrap() {
        Command::Serve(c) => c.limits.fronts,
        _ => panic!("{line}"),
    };
    let named = |list: &str| TrustedProxies::parse(list).unwrap();
    assert_eq!(fronts("serve"), named("10.0.0.9"));
    assert_eq!(
        fronts("serve --trusted-front 10.0.0.5,::1"),
        named("10.0.0.5,::1")
    );
    let Command::Serve(c) = parse(&args("serve"), &no_env).unwrap() else {
        panic!()
    };
    assert_eq!(c.limits.fronts, TrustedProxies::default());
    let cleared = |k: &str| (k == "AREA_TRUSTED_FRONT").then(|| " ".to_string());
    let Command::Serve(c) = parse(&args("serve"), &cleared).unwrap() else {
        panic!()
    };
    assert_eq!(c.limits.fronts, TrustedProxies::default());
    assert!(parse(&args("serve --trusted-front 10.0.0.5:80"), &no_env).is_err());
}
