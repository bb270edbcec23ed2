//! `GET /v1/key` (docs/operations.md "Keys"): the calling key's id, plan, rate limit with
//! what is left of it, and its requests today, counted as the usage file
//! counts them; never cached.

use std::time::Instant;

use crate::common::client::{get, send};
use crate::common::server::start_keyed;
use crate::common::{Plan, assert_error, assert_invalid};
use area_scoring::dates;

/// Starter's bucket refills 600 a minute.
const STARTER_PER_SECOND: f64 = 10.0;

#[test]
fn a_key_sees_its_plan_limit_and_usage_today() {
    let (_, key, server) = start_keyed("key-info", Plan::Starter);
    let addr = server.addr();
    // A run that crosses UTC midnight counts the requests on two days: the
    // second round then falls within one.
    for _round in 0..2 {
        let before = dates::format_date(dates::today());
        let first = get(addr, "/v1/key", Some(&key));
        let asked = Instant::now();
        assert_eq!(first.status, 200, "{}", first.text());
        assert_eq!(first.header("Cache-Control"), Some("no-store"));
        let me = first.json();
        let id = me["key_id"].as_str().unwrap();
        assert!(id.starts_with("key_") && id.len() == 16, "{me}");
        assert_eq!(me["plan"], "starter");
        assert_eq!(me["rate_limit"]["requests_per_minute"], 600);
        let remaining = first.header("X-RateLimit-Remaining").unwrap();
        assert_eq!(me["rate_limit"]["remaining"].to_string(), remaining);
        let after = dates::format_date(dates::today());
        let day = &me["usage_today"]["day"];
        assert!(*day == before || *day == after, "{me}: today is {after}");
        // One ok (the first GET /v1/key), then two errors and one more ok.
        assert_eq!(get(addr, "/v1/areas/no-such-area", Some(&key)).status, 404);
        assert_eq!(get(addr, "/v1/areas?limit=0", Some(&key)).status, 400);
        assert_eq!(get(addr, "/v1/areas?limit=1", Some(&key)).status, 200);
        let then = get(addr, "/v1/key", Some(&key)).json();
        let refilled = (asked.elapsed().as_secs_f64() * STARTER_PER_SECOND).ceil() as u64;
        if then["usage_today"]["day"] != *day {
            continue;
        }
        let grew = |field: &str| {
            then["usage_today"][field].as_u64().unwrap()
                - me["usage_today"][field].as_u64().unwrap()
        };
        assert_eq!(
            (grew("ok"), grew("errors"), grew("rate_limited")),
            (2, 2, 0),
            "{me} then {then}"
        );
        // Four tokens taken; the bucket refills meanwhile, by as much as the
        // time the requests took.
        let spent = me["rate_limit"]["remaining"].as_u64().unwrap() - 4;
        let left = then["rate_limit"]["remaining"].as_u64().unwrap();
        assert!(
            (spent..=spent + refilled).contains(&left),
            "{left} left of {spent} with {refilled} refilled"
        );
        return;
    }
    panic!("two rounds fell on two days each");
}

#[test]
fn an_unlimited_plan_has_no_limit_to_show() {
    let (_, key, server) = start_keyed("key-info-unlimited", Plan::Enterprise);
    let reply = get(server.addr(), "/v1/key", Some(&key));
    let me = reply.json();
    assert_eq!(me["plan"], "enterprise");
    assert!(me["rate_limit"]["requests_per_minute"].is_null(), "{me}");
    assert!(me["rate_limit"]["remaining"].is_null(), "{me}");
    assert_eq!(reply.header("X-RateLimit-Limit"), None);
}

#[test]
fn it_is_an_api_route_like_the_others() {
    let (_, key, server) = start_keyed("key-info-errors", Plan::Free);
    let addr = server.addr();
    assert_error(&get(addr, "/v1/key", None), 401, "missing_api_key", None);
    assert_error(
        &get(addr, "/v1/key", Some("ask_nope")),
        401,
        "invalid_api_key",
        None,
    );
    assert_invalid(&get(addr, "/v1/key?verbose=1", Some(&key)), &["verbose"]);
    let auth = format!("Bearer {key}");
    let post = send(
        addr,
        "POST",
        b"/v1/key",
        &[("Authorization", auth.as_bytes())],
    );
    assert_error(&post, 405, "method_not_allowed", None);
    let head = send(
        addr,
        "HEAD",
        b"/v1/key",
        &[("Authorization", auth.as_bytes())],
    );
    assert_eq!((head.status, head.body.len()), (200, 0));
}

#[test]
fn it_is_never_cached_nor_answered_304() {
    let (_, key, server) = start_keyed("key-info-cache", Plan::Growth);
    let auth = format!("Bearer {key}");
    for tag in ["*", "\"anything\""] {
        let reply = send(
            server.addr(),
            "GET",
            b"/v1/key",
            &[
                ("Authorization", auth.as_bytes()),
                ("If-None-Match", tag.as_bytes()),
            ],
        );
        assert_eq!(reply.status, 200, "If-None-Match: {tag}");
        assert_eq!(reply.header("Cache-Control"), Some("no-store"));
        assert_eq!(reply.header("ETag"), None);
    }
}
