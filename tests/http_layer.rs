//! Framing the HTTP layer refuses (docs/http-layer.md): a request with a body
//! is refused in the API's error shape and closes its connection, so a
//! request carried in a body never runs; and a Content-Length of terabytes
//! allocates nothing and leaves the server up.
//! A streamed answer goes in chunks over HTTP/1.1 only.

mod common;

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::Duration;

use common::client::*;
use common::server::*;
use common::*;

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
