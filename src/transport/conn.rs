//! One connection's state, and one turn of a worker on it: write what is
//! pending, read, parse, answer, and say what readiness to wait for next.
//! A worker has a connection to itself for the turn (one-shot interest),
//! so a pipelined request is parsed only once the answer before it is out,
//! and answers leave in order (docs/http-layer.md, "Connections").

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Instant;

use super::head::{self, Parsed};
use super::layer::{QUIET, Shared};
use super::limits::{AddrKey, MAX_HEAD_BYTES, REQUESTS_PER_TURN};
use super::linger;
use super::service::{self, Reply};

pub struct Conn {
    pub stream: TcpStream,
    pub peer: SocketAddr,
    /// Accepted on the metrics listener: only GET /metrics is answered.
    pub metrics_only: bool,
    /// Counted under this address for `--max-connections-per-address`.
    pub addr: Option<AddrKey>,
    /// Received and not yet answered.
    pub(super) buf: Vec<u8>,
    out: Vec<u8>,
    sent: usize,
    /// The answer being written is the connection's last.
    close_after: bool,
    /// Sending side shut after the last answer; reading what comes to drop
    /// it: since when, and how many bytes so far (linger.rs).
    pub(super) lingering: Option<(Instant, usize)>,
    /// Since when the connection has been idle: its last answer written
    /// whole (or its last head received, or its accept).
    idle_at: Instant,
    /// When the first byte of the head not yet complete came.
    head_at: Instant,
    /// When the client last took a byte of `out`.
    progress_at: Instant,
    /// Removed from the set; a worker that finds it so does nothing.
    pub closed: bool,
    /// Refused at a cap: only its 503 and lingering close, outside the table.
    pub refused: bool,
    /// Waiting for the turn it yielded (see `Next::Yield`).
    yielded: bool,
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
        let now = Instant::now();
        Conn {
            stream,
            peer,
            metrics_only,
            addr,
            buf: Vec::new(),
            out: Vec::new(),
            sent: 0,
            close_after: false,
            lingering: None,
            idle_at: now,
            head_at: now,
            progress_at: now,
            closed: false,
            refused: false,
            yielded: false,
        }
    }

    /// Nothing received and nothing to write: the kind that closes first
    /// when the server needs room.
    pub fn is_idle(&self) -> bool {
        self.buf.is_empty() && self.sent >= self.out.len() && self.lingering.is_none()
    }

    pub fn idle_at(&self) -> Instant {
        self.idle_at
    }

    /// Whether a timeout has passed: a head not complete in `HEAD_TIMEOUT`,
    /// a write without progress or an idle time of `--client-timeout`, a
    /// linger, or (while stopping) a quiet spell.
    pub fn expired(&self, shared: &Shared, now: Instant) -> bool {
        let (from, limit) = if let Some((at, _)) = self.lingering {
            (at, super::limits::LINGER_FOR)
        } else if self.sent < self.out.len() {
            (self.progress_at, shared.bounds.client_timeout)
        } else if let Some(stop_at) = shared.stopped_at() {
            // Stopping: a connection with requests to answer (a turn to come,
            // or bytes not yet read) is left to the workers; what has not
            // come whole is not waited for long.
            if self.yielded || self.unread() {
                return false;
            }
            (stop_at.max(self.idle_at).max(self.head_at), QUIET)
        } else if !self.buf.is_empty() {
            // A client timeout shorter than the head's bounds that too.
            (
                self.head_at,
                super::limits::HEAD_TIMEOUT.min(shared.bounds.client_timeout),
            )
        } else {
            (self.idle_at, shared.bounds.client_timeout)
        };
        now.duration_since(from) >= limit
    }

    /// Whether the client has sent bytes not yet read.
    fn unread(&self) -> bool {
        matches!(self.stream.peek(&mut [0u8; 1]), Ok(n) if n > 0)
    }

    /// Queues an answer written by the layer itself, then the lingering
    /// close: a refusal at accept, or a streamed answer that found no thread.
    pub fn refuse_with(&mut self, bytes: Vec<u8>) {
        self.out = bytes;
        self.sent = 0;
        self.close_after = true;
    }
}

pub(super) enum Flow {
    Done,
    Blocked,
    Gone,
}

/// One turn on `c`.
pub fn turn(c: &mut Conn, shared: &Shared) -> Next {
    c.yielded = false;
    if c.lingering.is_some() {
        return linger::read_and_drop(c);
    }
    match flush(c) {
        Flow::Done => {}
        Flow::Blocked => return Next::Writable,
        Flow::Gone => return Next::Close,
    }
    if c.close_after {
        return linger::begin(c);
    }
    let mut answered = 0;
    loop {
        match head::parse(&c.buf) {
            Parsed::Partial => match fill(c) {
                Flow::Done => continue,
                Flow::Gone => return Next::Close,
                Flow::Blocked if c.buf.is_empty() && quiet_stop(shared, c) => return Next::Close,
                Flow::Blocked => return Next::Readable,
            },
            Parsed::Refused(err) => {
                c.buf.clear();
                c.out = service::refusal(shared, &err);
                c.sent = 0;
                c.close_after = true;
            }
            Parsed::Complete(head, len) => {
                c.buf.drain(..len);
                let now = Instant::now();
                (c.idle_at, c.head_at) = (now, now);
                // While stopping, the last complete request received says close.
                let last = shared.is_stopping() && !another_waits(c);
                match service::answer(shared, c, &head, last) {
                    Reply::Bytes { bytes, close } => {
                        c.out = bytes;
                        c.sent = 0;
                        c.close_after = close;
                    }
                    Reply::Stream(s) => return Next::Stream(s),
                }
            }
        }
        c.progress_at = Instant::now();
        match flush(c) {
            Flow::Done if c.close_after => return linger::begin(c),
            Flow::Done => {}
            Flow::Blocked => return Next::Writable,
            Flow::Gone => return Next::Close,
        }
        answered += 1;
        if answered >= REQUESTS_PER_TURN {
            c.yielded = true;
            return Next::Yield;
        }
    }
}

/// Whether a complete request follows in what has been received, reading
/// what the kernel holds for the connection if need be.
fn another_waits(c: &mut Conn) -> bool {
    loop {
        match head::parse(&c.buf) {
            Parsed::Complete(..) => return true,
            Parsed::Refused(_) => return false,
            Parsed::Partial => {
                if !matches!(fill(c), Flow::Done) {
                    return false;
                }
            }
        }
    }
}

/// While stopping, an idle connection closes once nothing has come for `QUIET`.
fn quiet_stop(shared: &Shared, c: &Conn) -> bool {
    shared
        .stopped_at()
        .is_some_and(|at| at.max(c.idle_at).elapsed() >= QUIET)
}

/// Writes what is pending until done or the socket is full.
pub(super) fn flush(c: &mut Conn) -> Flow {
    while c.sent < c.out.len() {
        match c.stream.write(&c.out[c.sent..]) {
            Ok(0) => return Flow::Gone,
            Ok(n) => {
                c.sent += n;
                c.progress_at = Instant::now();
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Flow::Blocked,
            Err(_) => return Flow::Gone,
        }
    }
    if !c.out.is_empty() {
        c.idle_at = c.progress_at;
    }
    c.out = Vec::new();
    c.sent = 0;
    Flow::Done
}

/// Reads what has arrived, up to the head limit: Done if bytes came.
fn fill(c: &mut Conn) -> Flow {
    let mut chunk = [0u8; 8192];
    let room = (MAX_HEAD_BYTES - c.buf.len().min(MAX_HEAD_BYTES)).clamp(1, chunk.len());
    loop {
        match c.stream.read(&mut chunk[..room]) {
            Ok(0) => return Flow::Gone,
            Ok(n) => {
                if c.buf.is_empty() {
                    c.head_at = Instant::now();
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
