//! What the workers know about each client connection, by peer address: who
//! is answering it now, its requests parked meanwhile, and whether its
//! remaining requests are refused (docs/http-layer.md, "Pipelining").
//!
//! tiny_http queues every request a client pipelines, and an answer written
//! for a later request waits, without a timeout, until the answer before it on
//! the same connection is written. So two workers on one connection means one
//! of them waits for the other, and one connection whose client does not read
//! could hold every worker. Here one thread at a time owns a connection: a
//! request arriving while another of its connection is being answered is
//! parked, and the owner answers it next. tiny_http parses a connection's next
//! request only once the one before has been taken up, so at most one is ever
//! parked per connection.
//!
//! A refused connection (its client stopped reading, or sent a request whose
//! end cannot be known) has its later requests dropped without a write.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tiny_http::Request;

/// How long a refused connection is remembered after its last request. The
/// key is the peer address, which a later connection may reuse; the client
/// of a refused connection was told to close it (or stopped reading), so its
/// requests stop soon after.
const REFUSED_FOR: Duration = Duration::from_secs(120);

#[derive(Default)]
struct Conn {
    owned: bool,
    parked: VecDeque<Request>,
    refused_at: Option<Instant>,
}

/// What to do with a request that has just been taken off tiny_http's queue.
pub enum Arrival {
    /// This thread now owns the connection: answer it, then `next`.
    Serve(Request),
    /// Another thread owns the connection and will answer it.
    Parked,
    /// Drop it unanswered (`wire::discard`).
    Refused(Request),
}

#[derive(Default)]
pub struct Connections(Mutex<HashMap<SocketAddr, Conn>>);

impl Connections {
    fn lock(&self) -> MutexGuard<'_, HashMap<SocketAddr, Conn>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn arrive(&self, peer: SocketAddr, request: Request) -> Arrival {
        let mut map = self.lock();
        let conn = map.entry(peer).or_default();
        match conn.refused_at {
            Some(at) if at.elapsed() < REFUSED_FOR => {
                conn.refused_at = Some(Instant::now());
                return Arrival::Refused(request);
            }
            Some(_) => conn.refused_at = None,
            None => {}
        }
        if conn.owned {
            conn.parked.push_back(request);
            Arrival::Parked
        } else {
            conn.owned = true;
            Arrival::Serve(request)
        }
    }

    /// The owner's next request on `peer`, or None, and then it owns it no more.
    pub fn next(&self, peer: SocketAddr) -> Option<Request> {
        let mut map = self.lock();
        let conn = map.get_mut(&peer)?;
        if let Some(request) = conn.parked.pop_front() {
            return Some(request);
        }
        conn.owned = false;
        if conn.refused_at.is_none() {
            map.remove(&peer);
        }
        None
    }

    /// Refuses the rest of `peer`'s requests; returns those parked, to be
    /// discarded outside the lock.
    pub fn refuse(&self, peer: SocketAddr) -> Vec<Request> {
        let mut map = self.lock();
        map.retain(|_, c| c.owned || c.refused_at.is_none_or(|at| at.elapsed() < REFUSED_FOR));
        let conn = map.entry(peer).or_default();
        conn.refused_at = Some(Instant::now());
        conn.parked.drain(..).collect()
    }
}
