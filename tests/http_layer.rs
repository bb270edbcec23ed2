//! tiny_http's framing defects the server guards itself (docs/http-layer.md):
//! a request with a body is refused in the API's error shape and closes its
//! connection, so a request carried in a body never runs; and a Content-Length
//! of terabytes, which tiny_http would try to allocate, leaves the server up.
//! A streamed answer reaches an HTTP/1.0 client, which knows no chunks, as
//! its plain body up to the close.

mod common;

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::Duration;

use common::client::*;
use common::server::*;
use common::*;

const TIMEOUT: Duration = Duration::from_secs(10);

/// Sends `raw`, ends the sending side, and reads until the server closes.
/// tiny_http closes a connection once it reads the end of the client's data,
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
        // A length tiny_http cannot parse counts as none there: same effect.
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
    // A GET with a body tiny_http did read: refused in the error shape.
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

/// tiny_http would read a body of unknown length whole into memory before
/// sending it to an HTTP/1.0 client; the server sends the export's body as it
/// is made, unchunked, and closes the connection to end it.
#[test]
fn an_http_1_0_client_gets_the_export_unchunked_up_to_the_close() {
    let app = spawn_app();
    let request = format!(
        "GET /v1/areas/export?format=ndjson HTTP/1.0\r\nAuthorization: Bearer {}\r\n\r\n",
        app.key(Plan::Growth)
    );
    let raw = exchange_raw(app.addr, request.as_bytes()).expect("an answer");
    let text = String::from_utf8(raw).expect("UTF-8");
    let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
    assert!(head.starts_with("HTTP/1.0 200 "), "{head}");
    assert!(head.contains("\r\nConnection: close"), "{head}");
    assert!(
        !head.to_ascii_lowercase().contains("transfer-encoding"),
        "{head}"
    );
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines.len(), app.listed().len(), "every area, one line each");
    for line in lines {
        let area: serde_json::Value = serde_json::from_str(line).expect("one JSON object a line");
        assert!(area["id"].is_string(), "{line}");
    }
}
