//! Property tests of the HTTP layer's connection code (src/transport/), over
//! real sockets to a layer serving a fixed answer: random bytes, and valid
//! requests cut at random points and mutated. The server never panics (it
//! keeps answering), every answer is well-formed HTTP/1.x with a length that
//! matches its body, or the connection just closes, and a valid request after
//! a valid one on the same connection is answered.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use area_scoring::transport::listener::listen;
use area_scoring::transport::{
    ConnLimits, Layer, LayerConfig, LayerCounts, Request, Response, Service,
};
use proptest::prelude::*;

struct Echo;

impl Service for Echo {
    fn answer(&self, req: &Request, _: bool) -> Response {
        Response::json(200, format!("{{\"target\":{:?}}}", req.target).into_bytes())
    }
}

fn addr() -> SocketAddr {
    static ADDR: OnceLock<(SocketAddr, Layer)> = OnceLock::new();
    ADDR.get_or_init(|| {
        let listener = listen("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let config = LayerConfig {
            workers: 2,
            client_timeout: Duration::from_secs(2),
            limits: ConnLimits {
                per_address: 0,
                ..ConnLimits::default()
            },
        };
        let layer = Layer::start(
            vec![listener],
            config,
            Arc::new(Echo),
            Arc::new(LayerCounts::default()),
        )
        .unwrap();
        (addr, layer)
    })
    .0
}

/// Sends `bytes`, ends the sending side, and reads until the server closes.
fn exchange(bytes: &[u8]) -> Vec<u8> {
    let mut s = TcpStream::connect(addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    // The server may close early (a refusal); what it wrote is still read.
    let _ = s.write_all(bytes);
    let _ = s.shutdown(Shutdown::Write);
    let mut out = Vec::new();
    match s.read_to_end(&mut out) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        Err(e) => panic!("the connection neither answered nor closed: {e}"),
    }
    out
}

/// Splits `raw` into answers; panics on anything not well-formed.
fn answers(mut raw: &[u8]) -> Vec<u16> {
    let mut statuses = Vec::new();
    while !raw.is_empty() {
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut resp = httparse::Response::new(&mut headers);
        let len = match resp.parse(raw) {
            Ok(httparse::Status::Complete(n)) => n,
            other => panic!(
                "not an HTTP answer ({other:?}): {:?}",
                String::from_utf8_lossy(raw)
            ),
        };
        let status = resp.code.unwrap();
        assert!(
            resp.headers
                .iter()
                .any(|h| h.name.eq_ignore_ascii_case("Date"))
        );
        let length: usize = resp
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case("Content-Length"))
            .map(|h| std::str::from_utf8(h.value).unwrap().parse().unwrap())
            .expect("a Content-Length");
        assert!(raw.len() >= len + length, "a body shorter than its length");
        let body = &raw[len..len + length];
        serde_json::from_slice::<serde_json::Value>(body).expect("a JSON body");
        statuses.push(status);
        raw = &raw[len + length..];
    }
    statuses
}

const VALID: &[u8] = b"GET /v1/areas?limit=2 HTTP/1.1\r\nHost: t\r\nAccept: */*\r\n\r\n";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_bytes_get_well_formed_answers_or_a_close(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        answers(&exchange(&bytes));
    }

    #[test]
    fn a_valid_request_cut_short_is_never_answered_wrongly(cut in 0..VALID.len()) {
        let statuses = answers(&exchange(&VALID[..cut]));
        prop_assert!(statuses.is_empty() || statuses == [400], "{statuses:?}");
    }

    #[test]
    fn a_mutated_request_then_a_valid_one(at in 0..VALID.len(), byte in any::<u8>()) {
        let mut mutated = VALID.to_vec();
        mutated[at] = byte;
        let sent = [&mutated[..], VALID].concat();
        let statuses = answers(&exchange(&sent));
        // Either the mutation was refused (and the connection closed), or
        // both requests were answered.
        prop_assert!(!statuses.is_empty() && statuses.len() <= 2, "{statuses:?}");
        // A line feed put in a header ends the head there (a recipient may
        // take a bare LF for CRLF, RFC 9112 section 2.2): the mutated
        // request is answered, and the rest of its head, read as the next
        // request, is refused.
        if statuses[0] == 200 && statuses.len() == 2 {
            if byte == b'\n' {
                prop_assert!(matches!(statuses[1], 200 | 400), "{statuses:?}");
            } else {
                prop_assert_eq!(statuses[1], 200);
            }
        }
    }

    #[test]
    fn a_valid_request_after_a_valid_one_is_answered(n in 2usize..20) {
        let statuses = answers(&exchange(&VALID.repeat(n)));
        prop_assert_eq!(statuses, vec![200; n]);
    }
}

/// The case proptest found: `Host: t` made `Host: ` and a bare LF, so the
/// head ends there and `Accept: */*` is read as a request line.
#[test]
fn a_line_feed_in_a_header_ends_the_head_and_the_rest_is_refused() {
    let mut mutated = VALID.to_vec();
    mutated[38] = b'\n';
    let statuses = answers(&exchange(&[&mutated[..], VALID].concat()));
    assert_eq!(statuses, [200, 400]);
}
