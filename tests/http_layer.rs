//! Framing the HTTP layer refuses (docs/http-layer.md): a request with a body
//! is refused in the API's error shape and closes its connection, so a
//! request carried in a body never runs; a Content-Length with a sign is
//! malformed; and a Content-Length of terabytes allocates nothing and leaves
//! the server up. An absolute-form target without a path is served as `/`.
//! A streamed answer goes in chunks over HTTP/1.1 only. The access log
//! (the real binary's stderr) prints at most a KiB of a target, and no key.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::Duration;

use crate::common::bin::Served;
use crate::common::client::*;
use crate::common::server::*;
use crate::common::wait::within;
use crate::common::*;
use area_scoring::transport::LOGGED_TARGET_BYTES;

const TIMEOUT: Duration = Duration::from_secs(10);

/// Sends `raw`, ends the sending side, and reads until the server closes.
/// The server closes a connection once it reads the end of the client's data,
/// so everything the server answered is read, with no wait on a timer.
fn send_then_close(addr: SocketAddr, raw: &[u8]) -> Vec<u8> {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream.write_all(raw).unwrap();
    stream.shutdown(Shutdown::Write).unwrap();
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    out
}

fn statuses(raw: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(raw);
    text.match_indices("HTTP/1.1 ")
        .map(|(i, _)| text[i + 9..i + 12].to_string())
        .collect()
}

#[test]
fn a_chunked_get_is_refused_and_the_request_in_its_body_never_runs() {
    let db = fresh_db("smuggle");
    let (_, key) = new_key(&db, Plan::Growth);
    let server = start(&db, 2, TIMEOUT);
    let smuggled = format!(
        "GET /v1/areas/cape-town HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {key}\r\n\r\n"
    );
    for head in [
        "GET /healthz HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n",
        "HEAD /healthz HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
        // A length that cannot be parsed is a body of unknown end: refused too.
        "GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 1x\r\n\r\n",
    ] {
        let raw = send_then_close(server.addr(), format!("{head}{smuggled}").as_bytes());
        assert_eq!(
            statuses(&raw),
            ["400"],
            "{head:?}: {}",
            String::from_utf8_lossy(&raw)
        );
        let text = String::from_utf8_lossy(&raw);
        assert!(
            !text.contains("truth_score"),
            "the smuggled request ran: {text}"
        );
        assert!(text.contains("Connection: close\r\n"), "{text}");
    }
    // A GET with a short body: refused in the error shape.
    let reply = exchange(
        server.addr(),
        b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello",
    )
    .unwrap();
    assert_error_shape(&reply, 400, "body_not_allowed");
    assert!(reply.header("X-Request-Id").is_some());
    // Without a body, the same connection keeps serving.
    assert_eq!(get(server.addr(), "/healthz", None).status, 200);
}

#[test]
fn a_content_length_with_a_sign_is_malformed_and_closes() {
    let db = fresh_db("signed-length");
    let (_, key) = new_key(&db, Plan::Growth);
    let server = start(&db, 2, TIMEOUT);
    let smuggled = format!(
        "GET /v1/areas/cape-town HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {key}\r\n\r\n"
    );
    for length in ["+0", "-0", "+5", " +0"] {
        let head = format!("GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length:{length}\r\n\r\n");
        let raw = send_then_close(server.addr(), format!("{head}{smuggled}").as_bytes());
        let text = String::from_utf8_lossy(&raw);
        assert_eq!(statuses(&raw), ["400"], "{length:?}: {text}");
        let reply = parse(&raw, false).unwrap_or_else(|e| panic!("{length:?}: {e}: {text}"));
        assert_error_shape(&reply, 400, "bad_request");
        assert_eq!(reply.header("Connection"), Some("close"), "{length:?}");
        assert!(
            !text.contains("truth_score"),
            "the next request ran: {text}"
        );
    }
    // Leading zeros are digits: a length of 0, served.
    let reply = exchange(
        server.addr(),
        b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: 00\r\n\r\n",
    )
    .unwrap();
    assert_eq!(reply.status, 200, "{}", reply.text());
}

#[test]
fn a_content_length_of_terabytes_leaves_the_server_up() {
    let db = fresh_db("huge-length");
    let server = start(&db, 2, TIMEOUT);
    for method in ["GET", "POST"] {
        let mut stream = TcpStream::connect(server.addr()).unwrap();
        let head = format!(
            "{method} /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999999999\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).unwrap();
        // Whatever becomes of it, every other client is still answered.
        for _ in 0..3 {
            assert_eq!(get(server.addr(), "/healthz", None).status, 200);
        }
    }
}

/// HTTP/1.0 has no chunks for a body of unknown length: an export over
/// HTTP/1.0 is refused with 426 and the protocol to use. HTTP/1.1 gets the chunks, and Connection: close.
#[test]
fn an_export_is_refused_over_http_1_0_and_chunked_and_closed_over_http_1_1() {
    let app = spawn_app();
    let ask = |version: &str| {
        let request = format!(
            "GET /v1/areas/export?format=ndjson {version}\r\nAuthorization: Bearer {}\r\n\r\n",
            app.key(Plan::Growth)
        );
        let text = String::from_utf8(send_then_close(app.addr, request.as_bytes())).expect("UTF-8");
        let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
        (head.to_string(), body.to_string())
    };
    let (head, body) = ask("HTTP/1.0");
    assert!(head.starts_with("HTTP/1.0 426 "), "{head}");
    assert!(head.contains("\r\nUpgrade: HTTP/1.1"), "{head}");
    assert!(body.contains("\"code\":\"upgrade_required\""), "{body}");
    let (head, body) = ask("HTTP/1.1");
    assert!(head.starts_with("HTTP/1.1 200 "), "{head}");
    assert!(head.contains("\r\nTransfer-Encoding: chunked"), "{head}");
    assert!(head.contains("\r\nConnection: close"), "{head}");
    assert!(
        body.ends_with("\r\n0\r\n\r\n"),
        "the last chunk ends the body"
    );
}

/// The access-log line of the request whose id is `id`, waited for (the log
/// is written in batches).
fn logged_line(server: &Served, id: &str) -> String {
    within(Duration::from_secs(5), || {
        let log = server.log.lock().unwrap();
        log.iter().find(|l| l.contains(&format!(" {id} "))).cloned()
    })
    .unwrap_or_else(|| panic!("no access-log line for {id}"))
}

/// GET `target` on `server` with `id` as its request id, over HTTP/1.1.
fn get_as_id(server: &Served, target: &str, id: &str) -> Reply {
    let raw = format!(
        "GET {target} HTTP/1.1\r\nHost: t\r\nAccept: application/json\r\nX-Request-Id: {id}\r\nConnection: close\r\n\r\n"
    );
    let reply = exchange(server.addr, raw.as_bytes()).unwrap_or_else(|e| panic!("{target}: {e}"));
    assert_eq!(reply.header("X-Request-Id"), Some(id));
    reply
}

#[test]
fn an_absolute_form_target_without_a_path_is_served_as_the_root() {
    let (_, _, server) = Served::spawn_keyed("absolute-form", Plan::Growth, &[]);
    let root = get_as_id(&server, "/", "root");
    assert_eq!(root.status, 200, "{}", root.text());
    for (i, (target, logged)) in [
        ("http://t.example?x=1", "/?x=1"),
        ("HTTP://t.example:8080?x=1&y=/z", "/?x=1&y=/z"),
        ("http://t.example", "/"),
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("absolute-{i}");
        let reply = get_as_id(&server, target, &id);
        assert_eq!(reply.status, 200, "{target}: {}", reply.text());
        assert_eq!(
            reply.header("Content-Type"),
            root.header("Content-Type"),
            "{target}"
        );
        assert_eq!(reply.body, root.body, "{target}: the root's answer");
        let line = logged_line(&server, &id);
        assert!(
            line.contains(&format!("] GET {logged} 200 ")),
            "{target}: {line}"
        );
    }
}

#[test]
fn the_access_log_prints_a_kib_of_a_long_target_and_how_much_it_left_out() {
    let (_, _, server) = Served::spawn_keyed("long-target", Plan::Growth, &[]);
    // Near the 8 KiB a target may have; the answer does not matter here.
    let target = format!("/healthz?q={}", "a".repeat(8_000));
    get_as_id(&server, &target, "long-target");
    let line = logged_line(&server, "long-target");
    let kept = &target[..LOGGED_TARGET_BYTES];
    let left_out = target.len() - LOGGED_TARGET_BYTES;
    assert!(
        line.contains(&format!("] GET {kept} +{left_out} bytes ")),
        "the first KiB, then the mark: {line}"
    );
    // The time, level, target, method, status, duration and id around it.
    assert!(
        line.len() <= LOGGED_TARGET_BYTES + 160,
        "{} bytes: {line}",
        line.len()
    );
}

#[test]
fn keys_in_a_target_never_reach_the_log_in_the_clear() {
    let (_, key, server) = Served::spawn_keyed("log-redaction", Plan::Growth, &[]);
    for (i, (target, logged)) in [
        ("/v1/areas?k%65y=ask_secret", "/v1/areas?k%65y=[redacted]"),
        ("/v1/areas?foo=ask_secret", "/v1/areas?foo=[redacted]"),
        ("/healthz?foo=ask_secret&x=1", "/healthz?foo=[redacted]&x=1"),
        (
            &format!("/v1/areas?limit=1&q={key}"),
            "/v1/areas?limit=1&q=[redacted]",
        ),
        (&format!("/v1/areas/{key}"), "/v1/areas/[redacted]"),
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("redacted-{i}");
        get_as_id(&server, target, &id);
        let line = logged_line(&server, &id);
        assert!(
            line.contains(&format!("] GET {logged} ")),
            "{target}: {line}"
        );
    }
    let log = server.log.lock().unwrap();
    for secret in ["ask_secret", key.as_str()] {
        assert!(
            !log.iter().any(|l| l.contains(secret)),
            "{secret} is in the log: {log:#?}"
        );
    }
}
