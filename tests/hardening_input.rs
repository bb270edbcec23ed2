//! Hostile input, in-process (docs/api.md "Errors", "Every response"): 414 and 431
//! at their exact bounds in the API's error shape, no CR or LF in any header a
//! client can influence, and a panicking handler answering 500 while every
//! worker keeps serving.

use crate::common::client::*;
use crate::common::server::*;
use crate::common::*;

#[cfg(feature = "fault-injection")]
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

#[test]
fn uri_over_8_kib_is_414_and_headers_over_16_kib_are_431() {
    let (_, key, server) = start_keyed("sizes", Plan::Enterprise);
    let auth = format!("Authorization: Bearer {key}");
    // Empty query segments are ignored, so '&' pads a valid target to any length.
    let target = |len: usize| format!("/v1/areas?limit=1{}", "&".repeat(len - 17));
    let at = exchange(
        server.addr(),
        &get_request(&target(8192), std::slice::from_ref(&auth)),
    )
    .unwrap();
    assert_eq!(at.status, 200, "exactly 8 KiB is allowed");
    let over = exchange(
        server.addr(),
        &get_request(&target(8193), std::slice::from_ref(&auth)),
    )
    .unwrap();
    assert_error_shape(&over, 414, "uri_too_long");
    // Header bytes: each line's name, value and ": " + CRLF. Host: test (4+4+4),
    // Connection: close (10+5+4) and the Authorization line are already there.
    let fixed = 12 + 19 + auth.len() + 2;
    let pad = |total: usize| format!("X-Pad: {}", "p".repeat(total - fixed - 5 - 4));
    let at = exchange(
        server.addr(),
        &get_request("/v1/areas", &[auth.clone(), pad(16384)]),
    )
    .unwrap();
    assert_eq!(at.status, 200, "exactly 16 KiB of headers is allowed");
    let over = exchange(
        server.addr(),
        &get_request("/v1/areas", &[auth.clone(), pad(16385)]),
    )
    .unwrap();
    assert_error_shape(&over, 431, "headers_too_large");
    // Many small headers add up the same way.
    let many: Vec<String> = (0..600)
        .map(|i| format!("X-H{i:03}: {}", "v".repeat(20)))
        .collect();
    assert_error_shape(
        &exchange(server.addr(), &get_request("/v1/areas", &many)).unwrap(),
        431,
        "headers_too_large",
    );
}

#[test]
fn no_client_input_puts_cr_or_lf_into_a_response_header() {
    let (_, key, server) = start_keyed("crlf", Plan::Starter);
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
        let raw = get_request(&target, &headers);
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
            &get_request("/v1/areas", &[auth.clone(), format!("X-Request-Id: {id}")]),
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
        assert_error_shape(&r, 500, "internal_error");
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
