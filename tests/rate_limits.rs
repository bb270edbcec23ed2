//! Rate limits in-process (README "Rate limits"): X-RateLimit-* on every
//! authenticated answer, errors included; limits read from the plans table and
//! changed on reload; enterprise unlimited. The budgets spent against the clock
//! (free plan, requests without a valid key): tests/wall_clock/rate_limits.rs.

mod common;

use common::client::*;
use common::rate::{rate_headers, until_429};
use common::server::*;
use common::*;

#[test]
fn every_authenticated_answer_carries_the_rate_headers_even_errors() {
    let (_, key, server) = start_keyed("errors", Plan::Starter);
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
    let (db, key, server) = start_keyed("plans", Plan::Starter);
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
    let (_, key, server) = start_keyed("enterprise", Plan::Enterprise);
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
