//! Clients that pipeline and never read (docs/http-layer.md, "Pipelining"):
//! they hold no worker, and a client that only pauses still gets every
//! answer, whole and in order.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::common::client::*;
use crate::common::server::*;
use crate::common::*;

const ONE: &[u8] = b"GET /v1/openapi.json HTTP/1.1\r\nHost: t\r\n\r\n";
const PIPELINED: usize = 20;

/// A small receive buffer, so that a few answers fill the connection as
/// they would over a real network (loopback buffers take megabytes).
const RECEIVE_BUFFER: usize = 4096;

fn pipelining_client(addr: std::net::SocketAddr, receive_buffer: Option<usize>) -> TcpStream {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    if let Some(size) = receive_buffer {
        socket.set_recv_buffer_size(size).unwrap();
    }
    socket.connect(&addr.into()).unwrap();
    let mut stream: TcpStream = socket.into();
    stream.write_all(&ONE.repeat(PIPELINED)).unwrap();
    stream
}

/// Four clients (as many as workers) pipeline 20 requests for the largest
/// answer and never read: a normal client is still answered at once.
#[test]
fn clients_that_pipeline_and_never_read_leave_the_server_responsive() {
    let _serial = crate::serial();
    let db = fresh_db("pipeline-noread");
    let server = start(&db, 4, Duration::from_secs(10));
    let hostile: Vec<TcpStream> = (0..4)
        .map(|_| pipelining_client(server.addr(), Some(RECEIVE_BUFFER)))
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let mut slowest = Duration::ZERO;
    for _ in 0..5 {
        let started = Instant::now();
        assert_eq!(get(server.addr(), "/healthz", None).status, 200);
        slowest = slowest.max(started.elapsed());
    }
    drop(hostile);
    // Each worker waits one write slice (200 ms) per hostile connection at
    // most; a loaded 2-core machine adds scheduling delay.
    assert!(
        slowest < Duration::from_secs(2),
        "a normal client waited {slowest:?}"
    );
}

/// A client that stops reading for longer than a write slice, then reads,
/// gets all its answers, whole and in order.
#[test]
fn a_client_that_pauses_reading_gets_every_answer() {
    let _serial = crate::serial();
    let db = fresh_db("pipeline-pause");
    let server = start(&db, 2, Duration::from_secs(10));
    // The kernel's own buffers, which hold far less than the 3 MB of answers.
    let mut stream = pipelining_client(server.addr(), None);
    std::thread::sleep(Duration::from_millis(1500));
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let expected = get(server.addr(), "/v1/openapi.json", None).body;
    let mut raw = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let count = |raw: &[u8]| {
        let mut rest = raw;
        let mut n = 0;
        while let Some(len) = super::drain::first_answer_len(rest) {
            (n, rest) = (n + 1, &rest[len..]);
        }
        n
    };
    while count(&raw) < PIPELINED {
        let n = stream.read(&mut buf).expect("every answer arrives");
        assert!(n > 0, "closed after {} answers", count(&raw));
        raw.extend_from_slice(&buf[..n]);
    }
    let replies = super::drain::answers(&raw);
    assert_eq!(replies.len(), PIPELINED, "no bytes after the last answer");
    for (n, reply) in replies.iter().enumerate() {
        assert_eq!((reply.status, &reply.body), (200, &expected), "answer {n}");
    }
}
