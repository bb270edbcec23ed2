//! Issue 4, in-process: per-plan rate limits read from the plans table, the
//! per-address limit for requests without a valid key, 414 and 431 at their
//! exact bounds, no CR or LF in any header a client can influence, and a
//! panicking handler answering 500 while every worker keeps serving.

mod hardening_support;

use std::time::{Duration, Instant};

use hardening_support::*;

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
    assert_error(r, 429, "rate_limited");
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
        assert_error(&r, status, code);
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
    assert_error(&r, 405, "method_not_allowed");
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
        exchange(server.addr(), &request("/v1/areas", &headers)).expect("an answer")
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
    assert_error(
        &as_client("203.0.113.6", Some("Bearer ask_guess")),
        401,
        "invalid_api_key",
    );
    assert_error(
        &get(server.addr(), "/v1/areas", None),
        401,
        "missing_api_key",
    );
    // A valid key is not held back by its address's spent anonymous budget.
    let (_, key) = new_key(&db, Plan::Growth);
    let r = exchange(
        server.addr(),
        &request(
            "/v1/areas",
            &[
                format!("X-Real-IP: 203.0.113.5"),
                format!("Authorization: Bearer {key}"),
            ],
        ),
    )
    .unwrap();
    assert_eq!(r.status, 200);
}

#[test]
fn uri_over_8_kib_is_414_and_headers_over_16_kib_are_431() {
    let db = fresh_db("sizes");
    let (_, key) = new_key(&db, Plan::Enterprise);
    let server = start(&db, 2, TIMEOUT);
    let auth = format!("Authorization: Bearer {key}");
    // Empty query segments are ignored, so '&' pads a valid target to any length.
    let target = |len: usize| format!("/v1/areas?limit=1{}", "&".repeat(len - 17));
    let at = exchange(server.addr(), &request(&target(8192), &[auth.clone()])).unwrap();
    assert_eq!(at.status, 200, "exactly 8 KiB is allowed");
    let over = exchange(server.addr(), &request(&target(8193), &[auth.clone()])).unwrap();
    assert_error(&over, 414, "uri_too_long");
    // Header bytes: each line's name, value and ": " + CRLF. Host: t (4+1+4),
    // Connection: close (10+5+4) and the Authorization line are already there.
    let fixed = 9 + 19 + auth.len() + 2;
    let pad = |total: usize| format!("X-Pad: {}", "p".repeat(total - fixed - 5 - 4));
    let at = exchange(
        server.addr(),
        &request("/v1/areas", &[auth.clone(), pad(16384)]),
    )
    .unwrap();
    assert_eq!(at.status, 200, "exactly 16 KiB of headers is allowed");
    let over = exchange(
        server.addr(),
        &request("/v1/areas", &[auth.clone(), pad(16385)]),
    )
    .unwrap();
    assert_error(&over, 431, "headers_too_large");
    // Many small headers add up the same way.
    let many: Vec<String> = (0..600)
        .map(|i| format!("X-H{i:03}: {}", "v".repeat(20)))
        .collect();
    assert_error(
        &exchange(server.addr(), &request("/v1/areas", &many)).unwrap(),
        431,
        "headers_too_large",
    );
}

#[test]
fn no_client_input_puts_cr_or_lf_into_a_response_header() {
    let db = fresh_db("crlf");
    let (_, key) = new_key(&db, Plan::Starter);
    let server = start(&db, 2, TIMEOUT);
    let auth = format!("Authorization: Bearer {key}");
    let attempts: Vec<(String, Vec<String>)> = vec![
        (
            "/v1/areas".into(),
            vec![auth.clone(), "X-Request-Id: a%0D%0AInjected: 1".into()],
        ),
        (
            "/v1/areas".into(),
            vec![auth.clone(), "X-Request-Id: a\rInjected: 1".into()],
        ),
        (
            "/v1/areas".into(),
            vec![auth.clone(), "X-Request-Id: a\nInjected: 1".into()],
        ),
        // obs-fold: a continuation line that a lax parser would join to the value.
        (
            "/v1/areas".into(),
            vec![
                auth.clone(),
                "X-Request-Id: a".into(),
                " Injected: 1".into(),
            ],
        ),
        ("/v1/areas/x%0D%0AInjected:%201".into(), vec![auth.clone()]),
        (
            "/v1/areas?limit=%0D%0AInjected:%201".into(),
            vec![auth.clone()],
        ),
        (
            "/v1/x%0d%0aInjected:%201".into(),
            vec!["Authorization: Bearer a\rInjected: 1".into()],
        ),
    ];
    for (target, headers) in attempts {
        let raw = request(&target, &headers);
        let Ok(r) = exchange(server.addr(), &raw) else {
            continue;
        }; // refused outright is fine
        let head = String::from_utf8_lossy(&r.head).to_string();
        for line in head.split("\r\n") {
            assert!(
                !line.contains(['\r', '\n']),
                "bare CR/LF in {line:?} for {target}"
            );
            assert!(!line.to_ascii_lowercase().starts_with("injected"), "{head}");
        }
        // Either a new id, or the obs-fold case's harmless first line "a".
        let id = r.header("X-Request-Id").expect("a request id");
        assert!(
            id.starts_with("req_") || id == "a",
            "unsafe id echoed: {id:?}"
        );
    }
    // A safe id is echoed as sent, one of 65 characters is replaced.
    let echo = |id: &str| {
        let r = exchange(
            server.addr(),
            &request("/v1/areas", &[auth.clone(), format!("X-Request-Id: {id}")]),
        );
        r.unwrap().header("X-Request-Id").unwrap().to_string()
    };
    assert_eq!(echo("abc-123_x.y"), "abc-123_x.y");
    assert_ne!(echo(&"a".repeat(65)), "a".repeat(65));
}

#[cfg(feature = "fault-injection")]
#[test]
fn a_panicking_handler_answers_500_and_every_worker_keeps_serving() {
    let db = fresh_db("panic");
    let (_, key) = new_key(&db, Plan::Enterprise);
    let workers = 2;
    let server = start(&db, workers, TIMEOUT);
    // More panics than workers: without catch_unwind each would take a worker
    // down, and the requests after them would never be answered.
    for _ in 0..workers * 3 {
        let r = get(server.addr(), "/v1/areas/_panic", Some(&key));
        assert_error(&r, 500, "internal_error");
        let body = String::from_utf8_lossy(&r.body).to_lowercase();
        for internal in ["panic", "fault", "src/", ".rs", "thread"] {
            assert!(!body.contains(internal), "internals leaked: {body}");
        }
    }
    // Then more requests than workers, at once: each is answered.
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers * 4)
            .map(|_| s.spawn(|| get(server.addr(), "/v1/areas?limit=1", Some(&key)).status))
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), 200);
        }
    });
}
