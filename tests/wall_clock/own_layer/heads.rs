//! Malformed and hostile request heads against the binary: each its JSON
//! error with `Connection: close`, and nothing left behind.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

use super::*;
use crate::serial;

#[test]
fn http_2_and_3_request_lines_are_505_and_leave_nothing_behind() {
    let _serial = serial();
    let (_, server) = served("http2", &[]);
    let base = baseline(&server);
    for version in ["HTTP/2.0", "HTTP/3.0"] {
        for _ in 0..25 {
            let raw = format!("GET /healthz {version}\r\nHost: t\r\n\r\n");
            assert_refused(raw.as_bytes(), 505, "http_version_not_supported");
        }
    }
    back_to_baseline(&server, base, "after 50 HTTP/2.0 and 3.0 lines");
}

#[test]
fn each_malformed_shape_has_its_code() {
    let _serial = serial();
    let (_, server) = served("malformed", &[]);
    let base = baseline(&server);
    for (raw, status, code) in [
        (&b"GET /healthz\r\n\r\n"[..], 400, "bad_request"),
        (
            b"GET /healthz HTTP/1.7\r\n\r\n",
            505,
            "http_version_not_supported",
        ),
        (b"GET /healthz HTXP/1.1\r\n\r\n", 400, "bad_request"),
        (
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",
            400,
            "bad_request",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nNoColon\r\n\r\n",
            400,
            "bad_request",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nX-A: b\r\n folded\r\n\r\n",
            400,
            "bad_request",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n\r\n",
            400,
            "bad_request",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nExpect: x\r\n\r\n",
            417,
            "expectation_failed",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
            400,
            "body_not_allowed",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n",
            400,
            "body_not_allowed",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
            400,
            "body_not_allowed",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nN\xc3\xa9: v\r\n\r\n",
            400,
            "bad_request",
        ),
        (
            b"GET /v1/areas/\xc3\xa9 HTTP/1.1\r\n\r\n",
            400,
            "bad_request",
        ),
    ] {
        assert_refused(raw, status, code);
    }
    // Expect: 100-continue without a body is simply answered, with no 100.
    let reply = exchange(
        server.addr,
        b"GET /healthz HTTP/1.1\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    assert_eq!(reply.status, 200);
    back_to_baseline(&server, base, "after the malformed heads");
}

#[test]
fn a_non_ascii_header_value_counts_as_the_header_absent() {
    let _serial = serial();
    let (key, server) = served("non-ascii-value", &[]);
    let auth = format!("Bearer {key}\u{e9}");
    let reply = send(
        server.addr,
        "GET",
        b"/v1/areas/soweto",
        &[("Authorization", auth.as_bytes())],
    );
    assert_error_shape(&reply, 401, "missing_api_key");
    let bearer = format!("Bearer {key}");
    let first = send(
        server.addr,
        "GET",
        b"/v1/areas/soweto",
        &[("Authorization", bearer.as_bytes())],
    );
    let etag = first.header("ETag").expect("an ETag").to_string();
    let reply = send(
        server.addr,
        "GET",
        b"/v1/areas/soweto",
        &[
            ("Authorization", bearer.as_bytes()),
            ("X-Request-Id", "caf\u{e9}".as_bytes()),
            ("If-None-Match", format!("{etag}\u{e9}").as_bytes()),
        ],
    );
    assert_eq!(reply.status, 200, "If-None-Match ignored");
    let id = reply.header("X-Request-Id").expect("an id");
    assert!(id.starts_with("req_"), "a generated id: {id}");
}

#[test]
fn a_content_length_of_99999999999_is_refused_and_closed() {
    let _serial = serial();
    let (_, server) = served("huge-length", &[]);
    let base = baseline(&server);
    for method in ["GET", "POST"] {
        let raw = format!("{method} /healthz HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n");
        // The client sends part of the body and keeps the connection open:
        // the server answers and closes all the same.
        let mut stream = TcpStream::connect(server.addr).unwrap();
        stream.write_all(raw.as_bytes()).unwrap();
        stream.write_all(&[b'x'; 1000]).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let mut out = Vec::new();
        let _ = stream.read_to_end(&mut out);
        let reply = parse(&out, false).expect("an answer, then the close");
        assert_error_shape(&reply, 400, "body_not_allowed");
    }
    back_to_baseline(&server, base, "after Content-Length: 99999999999");
}

#[test]
fn an_endless_request_line_is_414_with_memory_bounded() {
    let _serial = serial();
    let (_, server) = served("endless", &[]);
    let base = baseline(&server);
    let rss_before = rss_kib(&server);
    let mut peak = rss_before;
    let lines: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut s = TcpStream::connect(server.addr).unwrap();
            s.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
            s.write_all(b"GET /").unwrap();
            s
        })
        .collect();
    // Up to 4 MiB each, until the server answers and stops reading.
    let chunk = [b'a'; 64 * 1024];
    for mut s in &lines {
        for _ in 0..64 {
            if s.write_all(&chunk).is_err() {
                break;
            }
        }
        peak = peak.max(rss_kib(&server));
    }
    for mut s in &lines {
        s.shutdown(Shutdown::Write).ok();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        let reply = parse(&out, false).expect("an answer");
        assert_error_shape(&reply, 414, "uri_too_long");
    }
    assert!(
        peak < rss_before + 16 * 1024,
        "RSS {rss_before} KiB before, {peak} KiB at most during 20 endless lines"
    );
    drop(lines);
    back_to_baseline(&server, base, "after 20 endless request lines");
}
