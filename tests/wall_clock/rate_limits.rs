//! Rate-limit budgets spent against the clock, in-process (docs/api.md "Rate
//! limits"): the free plan's 60 a minute and the per-address limit for
//! requests without a valid key (X-Real-IP from the loopback front
//! separating clients: an IPv4 address each, an IPv6 /64 each). Tokens refill while the test sends, so how many pass
//! is bounded by the time the test measured.

use std::time::Duration;

use crate::common::client::*;
use crate::common::rate::{rate_headers, until_429};
use crate::common::server::*;
use crate::common::wait::within;
use crate::common::*;
use crate::serial;

const TIMEOUT: Duration = Duration::from_secs(10);

#[test]
fn free_key_gets_sixty_a_minute_then_429_with_headers_on_every_answer() {
    let _serial = serial();
    let (_, key, server) = start_keyed("free", Plan::Free);
    let (replies, took) = until_429(
        || get(server.addr(), "/v1/areas?limit=1", Some(&key)),
        1_000,
    );
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
fn requests_without_a_valid_key_are_limited_per_client_address() {
    let _serial = serial();
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
        1_000,
    );
    assert_unknown_keys_429(replies.last().unwrap());
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
    // In force within a second; waited for from another address, so that
    // the spent one's budget is not touched meanwhile.
    let bearer = format!("Bearer {key}");
    within(Duration::from_secs(3), || {
        (as_client("203.0.113.7", Some(&bearer)).status == 200).then_some(())
    })
    .expect("a new key is in force within 3 s");
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

#[test]
fn ipv6_clients_without_a_key_are_limited_per_64() {
    let _serial = serial();
    let db = fresh_db("anonymous-v6");
    let server = start(&db, 2, TIMEOUT);
    let as_client = |ip: &str| {
        let headers = [
            format!("X-Real-IP: {ip}"),
            "Authorization: Bearer ask_guess".into(),
        ];
        exchange(server.addr(), &get_request("/v1/areas", &headers)).expect("an answer")
    };
    // 100 addresses of one /64, each used once: one client rotating through
    // its network spends one budget.
    let mut n = 0;
    let (replies, took) = until_429(
        || {
            n += 1;
            as_client(&format!("2001:db8:5:6:{n:x}::{n:x}"))
        },
        100,
    );
    assert_unknown_keys_429(replies.last().unwrap());
    let refused = replies.len() - 1;
    assert!(
        (60..=61 + took.as_secs() as usize).contains(&refused),
        "{refused} 401s in {took:?}"
    );
    // The next /64 is another client.
    assert_error_shape(&as_client("2001:db8:5:7::1"), 401, "invalid_api_key");
}
