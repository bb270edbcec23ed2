//! `GET /v1/key` (README "Keys"): the calling key's id, plan, rate limit with
//! what is left of it, and its requests today, counted as the usage file
//! counts them; never cached.

mod common;

use area_scoring::dates;
use common::client::{get, send};
use common::server::start_keyed;
use common::{Plan, assert_error, assert_invalid};

#[test]
fn a_key_sees_its_plan_limit_and_usage_today() {
    let (_, key, server) = start_keyed("key-info", Plan::Starter);
    let addr = server.addr();
    let first = get(addr, "/v1/key", Some(&key));
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!(first.header("Cache-Control"), Some("no-store"));
    let me = first.json();
    let id = me["key_id"].as_str().unwrap();
    assert!(id.starts_with("key_") && id.len() == 16, "{me}");
    assert_eq!(me["plan"], "starter");
    assert_eq!(me["rate_limit"]["requests_per_minute"], 600);
    let remaining = first.header("X-RateLimit-Remaining").unwrap();
    assert_eq!(me["rate_limit"]["remaining"].to_string(), remaining);
    assert_eq!(me["usage_today"]["day"], dates::format_date(dates::today()));
    // One ok (the first GET /v1/key), then two errors and one more ok.
    assert_eq!(get(addr, "/v1/areas/no-such-area", Some(&key)).status, 404);
    assert_eq!(get(addr, "/v1/areas?limit=0", Some(&key)).status, 400);
    assert_eq!(get(addr, "/v1/areas?limit=1", Some(&key)).status, 200);
    let then = get(addr, "/v1/key", Some(&key)).json();
    let grew = |field: &str| {
        then["usage_today"][field].as_u64().unwrap() - me["usage_today"][field].as_u64().unwrap()
    };
    assert_eq!(
        (grew("ok"), grew("errors"), grew("rate_limited")),
        (2, 2, 0),
        "{me} then {then}"
    );
    assert_eq!(
        then["rate_limit"]["remaining"],
        me["rate_limit"]["remaining"].as_u64().unwrap() - 4
    );
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
