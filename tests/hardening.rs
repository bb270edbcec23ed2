//! Issue 4, in-process: per-plan rate limits read from the plans table, with
//! X-RateLimit-* on every authenticated answer, 429 with Retry-After, and the
//! per-address limit for requests without a valid key (X-Real-IP from the
//! loopback front separating clients).

mod common;

use std::time::{Duration, Instant};

use common::client::*;
use common::server::*;
use common::*;

const TIMEOUT: Duration = Duration::from_secs(10);

/// Sends `send` until the first 429 (at most `cap` requests) and returns the
/// answers and how long that took. Tokens refill while we send (one a second
/// for 60/min), so callers allow for the elapsed time rather than assume none.
fn until_429(mut send: impl FnMut() -> Reply, cap: usize) -> (Vec<Reply>, Duration) {
    let started = Instant::now();
    let mut replies = Vec::new();
    for _ in 0..cap {
        let r = send();
        let done = r.status == 429;
        replies.push(r);
        if done {
            break;
        }
    }
    (replies, started.elapsed())
}

fn rate_headers(r: &Reply) -> (u32, u32, u64) {
    let num = |n: &str| {
        r.header(n)
            .unwrap_or_else(|| panic!("{n} missing on {}", r.status))
    };
    (
        num("X-RateLimit-Limit").parse().unwrap(),
        num("X-RateLimit-Remaining").parse().unwrap(),
        num("X-RateLimit-Reset").parse().unwrap(),
    )
}

fn assert_429(r: &Reply) {
    assert_error_shape(r, 429, "rate_limited");
    let retry: u64 = r
        .header("Retry-After")
        .expect("Retry-After")
        .parse()
        .expect("whole seconds");
    assert!(retry >= 1, "Retry-After {retry}");
}

#[test]
fn free_key_gets_sixty_a_minute_then_429_with_headers_on_every_answer() {
    let db = fresh_db("free");
    let (_, key) = new_key(&db, Plan::Free);
    let server = start(&db, 2, TIMEOUT);
    let (replies, took) = until_429(|| get(server.addr(), "/v1/areas?limit=1", Some(&key)), 200);
    let last = replies.last().unwrap();
    assert_429(last);
    let allowed = replies.len() - 1;
    let refills = took.as_secs() as usize + 1;
    assert!(
        (60..=60 + refills).contains(&allowed),
        "{allowed} allowed in {took:?}"
    );
    for (i, r) in replies[..allowed].iter().enumerate() {
        assert_eq!(r.status, 200);
        let (limit, remaining, reset) = rate_headers(r);
        assert_eq!(limit, 60);
        // Remaining counts down (refills may add back a token or two).
        assert!(
            remaining as usize <= 59 - i.min(59) + refills,
            "#{i}: {remaining}"
        );
        assert!(reset <= 60);
    }
    let (limit, remaining, reset) = rate_headers(last);
    assert_eq!((limit, remaining), (60, 0));
    // Empty: the bucket is full again in about a minute.
    assert!((55..=60).contains(&reset), "reset {reset}");
}

#[test]
fn every_authenticated_answer_carries_the_rate_headers_even_errors() {
    let db = fresh_db("errors");
    let (_, key) = new_key(&db, Plan::Starter);
    let server = start(&db, 2, TIMEOUT);
    let cases = [
        ("/v1/nowhere", 404, "not_found"),
        ("/v1/areas?limit=0", 400, "invalid_parameter"),
        ("/v1/areas/no-such-area", 404, "area_not_found"),
        ("/v1/areas/x/history", 403, "plan_upgrade_required"),
    ];
    for (target, status, code) in cases {
        let r = get(server.addr(), target, Some(&key));
        assert_error_shape(&r, status, code);
        assert_eq!(rate_headers(&r).0, 600, "{target}");
    }
    let r = exchange(
        server.addr(),
        format!(
            "DELETE /v1/areas HTTP/1.1\r\nAuthorization: Bearer {key}\r\nConnection: close\r\n\r\n"
        )
        .as_bytes(),
    )
    .unwrap();
    assert_error_shape(&r, 405, "method_not_allowed");
    assert_eq!(rate_headers(&r).0, 600);
    // Six requests so far: remaining 594, reset 1 s (600 a minute refills 10 a second).
    let (_, remaining, reset) = rate_headers(&get(server.addr(), "/v1/areas", Some(&key)));
    assert!(
        (594..=599).contains(&remaining) && reset <= 1,
        "{remaining} {reset}"
    );
}

#[test]
fn limits_come_from_the_plans_table_and_change_on_reload() {
    let db = fresh_db("plans");
    let (_, key) = new_key(&db, Plan::Starter);
    let server = start(&db, 2, TIMEOUT);
    assert_eq!(
        rate_headers(&get(server.addr(), "/v1/areas", Some(&key))).0,
        600
    );
    sql(
        &db,
        "UPDATE plans SET requests_per_minute = 5 WHERE name = 'starter'",
    );
    assert!(server.reload(), "reload of a valid file");
    let (replies, _) = until_429(|| get(server.addr(), "/v1/areas", Some(&key)), 50);
    assert_429(replies.last().unwrap());
    assert_eq!(rate_headers(&replies[0]).0, 5);
    // 5 a minute with a bucket already spent down to 5: at most 5 pass.
    assert!(
        replies.len() <= 6,
        "{} answers before the 429",
        replies.len()
    );
    // Unlimited from the table too: NULL lifts the limit and the headers.
    sql(
        &db,
        "UPDATE plans SET requests_per_minute = NULL WHERE name = 'starter'",
    );
    assert!(server.reload());
    let r = get(server.addr(), "/v1/areas", Some(&key));
    assert_eq!(r.status, 200);
    assert_eq!(r.header("X-RateLimit-Limit"), None);
}

#[test]
fn enterprise_is_unlimited_and_carries_no_rate_headers() {
    let db = fresh_db("enterprise");
    let (_, key) = new_key(&db, Plan::Enterprise);
    let server = start(&db, 2, TIMEOUT);
    // More than the free plan's and the anonymous limit, in well under a minute.
    for i in 0..150 {
        let r = get(server.addr(), "/v1/areas?limit=1", Some(&key));
        assert_eq!(r.status, 200, "request {i}");
        for h in [
            "X-RateLimit-Limit",
            "X-RateLimit-Remaining",
            "X-RateLimit-Reset",
        ] {
            assert_eq!(r.header(h), None, "{h} on request {i}");
        }
    }
}

#[test]
fn requests_without_a_valid_key_are_limited_per_client_address() {
    let db = fresh_db("anonymous");
    let server = start(&db, 2, TIMEOUT);
    let as_client = |ip: &str, auth: Option<&str>| {
        let mut headers = vec![format!("X-Real-IP: {ip}")];
        headers.extend(auth.map(|a| format!("Authorization: {a}")));
        exchange(server.addr(), &get_request("/v1/areas", &headers)).expect("an answer")
    };
    // Alternate a wrong key and no key at all: both count against the address.
    let mut n = 0;
    let (replies, took) = until_429(
        || {
            n += 1;
            as_client("203.0.113.5", (n % 2 == 0).then_some("Bearer ask_guess"))
        },
        200,
    );
    assert_429(replies.last().unwrap());
    let refused = replies.len() - 1;
    assert!(
        (60..=61 + took.as_secs() as usize).contains(&refused),
        "{refused} 401s in {took:?}"
    );
    assert!(replies[..refused].iter().all(|r| r.status == 401));
    // Another address (from the loopback front) has its own bucket, and so
    // does the loopback peer itself when it names no one.
    assert_error_shape(
        &as_client("203.0.113.6", Some("Bearer ask_guess")),
        401,
        "invalid_api_key",
    );
    assert_error_shape(
        &get(server.addr(), "/v1/areas", None),
        401,
        "missing_api_key",
    );
    // A valid key is not held back by its address's spent anonymous budget.
    let (_, key) = new_key(&db, Plan::Growth);
    let r = exchange(
        server.addr(),
        &get_request(
            "/v1/areas",
            &[
                "X-Real-IP: 203.0.113.5".to_string(),
                format!("Authorization: Bearer {key}"),
            ],
        ),
    )
    .unwrap();
    assert_eq!(r.status, 200);
}
