//! Caching and browser clients over real HTTP (docs/api.md "Every response"): strong
//! ETags, 304 on If-None-Match, `private, max-age=60` with `Vary:
//! Authorization, Accept-Encoding`, errors never cached; CORS headers on every answer, OPTIONS
//! preflight without a key, 405 with Allow after authentication; X-Request-Id.

use std::sync::OnceLock;

use crate::common::assert_429;
use crate::common::cache::{assert_cached_privately, assert_cors, etag};
use crate::common::client::Reply;
use crate::common::rate::until_429;
use crate::common::server::TestServer;

/// One server for this binary; tests that count things start their own.
fn app() -> &'static TestServer {
    static APP: OnceLock<TestServer> = OnceLock::new();
    APP.get_or_init(|| TestServer::start(false))
}

/// A 200 of every API route, and the public OpenAPI document.
const OK_TARGETS: [&str; 6] = [
    "/v1/areas?limit=3",
    "/v1/areas/soweto",
    "/v1/areas/search?q=soweto",
    "/v1/areas/compare?ids=aberdeen,soweto",
    "/v1/areas/soweto/history?period=7d",
    "/v1/openapi.json",
];

const API_PATHS: [&str; 5] = [
    "/v1/areas",
    "/v1/areas/search",
    "/v1/areas/compare",
    "/v1/areas/soweto",
    "/v1/areas/soweto/history",
];

#[test]
fn every_ok_answer_has_a_strong_etag_and_private_caching() {
    for target in OK_TARGETS {
        let reply = app().get_with(target, &[]);
        assert_eq!(reply.status, 200, "{target}: {}", reply.text());
        assert_cached_privately(&reply, target);
    }
}

#[test]
fn the_tag_follows_the_body() {
    let tag = |target| etag(&app().get_with(target, &[]));
    let first = tag("/v1/areas?limit=5");
    assert_eq!(first, tag("/v1/areas?limit=5"), "same request");
    assert_ne!(first, tag("/v1/areas?limit=6"), "other query");
    assert_ne!(first, tag("/v1/areas/soweto"), "other path");
}

#[test]
fn if_none_match_answers_304_for_a_matching_tag_only() {
    for target in OK_TARGETS {
        let tag = etag(&app().get_with(target, &[]));
        let listed = format!("\"nope\", {tag}, \"other\"");
        for header in [tag.as_str(), listed.as_str(), "*"] {
            let reply = app().get_with(target, &[("If-None-Match", header)]);
            let what = format!("{target} If-None-Match: {header}");
            assert_eq!(reply.status, 304, "{what}");
            assert!(reply.body.is_empty(), "{what}: a body in a 304");
            assert_eq!(etag(&reply), tag, "{what}");
            assert_cached_privately(&reply, &what);
            assert_cors(&reply, &what);
        }
        let other = app().get_with(target, &[("If-None-Match", "\"0000000000000000\"")]);
        assert_eq!(other.status, 200, "{target} with another tag");
        assert_eq!(etag(&other), tag);
        assert!(!other.body.is_empty());
    }
}

#[test]
fn head_answers_like_get_without_a_body() {
    let get = app().get_with("/v1/areas/soweto", &[]);
    let head = app().as_key(&app().growth, "HEAD", "/v1/areas/soweto", &[]);
    assert_eq!(head.status, 200);
    assert_eq!(etag(&head), etag(&get));
    assert_cached_privately(&head, "HEAD");
    let tag = etag(&get);
    let inm = [("If-None-Match", tag.as_str())];
    let cached = app().as_key(&app().growth, "HEAD", "/v1/areas/soweto", &inm);
    assert_eq!(cached.status, 304);
    assert_eq!(etag(&cached), tag);
    let public = app().send("HEAD", "/v1/openapi.json", &[]);
    assert_eq!(public.status, 200);
    assert_eq!(etag(&public), etag(&app().get("/v1/openapi.json")));
}

/// Errors of every kind: (who asks, target, status, code).
const ERRORS: [(&str, &str, u16, &str); 7] = [
    ("nobody", "/v1/areas", 401, "missing_api_key"),
    ("ask_nope", "/v1/areas", 401, "invalid_api_key"),
    ("growth", "/v1/nowhere", 404, "not_found"),
    ("growth", "/v1/areas/no-such-area", 404, "area_not_found"),
    ("growth", "/v1/areas?limit=0", 400, "invalid_parameter"),
    (
        "free",
        "/v1/areas/soweto/history",
        403,
        "plan_upgrade_required",
    ),
    ("nobody", "/healthz?x=1", 400, "invalid_parameter"),
];

/// GET as `who`: "nobody" sends no key, "growth" and "free" send the
/// server's keys, anything else is sent as the key.
fn get_as(who: &str, target: &str, extra: &[(&str, &str)]) -> Reply {
    let app = app();
    match who {
        "nobody" => app.send("GET", target, extra),
        "growth" => app.as_key(&app.growth, "GET", target, extra),
        "free" => app.as_key(&app.free, "GET", target, extra),
        key => app.as_key(key, "GET", target, extra),
    }
}

#[test]
fn errors_carry_no_etag_and_never_answer_304() {
    for (who, target, status, code) in ERRORS {
        for extra in [&[][..], &[("If-None-Match", "*")]] {
            let reply = get_as(who, target, extra);
            reply.assert_error(status, code);
            assert_eq!(reply.header("ETag"), None, "{target}");
        }
    }
}

#[test]
fn errors_are_not_cacheable() {
    for (who, target, status, code) in ERRORS {
        let reply = get_as(who, target, &[]);
        reply.assert_error(status, code);
        assert_eq!(reply.header("Cache-Control"), Some("no-store"), "{target}");
    }
}

#[test]
fn every_kind_of_answer_allows_any_origin() {
    let app = app();
    for target in OK_TARGETS.iter().chain(&["/healthz", "/metrics"]) {
        assert_cors(&app.get_with(target, &[]), target);
    }
    let tag = etag(&app.get_with("/v1/areas", &[]));
    let not_modified = app.get_with("/v1/areas", &[("If-None-Match", &tag)]);
    assert_eq!(not_modified.status, 304);
    assert_cors(&not_modified, "304");
    let preflight = app.send("OPTIONS", "/v1/areas", &[]);
    assert_eq!(preflight.status, 204);
    assert_cors(&preflight, "204");
    let post = app.as_key(&app.growth, "POST", "/v1/areas", &[]);
    post.assert_error(405, "method_not_allowed");
    assert_cors(&post, "405");
    for (who, target, status, code) in ERRORS {
        let reply = get_as(who, target, &[]);
        reply.assert_error(status, code);
        assert_cors(&reply, target);
    }
}

#[test]
fn a_rate_limited_answer_allows_any_origin() {
    // A key of its own: the free plan allows 60 a minute.
    let key = crate::common::new_key(&app().db, area_scoring::domain::Plan::Free).1;
    crate::common::wait::key_in_force(app().addr, &key);
    // Bounded by a count far past the bucket, not by 60 plus the refill the
    // machine's speed allows.
    let (mut replies, _) = until_429(|| app().as_key(&key, "GET", "/v1/areas/soweto", &[]), 1_000);
    let limited = replies.pop().expect("an answer");
    assert!(replies.iter().all(|r| r.status == 200));
    assert_429(&limited);
    assert_cors(&limited, "429");
    assert_eq!(limited.header("X-RateLimit-Limit"), Some("60"));
    assert_eq!(limited.header("X-RateLimit-Remaining"), Some("0"));
}

#[test]
fn preflight_on_every_path_answers_204_without_a_key() {
    for path in API_PATHS.iter().chain(&["/v1/openapi.json", "/healthz"]) {
        let reply = app().send(
            "OPTIONS",
            path,
            &[
                ("Origin", "https://example.org"),
                ("Access-Control-Request-Method", "GET"),
                (
                    "Access-Control-Request-Headers",
                    "authorization, if-none-match",
                ),
            ],
        );
        assert_eq!(reply.status, 204, "OPTIONS {path}: {}", reply.text());
        assert!(reply.body.is_empty());
        let list = |name: &str| -> Vec<String> {
            reply
                .header(name)
                .unwrap_or_else(|| panic!("OPTIONS {path}: no {name}"))
                .split(',')
                .map(|m| m.trim().to_ascii_lowercase())
                .collect()
        };
        assert!(
            list("Access-Control-Allow-Methods").contains(&"get".into()),
            "{path}"
        );
        let headers = list("Access-Control-Allow-Headers");
        for h in ["authorization", "if-none-match"] {
            assert!(headers.contains(&h.to_string()), "{path}: {headers:?}");
        }
        assert_cors(&reply, path);
    }
}

#[test]
fn preflight_on_an_unknown_path_is_not_found() {
    for path in ["/v1/nowhere", "/v1/areas/soweto/history/x", "/index.html"] {
        let reply = app().send("OPTIONS", path, &[]);
        reply.assert_error(404, "not_found");
        assert_cors(&reply, path);
    }
}

#[test]
fn write_methods_are_405_with_allow_after_authentication() {
    let app = app();
    for method in ["POST", "PUT", "DELETE", "PATCH"] {
        for path in API_PATHS {
            let reply = app.as_key(&app.growth, method, path, &[]);
            reply.assert_error(405, "method_not_allowed");
            let allow = reply.header("Allow").expect("405 carries Allow");
            assert!(allow.split(',').any(|m| m.trim() == "GET"), "{allow}");
            assert!(allow.split(',').any(|m| m.trim() == "HEAD"), "{allow}");
        }
        // The check order: authentication, then path, then method, then parameters.
        app.send(method, "/v1/areas", &[])
            .assert_error(401, "missing_api_key");
        app.as_key(&app.growth, method, "/v1/nowhere", &[])
            .assert_error(404, "not_found");
        app.as_key(&app.growth, method, "/v1/areas?limit=0", &[])
            .assert_error(405, "method_not_allowed");
    }
}

#[test]
fn request_ids_are_echoed_when_safe_and_made_otherwise() {
    let app = app();
    let id_of = |r: Reply| r.header("X-Request-Id").expect("X-Request-Id").to_string();
    let long_safe = "a".repeat(64);
    for safe in ["abc-123_x.Y", long_safe.as_str()] {
        let h = [("X-Request-Id", safe)];
        assert_eq!(id_of(app.get_with("/v1/areas/soweto", &h)), safe);
        assert_eq!(id_of(app.send("GET", "/v1/areas", &h)), safe, "401");
        assert_eq!(id_of(app.send("OPTIONS", "/v1/areas", &h)), safe, "204");
        assert_eq!(id_of(app.send("GET", "/healthz", &h)), safe, "public");
    }
    let too_long = "a".repeat(65);
    let mut made: Vec<String> = ["has space", "semi;colon", "<tag>", too_long.as_str()]
        .iter()
        .map(|bad| id_of(app.get_with("/v1/areas/soweto", &[("X-Request-Id", bad)])))
        .collect();
    made.push(id_of(app.get_with("/v1/areas/soweto", &[])));
    made.push(id_of(app.get("/v1/nowhere")));
    for id in &made {
        let safe = id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
        assert!(safe && (1..=64).contains(&id.len()), "{id}");
    }
    let distinct: std::collections::BTreeSet<&String> = made.iter().collect();
    assert_eq!(distinct.len(), made.len(), "new ids are unique: {made:?}");
}

/// A header value with a byte outside ASCII counts as that header absent.
#[test]
fn a_non_ascii_request_id_gets_a_new_one() {
    let reply = app().get_with("/v1/areas/soweto", &[("X-Request-Id", "é")]);
    assert_eq!(reply.status, 200);
    assert!(
        reply
            .header("X-Request-Id")
            .is_some_and(|id| id.is_ascii() && !id.is_empty())
    );
}

/// The nginx front of deploy/ answers some errors itself (docs/deployment.md):
/// those expose to scripts the same headers as the server's own answers.
#[test]
fn the_fronts_own_answers_expose_the_servers_headers() {
    let conf = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/deploy/nginx/front-server.conf"
    ))
    .unwrap();
    let (_, served) = area_scoring::app::http::CORS_HEADERS
        .into_iter()
        .find(|(name, _)| *name == "Access-Control-Expose-Headers")
        .unwrap();
    let lines: Vec<&str> = conf
        .lines()
        .filter(|l| l.contains("add_header Access-Control-Expose-Headers"))
        .collect();
    assert!(!lines.is_empty());
    for line in lines {
        assert!(line.contains(&format!("\"{served}\"")), "{line}");
    }
}
