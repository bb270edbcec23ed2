//! The phase a connection is in, each with the time it is counted from, as
//! Go's `ConnState` keeps one with its timestamp: idle since its last
//! answer, reading a head since its first byte, writing an answer since the
//! client last took a byte, lingering until its close, or closed. The
//! timeouts are one match on it (`expired`), and so are the stop's rules
//! (`closes_at_stop`, beside `last_before_stop`).

use std::time::{Duration, Instant};

use super::conn::{self, Conn, Flow};
use super::head::{self, Parsed};
use super::layer::{QUIET, Shared};
use super::limits::{HEAD_TIMEOUT, LINGER_FOR};

pub enum Phase {
    /// Nothing received and nothing to write, since then: the kind that
    /// closes first when the server needs room.
    Idle { since: Instant },
    /// Part of a head received, since then (its first byte, or the end of
    /// the answer before it when it came pipelined).
    Reading { since: Instant },
    /// Answered its share in a row, since then; its next turn comes at once
    /// (see `Next::Yield`), with what it has received.
    Yielded { since: Instant },
    /// An answer going out: `sent` of `out`'s bytes, the last progress
    /// `since`, and whether the connection closes after it.
    Writing {
        out: Vec<u8>,
        sent: usize,
        since: Instant,
        then: Then,
    },
    /// The sending side shut after the last answer; what the client sends is
    /// read and dropped (`read` bytes so far) until then (linger.rs).
    Lingering { until: Instant, read: usize },
    /// Out of the set; a worker that finds it so does nothing.
    Closed,
}

/// What follows an answer written whole.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Then {
    KeepOpen,
    Close,
}

impl Conn {
    /// Queues an answer, and says whether the connection closes after it.
    /// Every answer goes out through here: the app's, a refused head's, a
    /// cap's 503, and a stream that found no thread.
    pub fn queue(&mut self, out: Vec<u8>, then: Then) {
        self.phase = Phase::Writing {
            out,
            sent: 0,
            since: Instant::now(),
            then,
        };
    }

    /// Free to read again since `now`: idle, or reading a head already begun.
    pub(super) fn free(&mut self, now: Instant) {
        self.phase = if self.buf.is_empty() {
            Phase::Idle { since: now }
        } else {
            Phase::Reading { since: now }
        };
    }

    /// The sending side shut: what comes is dropped until `LINGER_FOR` on.
    pub(super) fn start_lingering(&mut self) {
        let until = Instant::now() + LINGER_FOR;
        self.phase = Phase::Lingering { until, read: 0 };
        self.buf = Vec::new();
    }

    pub fn is_closed(&self) -> bool {
        matches!(self.phase, Phase::Closed)
    }

    /// Since when the connection has been idle, if it is.
    pub fn idle_since(&self) -> Option<Instant> {
        match self.phase {
            Phase::Idle { since } => Some(since),
            _ => None,
        }
    }

    /// Whether the connection's time is up: a linger's end; a write
    /// without progress or an idle time of `--client-timeout`; a head not
    /// complete in `HEAD_TIMEOUT` (or a shorter client timeout); and while
    /// stopping, the stop's rules.
    pub fn expired(&self, shared: &Shared, now: Instant) -> bool {
        let timeout = shared.bounds.client_timeout;
        let (since, limit): (Instant, Duration) = match (&self.phase, shared.stopped_at()) {
            (Phase::Closed | Phase::Yielded { .. }, _) => return false,
            (Phase::Lingering { until, .. }, _) => return now >= *until,
            (Phase::Writing { since, .. }, _) => (*since, timeout),
            (_, Some(stopped_at)) => return self.closes_at_stop(stopped_at, now),
            (Phase::Reading { since }, None) => (*since, HEAD_TIMEOUT.min(timeout)),
            (Phase::Idle { since }, None) => (*since, timeout),
        };
        now.duration_since(since) >= limit
    }

    /// The stop's rules for a connection with nothing whole to answer: once
    /// nothing has come for `QUIET` (counted from the stop at the earliest),
    /// an idle one, or one whose head has not come whole, closes; one with
    /// bytes not yet read, or a turn to come, is left to the workers, which
    /// answer what has come whole (the last answer saying close:
    /// `last_before_stop`). One writing or lingering keeps its own bounds.
    pub(super) fn closes_at_stop(&self, stopped_at: Instant, now: Instant) -> bool {
        match self.phase {
            Phase::Idle { since } | Phase::Reading { since } => {
                now.duration_since(stopped_at.max(since)) >= QUIET && !self.unread()
            }
            _ => false,
        }
    }

    /// While stopping, whether the request just received whole is the
    /// last: none follows whole in what has come, reading what the kernel
    /// holds for the connection if need be.
    pub(super) fn last_before_stop(&mut self) -> bool {
        loop {
            match head::parse(&self.buf) {
                Parsed::Complete(..) => return false,
                Parsed::Refused(_) => return true,
                Parsed::Partial => {
                    if !matches!(conn::fill(self), Flow::Done) {
                        return true;
                    }
                }
            }
        }
    }

    /// Whether the client has sent bytes not yet read.
    fn unread(&self) -> bool {
        matches!(self.stream.peek(&mut [0u8; 1]), Ok(n) if n > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};

    /// A connection as the layer holds it, and its client's end.
    fn pair() -> (Conn, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (stream, peer) = listener.accept().unwrap();
        stream.set_nonblocking(true).unwrap();
        (Conn::new(stream, peer, false, None), client)
    }

    #[test]
    fn an_answer_written_whole_frees_the_connection_and_a_last_one_ends_it() {
        let (mut c, mut client) = pair();
        assert!(c.idle_since().is_some(), "a new connection is idle");
        c.queue(b"one".to_vec(), Then::KeepOpen);
        assert!(c.idle_since().is_none(), "writing is not idle");
        assert!(matches!(conn::flush(&mut c), Flow::Done));
        assert!(c.idle_since().is_some(), "idle once its answer is out");
        c.buf.extend_from_slice(b"GET / HT");
        c.queue(b"two".to_vec(), Then::KeepOpen);
        assert!(matches!(conn::flush(&mut c), Flow::Done));
        assert!(matches!(c.phase, Phase::Reading { .. }), "a head begun");
        c.queue(b"three".to_vec(), Then::Close);
        assert!(matches!(conn::flush(&mut c), Flow::Last));
        let mut got = [0u8; 11];
        client.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"onetwothree");
    }

    #[test]
    fn at_a_stop_a_quiet_idle_connection_closes_and_one_with_bytes_unread_does_not() {
        let (c, mut client) = pair();
        let now = Instant::now() + QUIET;
        let Phase::Idle { since } = c.phase else {
            panic!("a new connection is idle")
        };
        assert!(c.closes_at_stop(since, now), "quiet since the stop");
        assert!(!c.closes_at_stop(now, now), "the stop has only begun");
        client.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
        while !c.unread() {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(!c.closes_at_stop(since, now), "a request waits to be read");
        let (mut writing, _client) = pair();
        writing.queue(b"answer".to_vec(), Then::KeepOpen);
        assert!(
            !writing.closes_at_stop(since, now + QUIET),
            "writing keeps its bounds"
        );
    }
}
