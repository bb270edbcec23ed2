//! Rate limits in-process (docs/api.md "Rate limits"): X-RateLimit-* on every
//! authenticated answer, errors included; limits read from the keys file and
//! in force within a second of a change; enterprise unlimited. The budgets spent against the clock
//! (free plan, requests without a valid key): tests/wall_clock/rate_limits.rs.

use crate::common::client::*;
use crate::common::rate::{rate_headers, until_429};
use crate::common::server::*;
use crate::common::wait::within;
use crate::common::*;
use area_scoring::server::Running;
use std::time::Duration;

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
fn limits_come_from_the_keys_file_and_change_within_a_second() {
    let (db, key, server) = start_keyed("plans", Plan::Starter);
    let limit = || rate_headers(&get(server.addr(), "/v1/key", Some(&key))).0;
    assert_eq!(limit(), 600);
    set_plan_limit(&db, Plan::Starter, Some(5));
    within(Duration::from_secs(3), || (limit() == 5).then_some(()))
        .expect("the new limit is in force within a second (3 s allowed)");
    let (replies, _) = until_429(|| get(server.addr(), "/v1/areas", Some(&key)), 50);
    assert_429(replies.last().unwrap());
    assert_eq!(rate_headers(&replies[0]).0, 5);
    // 5 a minute with a bucket already spent down to 5: at most 5 pass.
    assert!(
        replies.len() <= 6,
        "{} answers before the 429",
        replies.len()
    );
    // Unlimited lifts the limit and the headers.
    set_plan_limit(&db, Plan::Starter, None);
    let r = within(Duration::from_secs(3), || {
        let r = get(server.addr(), "/v1/areas", Some(&key));
        (r.status == 200).then_some(r)
    })
    .expect("unlimited within a second (3 s allowed)");
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

#[test]
fn the_ietf_ratelimit_fields_name_the_plan_and_say_what_is_left() {
    let (_, key, server) = start_keyed("ietf", Plan::Starter);
    let r = get(server.addr(), "/v1/areas?limit=1", Some(&key));
    assert_eq!(r.status, 200);
    assert_eq!(r.header("RateLimit-Policy"), Some("\"starter\";q=600;w=60"));
    let (_, remaining, reset) = rate_headers(&r);
    assert_eq!(
        r.header("RateLimit"),
        Some(format!("\"starter\";r={remaining};t={reset}").as_str()),
        "the same budget as the X-RateLimit-* headers"
    );
    // A browser script may read them.
    let exposed = r.header("Access-Control-Expose-Headers").unwrap();
    for h in ["RateLimit-Policy", "RateLimit,", "X-RateLimit-Reset"] {
        assert!(exposed.contains(h), "{h} in {exposed}");
    }
    // A request without a key announces the keyless budget instead.
    let r = get(server.addr(), "/v1/areas", None);
    assert_eq!(r.header("RateLimit-Policy"), Some("\"keyless\";q=60;w=60"));
    assert!(r.header("RateLimit").unwrap().starts_with("\"keyless\";r="));
    assert_eq!(r.header("X-RateLimit-Limit"), None);
}

#[test]
fn a_429_carries_the_ratelimit_fields_and_retry_after() {
    let (key, server) = starter_limited_to("ietf-429", 3);
    let (replies, _) = until_429(|| get(server.addr(), "/v1/areas", Some(&key)), 50);
    let refused = replies.last().unwrap();
    assert_429(refused);
    assert_eq!(
        refused.header("RateLimit-Policy"),
        Some("\"starter\";q=3;w=60")
    );
    assert!(
        refused
            .header("RateLimit")
            .unwrap()
            .starts_with("\"starter\";r=0;t="),
        "{:?}",
        refused.header("RateLimit")
    );
}

#[test]
fn asking_what_is_left_spends_nothing() {
    let (key, server) = starter_limited_to("key-free", 2);
    let (replies, _) = until_429(|| get(server.addr(), "/v1/areas", Some(&key)), 50);
    assert_429(replies.last().unwrap());
    // Spent: /v1/key still answers, as often as asked, and says so.
    for _ in 0..20 {
        let r = get(server.addr(), "/v1/key", Some(&key));
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["rate_limit"]["remaining"], 0);
        assert_eq!(rate_headers(&r).1, 0);
    }
    // Every other route still spends, and is refused.
    assert_429(&get(server.addr(), "/v1/nowhere", Some(&key)));
}

#[test]
fn a_list_of_100_ids_spends_one_request() {
    let (key, server) = starter_limited_to("list-ids", 2);
    let ids: Vec<String> = crate::common::seed_places()
        .into_iter()
        .take(100)
        .map(|p| p.id)
        .collect();
    let target = format!("/v1/areas?ids={}", ids.join(","));
    let first = get(server.addr(), &target, Some(&key));
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!(first.json()["total"], 100);
    assert_eq!(rate_headers(&first).1, 1, "100 areas, one request spent");
    assert_eq!(get(server.addr(), &target, Some(&key)).status, 200);
    assert_429(&get(server.addr(), &target, Some(&key)));
}

/// A server with a starter key whose plan allows `per_minute`, in force.
fn starter_limited_to(name: &str, per_minute: u32) -> (String, Running) {
    let (db, key, server) = start_keyed(name, Plan::Starter);
    set_plan_limit(&db, Plan::Starter, Some(per_minute));
    within(Duration::from_secs(3), || {
        let limit = rate_headers(&get(server.addr(), "/v1/key", Some(&key))).0;
        (limit == per_minute).then_some(())
    })
    .expect("the new limit is in force within a second (3 s allowed)");
    (key, server)
}
