//! Draining after SIGTERM, against the real binary: one connection has
//! pipelined megabytes of answers before the signal. A new connection is
//! refused within 200 ms while that one is still being answered, the server
//! exits 0 within 5 s even when its client never reads, and answers written
//! during the drain say `Connection: close` (docs/operations.md "Data: init, import,
//! reload").

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use socket2::{Domain, Socket, Type};

use crate::common::bin::*;
use crate::common::client::*;
use crate::common::*;
use crate::serial;

/// The length of the first answer in `raw` (head and body, by its
/// Content-Length), once all of it has arrived.
pub(crate) fn first_answer_len(raw: &[u8]) -> Option<usize> {
    let head_end = raw.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&raw[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .split("\r\n")
        .find_map(|l| l.strip_prefix("content-length:"))
        .expect("answers with Content-Length")
        .trim()
        .parse()
        .expect("a length");
    (raw.len() >= head_end + length).then_some(head_end + length)
}

/// Splits answers read back to back from one connection, each with a
/// Content-Length, and parses each with the common client's parser.
pub(crate) fn answers(mut raw: &[u8]) -> Vec<Reply> {
    let mut out = Vec::new();
    while !raw.is_empty() {
        let end = first_answer_len(raw).unwrap_or(raw.len());
        out.push(parse(&raw[..end], false).unwrap_or_else(|e| panic!("answer {}: {e}", out.len())));
        raw = &raw[end..];
    }
    out
}

/// What a new connection to a stopping server met: None if it was refused or
/// closed without an answer within 200 ms, else what happened.
fn new_connection_served(addr: SocketAddr) -> Option<String> {
    let mut probe = match TcpStream::connect_timeout(&addr, Duration::from_millis(200)) {
        Ok(stream) => stream,
        Err(e) if e.kind() == ErrorKind::ConnectionRefused => return None,
        Err(e) => return Some(format!("connect failed oddly: {e}")),
    };
    probe
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    if probe.write_all(&get_request("/healthz", &[])).is_err() {
        return None; // reset: closed without being served
    }
    let mut buf = [0u8; 64];
    match probe.read(&mut buf) {
        Ok(0) => None,
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
            Some("accepted and left waiting for 200 ms".into())
        }
        Err(_) => None, // reset: closed without being served
        Ok(n) => Some(format!(
            "accepted and answered {:?}",
            String::from_utf8_lossy(&buf[..n])
        )),
    }
}

/// List pages of 100 areas, about 17 KB each, each rendered when asked.
const LIST_PAGE: &str = "/v1/areas?limit=100";

/// The OpenAPI document, about 230 KB, kept ready: answering it costs the
/// server the writing alone.
const OPENAPI: &str = "/v1/openapi.json";

/// A connection with a small receive buffer that has pipelined `n` requests
/// for `target` (megabytes of answers in all, more than the socket buffers
/// hold) and read none of the answers yet. The others keep the connection
/// alive; the last says `Connection: close` when `last_closes`.
fn pipelined_unread(
    addr: SocketAddr,
    key: &str,
    target: &str,
    n: usize,
    last_closes: bool,
) -> TcpStream {
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    socket.set_recv_buffer_size(16 * 1024).unwrap();
    socket.connect(&addr.into()).unwrap();
    let mut stream: TcpStream = socket.into();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let kept = format!("GET {target} HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {key}\r\n\r\n");
    let mut pipelined = kept.repeat(n - 1).into_bytes();
    if last_closes {
        pipelined.extend(get_request(
            target,
            &[format!("Authorization: Bearer {key}")],
        ));
    } else {
        pipelined.extend(kept.as_bytes());
    }
    stream.write_all(&pipelined).unwrap();
    stream
}

/// A new connection is refused soon after SIGTERM while the server is still
/// finishing what it had: one connection pipelined many requests before the
/// signal and reads none of the answers until after the new connection was
/// tried. Its answers (megabytes, more than the socket buffers hold, with the
/// client's receive buffer kept small) cannot all have been written by then,
/// so the server is provably still running and draining when it refuses.
#[test]
fn after_sigterm_new_connections_are_refused_while_requests_in_flight_finish() {
    let _serial = serial();
    const PIPELINED: usize = 320; // about 17 KB of answer each: 5.5 MB
    let (_, key, mut server) = Served::spawn_keyed("refuse", Plan::Enterprise, &["--workers", "2"]);
    let addr = server.addr;
    let mut existing = pipelined_unread(addr, &key, LIST_PAGE, PIPELINED, true);
    // The first bytes of the first answer: the connection has been accepted
    // and is being served before the signal.
    let mut raw = vec![0u8; 1024];
    let n = existing.read(&mut raw).unwrap();
    raw.truncate(n);
    assert!(raw.starts_with(b"HTTP/1.1 200"), "first answer began");
    std::thread::sleep(Duration::from_millis(200));

    server.signal("TERM");
    let signalled = Instant::now();
    std::thread::sleep(Duration::from_millis(200));
    let probed_at = signalled.elapsed();
    let probed = new_connection_served(addr);
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "the server had already exited when the new connection was tried, \
         so the probe proves nothing (larger socket buffers here?)"
    );
    assert_eq!(
        probed, None,
        "a new connection tried {probed_at:?} after SIGTERM"
    );

    existing.read_to_end(&mut raw).unwrap();
    let replies = answers(&raw);
    let ok = replies.iter().filter(|r| r.status == 200).count();
    assert_eq!(
        (replies.len(), ok),
        (PIPELINED, PIPELINED),
        "answers (all, 200) to the requests pipelined before SIGTERM"
    );
    let answered_at = signalled.elapsed();
    let status = server
        .wait_exit(Duration::from_secs(5).saturating_sub(signalled.elapsed()))
        .expect("still running 5 s after SIGTERM");
    eprintln!(
        "after SIGTERM: new connection refused at {probed_at:?}, last of {PIPELINED} \
         answers read at {answered_at:?}, exited at {:?}",
        signalled.elapsed()
    );
    assert_eq!(status.code(), Some(0), "exit status after SIGTERM");
    assert!(server.logged("stopped accepting new connections"));
}

/// A client that stops reading its answers does not hold the server past the
/// 5 s of SIGTERM: the worker writing to it would wait out the write timeout
/// (10 s by default), so shutdown stops waiting for it and exits 0 in time.
#[test]
fn sigterm_exits_0_within_5_s_while_a_client_never_reads_its_answers() {
    let _serial = serial();
    let (_, key, mut server) = Served::spawn_keyed("unread", Plan::Enterprise, &["--workers", "2"]);
    let _never_read = pipelined_unread(server.addr, &key, LIST_PAGE, 320, true);
    // Long enough for the answers to fill the socket buffers and the
    // workers to block writing them.
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "the server is running before the signal"
    );
    server.signal("TERM");
    let signalled = Instant::now();
    let status = server
        .wait_exit(Duration::from_secs(5))
        .expect("still running 5 s after SIGTERM with a client that never reads");
    eprintln!("exited {:?} after SIGTERM", signalled.elapsed());
    assert_eq!(status.code(), Some(0), "exit status after SIGTERM");
    assert!(
        server.logged("abandon"),
        "the log says requests were abandoned"
    );
}

/// While the server drains, every complete request already received is
/// answered, and the last answer on the connection says `Connection: close`,
/// so a keep-alive client (or an nginx upstream) learns the connection ends
/// instead of finding it reset. Answers before it keep the connection open:
/// after `Connection: close` a client expects nothing more on it. Every
/// request asks to keep the connection, so the close is the drain's alone.
///
/// The answers are kept ones, so that the drain takes the time of the
/// transfer alone, far within the shutdown deadline even in a debug build
/// on a loaded machine; rendered pages would take most of a second.
#[test]
fn answers_written_during_the_drain_say_connection_close() {
    let _serial = serial();
    const PIPELINED: usize = 32; // about 230 KB each: 7.3 MB, past tcp_wmem's usual 4 MB
    let (_, key, mut server) = Served::spawn_keyed("close", Plan::Enterprise, &["--workers", "2"]);
    let mut stream = pipelined_unread(server.addr, &key, OPENAPI, PIPELINED, false);
    // The first answer, whole, before the signal.
    let mut raw = Vec::new();
    let mut buf = [0u8; 1024];
    while first_answer_len(&raw).is_none() {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "the connection closed before the first answer");
        raw.extend_from_slice(&buf[..n]);
    }
    server.signal("TERM");
    let signalled = Instant::now();
    // A reset here is the drain's deadline passing with requests unread
    // (the layer then abandons the connection): the log says which.
    stream.read_to_end(&mut raw).unwrap_or_else(|e| {
        let abandoned = server.logged("abandoned");
        panic!(
            "{e} after {} bytes; the log says abandoned: {abandoned}",
            raw.len()
        )
    });
    eprintln!(
        "{} bytes read in {:?} after SIGTERM",
        raw.len(),
        signalled.elapsed()
    );
    let replies = answers(&raw);
    assert_eq!(replies.len(), PIPELINED, "every pipelined request answered");
    assert!(replies.iter().all(|r| r.status == 200), "all answered 200");
    let closing: Vec<usize> = (0..PIPELINED)
        .filter(|&i| replies[i].header("Connection").is_some())
        .collect();
    // The last answer was written during the drain (megabytes cannot have
    // left before the signal), and it alone says close.
    assert_eq!(closing, [PIPELINED - 1], "answers that say Connection");
    assert_eq!(
        replies[PIPELINED - 1]
            .header("Connection")
            .map(str::to_ascii_lowercase),
        Some("close".into())
    );
    let status = server.wait_exit(Duration::from_secs(5)).expect("exits");
    assert_eq!(status.code(), Some(0));
}
