//! One connection, and one turn of a worker on it: write what is pending,
//! read, parse, answer, and say what readiness to wait for next. What phase
//! it is in, and the timeouts of each, is phase.rs's. A worker has a
//! connection to itself for the turn (one-shot interest), so a pipelined
//! request is parsed only once the answer before it is out, and answers
//! leave in order (docs/http-layer.md, "Connections").

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Instant;

use super::head::{self, Parsed};
use super::layer::Shared;
use super::limits::{AddrKey, MAX_HEAD_BYTES, REQUESTS_PER_TURN};
use super::linger;
use super::phase::{Phase, Then};
use super::service::{self, Reply};

pub struct Conn {
    pub stream: TcpStream,
    pub peer: SocketAddr,
    /// Accepted on the metrics listener: only GET /metrics is answered.
    pub metrics_only: bool,
    /// Counted under this address for `--max-connections-per-address`.
    pub addr: Option<AddrKey>,
    /// Refused at a cap: only its 503 and lingering close, outside the table.
    pub refused: bool,
    /// Received and not yet answered.
    pub(super) buf: Vec<u8>,
    pub(super) phase: Phase,
}

/// What the connection waits for after a turn.
pub enum Next {
    Readable,
    Writable,
    /// Another turn at once, after other connections' (both interests: the
    /// socket is writable, so the event comes back straight away).
    Yield,
    Close,
    /// A streamed answer: the connection leaves the set for a thread.
    Stream(service::Streamed),
}

impl Conn {
    pub fn new(
        stream: TcpStream,
        peer: SocketAddr,
        metrics_only: bool,
        addr: Option<AddrKey>,
    ) -> Conn {
        Conn {
            stream,
            peer,
            metrics_only,
            addr,
            refused: false,
            buf: Vec::new(),
            phase: Phase::Idle {
                since: Instant::now(),
            },
        }
    }
}

pub(super) enum Flow {
    /// Done, and the connection stays open.
    Done,
    /// The connection's last answer is out whole: its lingering close next.
    Last,
    Blocked,
    Gone,
}

/// One turn on `c`.
pub fn turn(c: &mut Conn, shared: &Shared) -> Next {
    match c.phase {
        Phase::Lingering { .. } => return linger::read_and_drop(c),
        Phase::Yielded { since } => c.free(since),
        _ => {}
    }
    match flush(c) {
        Flow::Done => {}
        Flow::Last => return linger::begin(c),
        Flow::Blocked => return Next::Writable,
        Flow::Gone => return Next::Close,
    }
    let mut answered = 0;
    loop {
        match head::parse(&c.buf) {
            Parsed::Partial => match fill(c) {
                Flow::Done | Flow::Last => continue,
                Flow::Gone => return Next::Close,
                Flow::Blocked if quiet_at_stop(shared, c) => return Next::Close,
                Flow::Blocked => return Next::Readable,
            },
            Parsed::Refused(err) => {
                c.buf.clear();
                c.queue(service::refusal(shared, &err), Then::Close);
            }
            Parsed::Complete(head, len) => {
                c.buf.drain(..len);
                c.free(Instant::now());
                let last = shared.is_stopping() && c.last_before_stop();
                match service::answer(shared, c, &head, last) {
                    Reply::Bytes { bytes, close } => {
                        let then = if close { Then::Close } else { Then::KeepOpen };
                        c.queue(bytes, then);
                    }
                    Reply::Stream(s) => return Next::Stream(s),
                }
            }
        }
        match flush(c) {
            Flow::Done => {}
            Flow::Last => return linger::begin(c),
            Flow::Blocked => return Next::Writable,
            Flow::Gone => return Next::Close,
        }
        answered += 1;
        if answered >= REQUESTS_PER_TURN {
            c.phase = Phase::Yielded {
                since: Instant::now(),
            };
            return Next::Yield;
        }
    }
}

/// Whether, stopping, the connection closes at the end of its turn.
fn quiet_at_stop(shared: &Shared, c: &Conn) -> bool {
    shared
        .stopped_at()
        .is_some_and(|at| c.closes_at_stop(at, Instant::now()))
}

/// Writes the answer pending, if any, until done or the socket is full;
/// done, the connection is free to read again, or its close comes (`Last`).
pub(super) fn flush(c: &mut Conn) -> Flow {
    let Phase::Writing {
        out,
        sent,
        since,
        then,
    } = &mut c.phase
    else {
        return Flow::Done;
    };
    while *sent < out.len() {
        match c.stream.write(&out[*sent..]) {
            Ok(0) => return Flow::Gone,
            Ok(n) => {
                *sent += n;
                *since = Instant::now();
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Flow::Blocked,
            Err(_) => return Flow::Gone,
        }
    }
    if *then == Then::Close {
        return Flow::Last;
    }
    let done = *since;
    c.free(done);
    Flow::Done
}

/// Reads what has arrived, up to the head limit: Done if bytes came.
pub(super) fn fill(c: &mut Conn) -> Flow {
    let mut chunk = [0u8; 8192];
    let room = (MAX_HEAD_BYTES - c.buf.len().min(MAX_HEAD_BYTES)).clamp(1, chunk.len());
    loop {
        match c.stream.read(&mut chunk[..room]) {
            Ok(0) => return Flow::Gone,
            Ok(n) => {
                if let Phase::Idle { .. } = c.phase {
                    c.phase = Phase::Reading {
                        since: Instant::now(),
                    };
                }
                c.buf.extend_from_slice(&chunk[..n]);
                return Flow::Done;
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Flow::Blocked,
            Err(_) => return Flow::Gone,
        }
    }
}
