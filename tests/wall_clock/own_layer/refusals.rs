//! Connections refused at a cap (docs/http-layer.md, "Limits"): a refused
//! connection takes no place in the connection table, so refusals at the
//! per-address cap never cost other clients theirs; and at either cap the
//! refused client reads its whole 503 in a lingering close, even while it
//! is still sending a request body. Loopback is counted here, and each
//! client is told apart by a source address of its own in 127.0.0.0/8.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use area_scoring::server::{self, Running, ServeConfig};
use area_scoring::transport::ConnLimits;
use socket2::{Domain, Socket, Type};

use super::*;
use crate::serial;

/// A server in-process with loopback counted by the per-address cap.
fn capped(name: &str, per_address: usize, max_connections: usize) -> Running {
    let db = fresh_db(name);
    server::start(&ServeConfig {
        db: db.clone(),
        keys: crate::common::db::keys_path(&db),
        redis: None,
        addr: "127.0.0.1:0".into(),
        workers: 2,
        client_timeout: Duration::from_secs(10),
        metrics_addr: None,
        limits: ConnLimits {
            per_address,
            max_connections,
            count_loopback: true,
            ..Default::default()
        },
        exports_per_key: area_scoring::app::exports::DEFAULT_MAX_EXPORTS_PER_KEY,
    })
    .expect("the server starts")
}

/// A connection to `addr` from the loopback address 127.0.0.`host`.
fn connect_from(host: u8, addr: SocketAddr) -> TcpStream {
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    let source: SocketAddr = format!("127.0.0.{host}:0").parse().unwrap();
    socket.bind(&source.into()).unwrap();
    socket.connect(&addr.into()).unwrap();
    let stream: TcpStream = socket.into();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream
}

const HEALTHZ: &[u8] = b"GET /healthz HTTP/1.1\r\n\r\n";

/// Asks for /healthz on a kept-alive connection and reads one answer.
fn healthz_on(stream: &mut TcpStream) -> u16 {
    stream.write_all(HEALTHZ).unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if let Ok(reply) = parse(&seen, false) {
            return reply.status;
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return 0,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
}

/// Reads to the close, which must be an orderly one (no reset), and checks
/// that what came is the whole 503 of a cap.
fn assert_whole_503(mut stream: TcpStream, what: &str) {
    let mut out = Vec::new();
    let read = stream.read_to_end(&mut out);
    assert!(
        read.is_ok(),
        "{what}: {read:?} after {:?}",
        String::from_utf8_lossy(&out)
    );
    let reply = parse(&out, false).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_error_shape(&reply, 503, "service_unavailable");
    assert_eq!(reply.header("Retry-After"), Some("1"), "{what}");
    assert_eq!(reply.header("Connection"), Some("close"), "{what}");
}

/// GET /metrics from 127.0.0.`host`.
fn metrics_from(host: u8, addr: SocketAddr) -> String {
    let mut stream = connect_from(host, addr);
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut out = Vec::new();
    stream.read_to_end(&mut out).unwrap();
    parse(&out, false).unwrap().text()
}

/// The value of one sample of a /metrics text.
fn sample<'a>(text: &'a str, name: &str) -> &'a str {
    let prefix = format!("{name} ");
    let line = text.lines().find(|l| l.starts_with(&prefix));
    &line.unwrap_or_else(|| panic!("{name} in {text}"))[prefix.len()..]
}

#[test]
fn refusals_at_the_per_address_cap_take_no_place_from_other_clients() {
    let _serial = serial();
    // Room for ten: three of 127.0.0.1 (its cap), six others, /metrics.
    let running = capped("refusals-no-place", 3, 10);
    let addr = running.addr();
    let mut admitted: Vec<TcpStream> = (0..3).map(|_| connect_from(1, addr)).collect();
    let mut refused = Vec::new();
    for other in 0..6u8 {
        // Three more from the capped address, which send their request and
        // never read: each waits in its lingering close for its 503 to be read.
        for _ in 0..3 {
            let mut s = connect_from(1, addr);
            s.write_all(HEALTHZ).unwrap();
            refused.push(s);
        }
        admitted.push(connect_from(10 + other, addr));
    }
    for (i, s) in admitted.iter_mut().enumerate() {
        assert_eq!(healthz_on(s), 200, "admitted client {i}");
    }
    // Only the admitted are in the table (and this one), and none was
    // closed to make room.
    let metrics = metrics_from(20, addr);
    let refusals = [
        ("area_connections_open", "10"),
        ("area_connections_refused_total{cap=\"evicted_idle\"}", "0"),
        ("area_connections_refused_total{cap=\"per_address\"}", "18"),
    ];
    for (name, value) in refusals {
        assert_eq!(sample(&metrics, name), value, "{name}");
    }
    for (i, s) in admitted.iter_mut().enumerate() {
        assert_eq!(healthz_on(s), 200, "admitted client {i}, again");
    }
    for (i, s) in refused.into_iter().enumerate() {
        assert_whole_503(s, &format!("refused client {i}"));
    }
    running.shutdown();
}

/// Sends a head announcing a 40,000-byte body, then the body in pieces over
/// 300 ms, as a client uploading does: the server has answered and shut
/// its side by then, and still reads, so every write succeeds.
fn send_with_a_body(stream: &mut TcpStream, what: &str) {
    let head = b"GET /healthz HTTP/1.1\r\nContent-Length: 40000\r\n\r\n";
    stream.write_all(head).unwrap();
    for piece in 0..10 {
        std::thread::sleep(Duration::from_millis(30));
        let sent = stream.write_all(&[b'x'; 4000]);
        assert!(sent.is_ok(), "{what}: piece {piece} of the body: {sent:?}");
    }
}

#[test]
fn a_refused_client_reads_its_whole_503_while_it_sends_a_body() {
    let _serial = serial();
    let running = capped("refusals-body", 2, 4);
    let addr = running.addr();
    // A head begun: not idle, so never closed to make room.
    let begun = |host| {
        let mut s = connect_from(host, addr);
        s.write_all(b"GET /healthz HTTP/1.1\r\nX-Slow: ").unwrap();
        s
    };
    let mut held = vec![begun(1), begun(1)];
    let mut past_address_cap = connect_from(1, addr);
    send_with_a_body(&mut past_address_cap, "past the per-address cap");
    assert_whole_503(past_address_cap, "past the per-address cap");
    held.extend([begun(2), begun(2)]);
    // Time for the server to read those heads' beginnings: until then a
    // connection counts as idle, and would be closed to make room.
    std::thread::sleep(Duration::from_millis(300));
    let mut past_total_cap = connect_from(3, addr);
    send_with_a_body(&mut past_total_cap, "past --max-connections");
    assert_whole_503(past_total_cap, "past --max-connections");
    drop(held);
    running.shutdown();
}
