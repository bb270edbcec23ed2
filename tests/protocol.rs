//! What every response shares: HEAD on every GET route (same status and
//! headers, no body), the JSON content type, and X-Request-Id (echoed when
//! safe, replaced otherwise, never carrying CR or LF); and answers stay
//! correct under concurrent clients.

use crate::common::{JSON, Plan, spawn_app};

/// Headers that legitimately differ between two requests for the same thing.
fn varies(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name == "date" || name == "x-request-id" || name.starts_with("x-ratelimit-")
}

#[test]
fn head_answers_every_get_route_like_get_without_a_body() {
    let app = spawn_app();
    let auth = app.bearer(Plan::Growth);
    for target in [
        "/v1/areas?limit=100",
        "/v1/areas/search?q=cape&limit=50",
        "/v1/areas/search?lat=-26.2&lng=28.05&radius=20",
        "/v1/areas/compare?ids=aberdeen,alberton,ashton",
        "/v1/areas/aberdeen",
        "/v1/areas/aberdeen?include=nearby,history",
        "/v1/areas/aberdeen/history?period=1y",
    ] {
        let get = app.send("GET", target.as_bytes(), &[("Authorization", &auth)]);
        let head = app.send("HEAD", target.as_bytes(), &[("Authorization", &auth)]);
        assert_eq!((get.status, head.status), (200, 200), "{target}");
        assert!(!get.body.is_empty() && head.body.is_empty(), "{target}");
        let same = |r: &crate::common::client::Reply| {
            let mut h: Vec<(String, String)> = r
                .headers
                .iter()
                .filter(|(n, _)| !varies(n))
                .map(|(n, v)| (n.to_ascii_lowercase(), v.clone()))
                .collect();
            h.sort();
            h
        };
        assert_eq!(same(&head), same(&get), "{target}: HEAD has GET's headers");
        assert_eq!(get.header("Content-Type"), Some(JSON));
        assert!(head.header("X-Request-Id").is_some());
    }
}

#[test]
fn request_ids_are_echoed_when_safe_and_replaced_otherwise() {
    let app = spawn_app();
    let auth = app.bearer(Plan::Growth);
    let id_of = |id: &[u8], authorized: bool| {
        let mut headers: Vec<(&str, &[u8])> = vec![("X-Request-Id", id)];
        if authorized {
            headers.push(("Authorization", &auth));
        }
        app.send("GET", b"/v1/areas?limit=1", &headers)
    };
    let sixty_four = "a".repeat(64);
    for safe in [
        "abc",
        "A-b_c.9",
        "0",
        sixty_four.as_str(),
        "req_from-the.client",
    ] {
        for authorized in [true, false] {
            let reply = id_of(safe.as_bytes(), authorized);
            assert_eq!(reply.header("X-Request-Id"), Some(safe), "{safe} echoed");
        }
    }
    let sixty_five = "a".repeat(65);
    let mut made = Vec::new();
    for unsafe_id in [
        sixty_five.as_str(),
        "a b",
        "a/b",
        "a:b",
        "<script>",
        "a;b",
        "a\"b",
        "a,b",
    ] {
        let reply = id_of(unsafe_id.as_bytes(), true);
        assert_eq!(reply.status, 200);
        let id = reply
            .header("X-Request-Id")
            .expect("a request id")
            .to_string();
        assert_ne!(id, unsafe_id, "{unsafe_id:?} is not echoed");
        assert!(is_safe(&id), "the new id is itself safe: {id:?}");
        made.push(id);
    }
    made.sort();
    made.dedup();
    assert_eq!(made.len(), 8, "every new id is new");
    // An answer without an id from the client still has one.
    assert!(
        app.get("/v1/areas?limit=1")
            .header("X-Request-Id")
            .is_some_and(is_safe)
    );
}

fn is_safe(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

#[test]
fn cr_and_lf_in_a_request_id_never_reach_the_response() {
    let app = spawn_app();
    let auth = app.bearer(Plan::Growth);
    // A bare LF or CR inside the value (the line still ends in CRLF), and a
    // CRLF that tries to smuggle in a header of its own. A bare LF ends the
    // line, so what follows is a header line without a colon; a bare CR is
    // invalid in a head (RFC 9112, section 2.2): both are 400 bad_request.
    // A whole CRLF makes a second header, which the request may carry.
    for (id, status) in [
        (&b"abc\ndef"[..], 400),
        (b"abc\rdef", 400),
        (b"abc\r\nX-Injected: yes", 200),
        (b"abc\n\rX-Injected: yes", 400),
    ] {
        let reply = app.send(
            "GET",
            b"/v1/areas?limit=1",
            &[("X-Request-Id", id), ("Authorization", &auth)],
        );
        assert_eq!(reply.status, status, "{:?}", String::from_utf8_lossy(id));
        if status == 400 {
            assert_eq!(reply.code(), "bad_request");
        }
        assert!(reply.header("X-Injected").is_none(), "no injected header");
        let echoed = reply.header("X-Request-Id").expect("a request id");
        assert!(is_safe(echoed), "{echoed:?}");
        // Every header line of the raw head is a name, a colon and a value.
        let head = String::from_utf8_lossy(&reply.head).to_string();
        for line in head.split("\r\n").skip(1) {
            assert!(
                !line.contains(['\r', '\n']) && line.contains(':'),
                "broken header line {line:?}"
            );
            assert!(
                !line.starts_with("def") && !line.starts_with("X-Injected"),
                "{line:?}"
            );
        }
    }
}

#[test]
fn concurrent_clients_each_get_their_own_answer() {
    let app = spawn_app();
    let listed = app.listed();
    // 16 clients at once, 4 workers: every answer is the one asked for.
    std::thread::scope(|s| {
        for t in 0..16 {
            s.spawn(move || {
                for i in 0..10 {
                    let area = &listed[(t * 10 + i) * 5];
                    let id = area["id"].as_str().unwrap();
                    let body = app.ok(&format!("/v1/areas/{}", crate::common::encode(id)));
                    assert_eq!(body["id"], area["id"]);
                    assert_eq!(body["truth_score"], area["truth_score"]);
                }
            });
        }
    });
}
