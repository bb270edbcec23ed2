//! A burst of new connections is answered at once. tiny_http 0.12 hands each
//! connection to a thread pool that counts its idle threads before they wake,
//! so most connections of a burst wait in its queue with no thread; the server
//! frees them (src/listener.rs, `keep_accepting`). Seen first as one answer of
//! about 5 s at the start of every soak run (bench/RESULTS-hardening.md).

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::fresh_db;
use common::server::start;

/// Connections opened together, as wrk or a front's upstream pool does.
const BURST: usize = 64;

/// Opens `BURST` connections on a new server, sends a request on each and
/// returns how long the last answer took.
fn slowest_answer_of_a_burst() -> Duration {
    let db = fresh_db("burst");
    let running = start(&db, 4, Duration::from_secs(10));
    let addr = running.addr();
    let started = Instant::now();
    let mut clients: Vec<TcpStream> = (0..BURST)
        .map(|_| TcpStream::connect(addr).expect("connect"))
        .collect();
    for c in &mut clients {
        c.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    }
    let mut slowest = Duration::ZERO;
    for (n, c) in clients.iter_mut().enumerate() {
        let mut head = [0u8; 12];
        c.read_exact(&mut head)
            .unwrap_or_else(|e| panic!("connection {n} got no answer: {e}"));
        assert_eq!(&head, b"HTTP/1.1 200", "connection {n}");
        slowest = slowest.max(started.elapsed());
    }
    running.shutdown();
    slowest
}

#[test]
fn every_connection_of_a_burst_on_a_new_server_is_answered_within_a_second() {
    // How many connections tiny_http leaves waiting varies with timing (none
    // in about one new server in three before the fix), so three servers.
    for round in 1..=3 {
        let slowest = slowest_answer_of_a_burst();
        assert!(
            slowest < Duration::from_secs(1),
            "round {round}: the last of {BURST} connections was answered after {slowest:?}"
        );
    }
}
