//! The errors outside the table of docs/api.md "Errors", in the same one shape:
//! 500 internal_error saying nothing of the internals, 414 and 431 for a
//! request too large, 503 with Retry-After while the database file is gone,
//! and 429 with Retry-After for requests without a key past the limit. Each
//! but 414 and 431 on a server of its own over a copy of the database.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::common::client::{Reply, send};
use crate::common::rate::until_429;
use crate::common::wait::until;
use crate::common::{
    Plan, assert_error, assert_retry_after, assert_unknown_keys_429, keys_path, scratch_dir, serve,
    spawn_app,
};

/// A server of the test's own over a copy of the shared database, first
/// changed by `change`; the copy's path is returned with the address.
fn serve_a_copy(name: &str, change: impl FnOnce(&PathBuf)) -> (SocketAddr, PathBuf) {
    let copy = scratch_dir(name).join("areas.db");
    std::fs::copy(&spawn_app().db, &copy).expect("copy the database");
    // And its keys, so that the shared server's keys work here too.
    std::fs::copy(keys_path(&spawn_app().db), keys_path(&copy)).expect("copy the keys file");
    change(&copy);
    (serve(&copy), copy)
}

/// GET `target` with the shared server's growth key, at `addr`.
fn get_at(addr: SocketAddr, target: &str) -> Reply {
    let auth = spawn_app().bearer(Plan::Growth);
    send(addr, "GET", target.as_bytes(), &[("Authorization", &auth)])
}

/// 500 internal_error: a server over a copy of the database that has lost a
/// table its history queries need.
#[test]
fn internal_errors_say_nothing_of_the_internals() {
    let (addr, _) = serve_a_copy("broken", |copy| {
        rusqlite::Connection::open(copy)
            .and_then(|c| c.execute_batch("DROP TABLE recent_history; DROP TABLE history"))
            .expect("break the copy");
    });
    let reply = get_at(addr, "/v1/areas/aberdeen/history");
    let message = assert_error(&reply, 500, "internal_error", None).to_lowercase();
    for secret in ["sqlite", "table", "history", "no such", "panick", "src/"] {
        assert!(
            !message.contains(secret),
            "no internals in the message: {message}"
        );
    }
    // The rest of the API still answers from the same server.
    assert_eq!(get_at(addr, "/v1/areas/aberdeen").status, 200);
}

#[test]
fn a_uri_over_8_kib_is_414_in_the_one_shape() {
    let app = spawn_app();
    let long = format!("/v1/areas/search?q={}", "a".repeat(9 * 1024));
    assert_error(&app.get(&long), 414, "uri_too_long", None);
}

#[test]
fn headers_over_16_kib_are_431_in_the_one_shape() {
    let app = spawn_app();
    let auth = app.bearer(Plan::Growth);
    let padding = vec![b'x'; 17 * 1024];
    let reply = app.send(
        "GET",
        b"/v1/areas",
        &[("Authorization", &auth), ("X-Padding", &padding)],
    );
    assert_error(&reply, 431, "headers_too_large", None);
}

/// 503 while the database file is gone, on a server of its own.
#[test]
fn a_missing_database_is_503_in_the_one_shape_with_retry_after() {
    let (addr, gone) = serve_a_copy("gone", |_| {});
    std::fs::remove_file(&gone).unwrap();
    let reply = until(
        Duration::from_secs(10),
        || get_at(addr, "/v1/areas"),
        |r| r.status != 200,
    );
    assert_error(&reply, 503, "service_unavailable", None);
    assert_retry_after(&reply);
}

/// 429: requests without a valid key are limited per address, with a code of
/// their own that names no plan, so that a client retrying on 429 learns its
/// key is wrong. On a server of its own, so that spending the budget cannot
/// turn the shared server's 401 rows into 429s.
#[test]
fn requests_without_a_valid_key_past_the_limit_are_429_too_many_unknown_keys() {
    let (addr, _) = serve_a_copy("limited", |_| {});
    let wrong = [("Authorization", &b"Bearer ask_not_a_key"[..])];
    let (mut replies, _) = until_429(|| send(addr, "GET", b"/v1/areas", &wrong), 1_000);
    let refused = replies.pop().expect("an answer");
    assert_error(&refused, 429, "too_many_unknown_keys", None);
    assert_unknown_keys_429(&refused);
    // Every 401 before it announced what was left of the keyless budget.
    let left: Vec<&str> = replies
        .iter()
        .map(|r| r.header("RateLimit").unwrap())
        .collect();
    assert_eq!(left.first(), Some(&"\"keyless\";r=59;t=1"), "{left:?}");
    for r in &replies {
        assert_error(r, 401, "invalid_api_key", None);
        assert_eq!(r.header("RateLimit-Policy"), Some("\"keyless\";q=60;w=60"));
    }
    // Without any key, the same budget and the same answer.
    assert_unknown_keys_429(&send(addr, "GET", b"/v1/areas", &[]));
}
