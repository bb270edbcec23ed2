//! Every error row of issue 2's table, and every error path reachable over
//! HTTP, in one walk: each answer has the one error shape (checked by
//! `assert_error`), HEAD gets the same status and headers without a body, and
//! the checks run in the order (401, 404 not_found, 405, 400, 403,
//! 404 area_not_found), shown by requests that fail two checks at once.
//! Then the paths outside the table: 500 (a broken database copy), and the
//! hardening's 414, 431, 503 and 429, all in the same shape.

mod common;

use area_scoring::{access::keys, data::db};
use common::{Plan, TestApp, assert_error, assert_headers_of_error, scratch_dir, serve, spawn_app};

/// Who a request claims to be.
#[derive(Clone, Copy)]
enum Who {
    Nobody,
    Header(&'static str),
    Key(Plan),
    Revoked,
}

struct Case {
    why: &'static str,
    method: &'static str,
    target: &'static str,
    who: Who,
    status: u16,
    code: &'static str,
    param: Option<&'static str>,
}

const fn case(
    why: &'static str,
    method: &'static str,
    target: &'static str,
    who: Who,
    status: u16,
    code: &'static str,
    param: Option<&'static str>,
) -> Case {
    Case {
        why,
        method,
        target,
        who,
        status,
        code,
        param,
    }
}

use Who::*;
const G: Who = Key(Plan::Growth);
const FREE: Who = Key(Plan::Free);
const MISSING: &str = "missing_api_key";
const INVALID_KEY: &str = "invalid_api_key";
const UPGRADE: &str = "plan_upgrade_required";
const BAD: &str = "invalid_parameter";
const NO_AREA: &str = "area_not_found";
const NO_PATH: &str = "not_found";
const METHOD: &str = "method_not_allowed";

#[rustfmt::skip]
const CASES: &[Case] = &[
    // 401 missing_api_key: no header, or not `Bearer <key>`.
    case("no Authorization", "GET", "/v1/areas", Nobody, 401, MISSING, None),
    case("another scheme", "GET", "/v1/areas", Header("Basic dXNlcjpwYXNz"), 401, MISSING, None),
    case("Bearer and nothing", "GET", "/v1/areas", Header("Bearer"), 401, MISSING, None),
    case("Bearer and spaces", "GET", "/v1/areas", Header("Bearer    "), 401, MISSING, None),
    case("a key without its scheme", "GET", "/v1/areas", Header("ask_0123456789abcdef0123456789abcdef0123456789abcdef"), 401, MISSING, None),
    // 401 invalid_api_key: unknown or revoked.
    case("an unknown key", "GET", "/v1/areas", Header("Bearer ask_0123456789abcdef0123456789abcdef0123456789abcdef"), 401, INVALID_KEY, None),
    case("a revoked key", "GET", "/v1/areas", Revoked, 401, INVALID_KEY, None),
    // 403: history on free or starter, on the endpoint or through include.
    case("history on free", "GET", "/v1/areas/aberdeen/history", FREE, 403, UPGRADE, None),
    case("include=history on starter", "GET", "/v1/areas/aberdeen?include=history", Key(Plan::Starter), 403, UPGRADE, None),
    // 400: out of bounds, wrong type, unknown value, given twice, not a parameter.
    case("out of bounds", "GET", "/v1/areas?limit=0", G, 400, BAD, Some("limit")),
    case("wrong type", "GET", "/v1/areas?limit=ten", G, 400, BAD, Some("limit")),
    case("unknown value", "GET", "/v1/areas?sort=rating", G, 400, BAD, Some("sort")),
    case("given twice", "GET", "/v1/areas?order=asc&order=asc", G, 400, BAD, Some("order")),
    case("not a parameter of list", "GET", "/v1/areas?colour=red", G, 400, BAD, Some("colour")),
    case("not a parameter of get", "GET", "/v1/areas/aberdeen?limit=5", G, 400, BAD, Some("limit")),
    case("not a parameter of search", "GET", "/v1/areas/search?q=cape&offset=5", G, 400, BAD, Some("offset")),
    case("not a parameter of compare", "GET", "/v1/areas/compare?ids=aberdeen,alberton&limit=5", G, 400, BAD, Some("limit")),
    case("not a parameter of history", "GET", "/v1/areas/aberdeen/history?limit=5", G, 400, BAD, Some("limit")),
    case("bad percent-escape", "GET", "/v1/areas/search?q=%zz", G, 400, BAD, Some("q")),
    // 404 area_not_found on each endpoint that names areas.
    case("unknown area", "GET", "/v1/areas/no-such-area", G, 404, NO_AREA, None),
    case("unknown area's history", "GET", "/v1/areas/no-such-area/history", G, 404, NO_AREA, None),
    case("unknown area in compare", "GET", "/v1/areas/compare?ids=aberdeen,no-such-area", G, 404, NO_AREA, None),
    // 404 not_found: paths outside the API.
    case("root", "GET", "/", G, 404, NO_PATH, None),
    case("another version", "GET", "/v2/areas", G, 404, NO_PATH, None),
    case("trailing slash", "GET", "/v1/areas/", G, 404, NO_PATH, None),
    case("below history", "GET", "/v1/areas/aberdeen/history/x", G, 404, NO_PATH, None),
    case("an unknown sub-resource", "GET", "/v1/areas/aberdeen/scores", G, 404, NO_PATH, None),
    case("a longer prefix", "GET", "/v1/areasx", G, 404, NO_PATH, None),
    case("paths are case-sensitive", "GET", "/V1/AREAS", G, 404, NO_PATH, None),
    // 405: any method but GET and HEAD, on every route.
    case("POST", "POST", "/v1/areas", G, 405, METHOD, None),
    case("PUT", "PUT", "/v1/areas/aberdeen", G, 405, METHOD, None),
    case("DELETE", "DELETE", "/v1/areas/aberdeen", G, 405, METHOD, None),
    case("PATCH", "PATCH", "/v1/areas/aberdeen/history", G, 405, METHOD, None),
    case("an invented method", "FROBNICATE", "/v1/areas/search?q=cape", G, 405, METHOD, None),
    case("methods are case-sensitive", "get", "/v1/areas/compare?ids=aberdeen,alberton", G, 405, METHOD, None),
    // The order of checks: the first that fails answers.
    case("401 before 404 not_found", "GET", "/nowhere", Nobody, 401, MISSING, None),
    case("401 before 405", "DELETE", "/v1/areas", Header("Bearer nope"), 401, INVALID_KEY, None),
    case("401 before 400", "GET", "/v1/areas?limit=0", Nobody, 401, MISSING, None),
    case("404 not_found before 405", "POST", "/nowhere", G, 404, NO_PATH, None),
    case("405 before 400", "POST", "/v1/areas?limit=0", G, 405, METHOD, None),
    case("400 before 403", "GET", "/v1/areas/no-such-area/history?period=2d", FREE, 400, BAD, Some("period")),
    case("400 before 403 via include", "GET", "/v1/areas/aberdeen?include=history,bogus", FREE, 400, BAD, Some("include")),
    case("403 before 404 area_not_found", "GET", "/v1/areas/no-such-area/history", FREE, 403, UPGRADE, None),
    case("403 before 404 via include", "GET", "/v1/areas/no-such-area?include=history", Key(Plan::Starter), 403, UPGRADE, None),
    case("400 before 404 area_not_found", "GET", "/v1/areas/no-such-area?include=bogus", G, 400, BAD, Some("include")),
    case("400 before 404 in compare", "GET", "/v1/areas/compare?ids=no-such-area,lemuria&dimensions=weather", G, 400, BAD, Some("dimensions")),
    case("plan passes, then area", "GET", "/v1/areas/no-such-area?include=history", Key(Plan::Enterprise), 404, NO_AREA, None),
];

fn authorization(app: &TestApp, who: Who, revoked: &str) -> Option<Vec<u8>> {
    match who {
        Nobody => None,
        Header(h) => Some(h.as_bytes().to_vec()),
        Key(p) => Some(app.bearer(p)),
        Revoked => Some(format!("Bearer {revoked}").into_bytes()),
    }
}

#[test]
fn every_error_row_has_the_one_shape_and_the_checks_run_in_order() {
    let app = spawn_app();
    let conn = db::open_writable(&app.db).expect("open the test database");
    let (id, revoked) = keys::create(&conn, Plan::Enterprise, "to revoke").unwrap();
    keys::revoke(&conn, &id).unwrap();
    drop(conn);
    for c in CASES {
        let auth = authorization(app, c.who, &revoked);
        let headers: Vec<(&str, &[u8])> = auth
            .iter()
            .map(|a| ("Authorization", a.as_slice()))
            .collect();
        let what = format!("{} ({} {})", c.why, c.method, c.target);
        let reply = app.send(c.method, c.target.as_bytes(), &headers);
        assert_eq!(
            reply.status,
            c.status,
            "{what}: {}",
            String::from_utf8_lossy(&reply.body)
        );
        let message = assert_error(&reply, c.status, c.code, c.param);
        if let Some(param) = c.param {
            // The message says what was wrong: it names the parameter or its value.
            let value = c
                .target
                .split(['?', '&'])
                .find_map(|kv| kv.strip_prefix(&format!("{param}=")[..]));
            let named = message.contains(param)
                || value.is_some_and(|v| message.contains(v.split(',').next_back().unwrap()));
            assert!(
                named,
                "{what}: the message names {param} or its value: {message}"
            );
        }
        if c.code == NO_AREA {
            assert!(
                message.contains("no-such-area"),
                "{what}: the message names the id: {message}"
            );
        }
        if c.method == "GET" {
            // HEAD: the same status and headers, no body (the client refuses one).
            let head = app.send("HEAD", c.target.as_bytes(), &headers);
            assert_headers_of_error(&head, c.status);
            assert_eq!(
                head.header("Content-Length"),
                reply.header("Content-Length"),
                "{what}"
            );
        }
    }
    internal_errors_say_nothing_of_the_internals(app);
    errors_beyond_the_table_share_the_shape(app);
}

/// 500 internal_error: a server over a copy of the database that has lost a
/// table its history queries need.
fn internal_errors_say_nothing_of_the_internals(app: &TestApp) {
    let broken = scratch_dir("broken").join("areas.db");
    std::fs::copy(&app.db, &broken).expect("copy the database");
    rusqlite::Connection::open(&broken)
        .and_then(|c| c.execute_batch("DROP TABLE history"))
        .expect("break the copy");
    let addr = serve(&broken);
    let auth = app.bearer(Plan::Growth);
    let reply = common::client::send(
        addr,
        "GET",
        b"/v1/areas/aberdeen/history",
        &[("Authorization", &auth)],
    );
    let message = assert_error(&reply, 500, "internal_error", None).to_lowercase();
    for secret in ["sqlite", "table", "history", "no such", "panick", "src/"] {
        assert!(
            !message.contains(secret),
            "no internals in the message: {message}"
        );
    }
    // The rest of the API still answers from the same server.
    let ok = common::client::send(
        addr,
        "GET",
        b"/v1/areas/aberdeen",
        &[("Authorization", &auth)],
    );
    assert_eq!(ok.status, 200);
}

/// The errors the hardening added (issue 4) answer in the same shape: 414,
/// 431, 503 and, last because it spends this server's budget for callers
/// without a key, 429.
fn errors_beyond_the_table_share_the_shape(app: &TestApp) {
    let auth = app.bearer(Plan::Growth);
    let long = format!("/v1/areas/search?q={}", "a".repeat(9 * 1024));
    assert_error(
        &app.send("GET", long.as_bytes(), &[("Authorization", &auth)]),
        414,
        "uri_too_long",
        None,
    );
    let padding = vec![b'x'; 17 * 1024];
    let reply = app.send(
        "GET",
        b"/v1/areas",
        &[("Authorization", &auth), ("X-Padding", &padding)],
    );
    assert_error(&reply, 431, "headers_too_large", None);
    // 503 while the database file is gone.
    let gone = scratch_dir("gone").join("areas.db");
    std::fs::copy(&app.db, &gone).expect("copy the database");
    let addr = serve(&gone);
    std::fs::remove_file(&gone).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut reply = common::client::send(addr, "GET", b"/v1/areas", &[("Authorization", &auth)]);
    while reply.status == 200 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
        reply = common::client::send(addr, "GET", b"/v1/areas", &[("Authorization", &auth)]);
    }
    assert_error(&reply, 503, "service_unavailable", None);
    assert!(
        reply
            .header("Retry-After")
            .is_some_and(|s| s.parse::<u64>().is_ok())
    );
    // 429: requests without a valid key are limited per address.
    let refused = (0..200)
        .map(|_| app.send("GET", b"/v1/areas", &[]))
        .find(|r| r.status == 429)
        .expect("requests without a key are rate limited");
    assert_error(&refused, 429, "rate_limited", None);
    assert!(
        refused
            .header("Retry-After")
            .is_some_and(|s| s.parse::<u64>().is_ok_and(|n| n >= 1))
    );
}
