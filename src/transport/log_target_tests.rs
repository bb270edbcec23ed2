//! log_target.rs's tests: what the access log prints of a target.

use super::*;

#[test]
fn values_of_parameters_named_like_credentials_are_redacted() {
    for (target, logged) in [
        (
            "/v1/areas?api_key=s3cret&limit=5",
            "/v1/areas?api_key=[redacted]&limit=5",
        ),
        ("/v1/areas?token=x", "/v1/areas?token=[redacted]"),
        ("/v1/areas?X-API-KEY=1", "/v1/areas?X-API-KEY=[redacted]"),
        ("/v1/areas?AuthCode=1", "/v1/areas?AuthCode=[redacted]"),
        ("/v1/areas?token", "/v1/areas?token=[redacted]"),
    ] {
        assert_eq!(loggable_target(target), logged, "{target}");
    }
    assert_eq!(loggable_target("/v1/areas\n"), "/v1/areas?");
    assert_eq!(loggable_target("/a\u{85}b\tc?q=\r"), "/a?b?c?q=?");
    let plain = "/v1/areas/search?q=cape&limit=5";
    assert!(matches!(loggable_target(plain), Cow::Borrowed(t) if t == plain));
}

#[test]
fn names_are_compared_decoded() {
    for (target, logged) in [
        ("/v1/areas?k%65y=s3cret", "/v1/areas?k%65y=[redacted]"),
        (
            "/v1/areas?%6B%45%79=s3cret",
            "/v1/areas?%6B%45%79=[redacted]",
        ),
        (
            "/v1/areas?api%5Fto%6ben=s3",
            "/v1/areas?api%5Fto%6ben=[redacted]",
        ),
        ("/v1/areas?x+auth=s3", "/v1/areas?x+auth=[redacted]"),
    ] {
        assert_eq!(loggable_target(target), logged, "{target}");
    }
    // A `%` that starts no escape is itself, and redacts nothing.
    let odd = "/v1/areas?k%6=1&%zz=2&q=%";
    assert_eq!(loggable_target(odd), odd);
}

#[test]
fn anything_shaped_like_a_key_is_redacted_whatever_its_name() {
    for (target, logged) in [
        ("/v1/areas?foo=ask_secret", "/v1/areas?foo=[redacted]"),
        (
            "/v1/areas?q=ASK_secret&limit=1",
            "/v1/areas?q=[redacted]&limit=1",
        ),
        ("/v1/areas?q=ask%5Fsecret", "/v1/areas?q=[redacted]"),
        ("/v1/areas?q=%61sk_secret", "/v1/areas?q=[redacted]"),
        ("/v1/areas?q=Bearer+ask_secret", "/v1/areas?q=[redacted]"),
        ("/v1/compare?ids=a,ask_secret", "/v1/compare?ids=[redacted]"),
        ("/v1/areas?ask_secret", "/v1/areas?[redacted]"),
        ("/v1/areas?ask_secret=1&q=x", "/v1/areas?[redacted]&q=x"),
        (
            "/v1/areas/ask_secret/history",
            "/v1/areas/[redacted]/history",
        ),
        ("/v1/areas?k%65y=ask_secret", "/v1/areas?k%65y=[redacted]"),
    ] {
        let out = loggable_target(target);
        assert_eq!(out, logged, "{target}");
        assert!(!out.contains("secret"), "{out}");
    }
}

#[test]
fn a_long_target_is_cut_to_a_kib_with_a_mark_of_what_was_left_out() {
    let target = format!("/healthz?q={}", "a".repeat(8_000));
    let out = loggable_target(&target);
    let left_out = target.len() - LOGGED_TARGET_BYTES;
    assert_eq!(
        out,
        format!("{} +{left_out} bytes", &target[..LOGGED_TARGET_BYTES])
    );
    let exact = format!("/{}", "a".repeat(LOGGED_TARGET_BYTES - 1));
    assert!(matches!(loggable_target(&exact), Cow::Borrowed(_)));
}

#[test]
fn a_target_is_redacted_before_it_is_cut() {
    // The secret starts before the cut and ends after it: it is redacted
    // whole, and what follows the cut is counted in bytes as sent.
    let head = format!("/v1/areas?q={}&token", "a".repeat(1_000));
    let target = format!("{head}={}&limit=1", "s".repeat(5_000));
    let out = loggable_target(&target);
    assert_eq!(out, format!("{head} +{} bytes", target.len() - head.len()));
    assert!(!out.contains('s'.to_string().repeat(2).as_str()), "{out}");
    // A key that begins within the cut is never printed in part.
    let near = format!("/v1/areas?q={}&x=ask_{}", "a".repeat(1_000), "0".repeat(48));
    let out = loggable_target(&near);
    assert!(!out.contains("ask_") && !out.contains("000"), "{out}");
    let shown = out.split_once(" +").unwrap().0;
    assert!(near.starts_with(shown), "{out}");
}

#[test]
fn a_target_is_cut_on_a_char_boundary() {
    let target = format!("/{}", "\u{e9}".repeat(600));
    let out = loggable_target(&target);
    let (kept, mark) = out.split_once(' ').expect("a mark");
    assert_eq!(kept.len(), LOGGED_TARGET_BYTES - 1);
    assert!(target.starts_with(kept));
    assert_eq!(mark, format!("+{} bytes", target.len() - kept.len()));
}

#[test]
fn a_long_method_is_cut_too() {
    assert!(matches!(loggable_method("GET"), Cow::Borrowed("GET")));
    let method = "M".repeat(8_000);
    assert_eq!(
        loggable_method(&method),
        format!(
            "{} +{} bytes",
            &method[..LOGGED_METHOD_BYTES],
            8_000 - LOGGED_METHOD_BYTES
        )
    );
}
