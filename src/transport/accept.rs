//! Accepting connections: a turn on a ready listener takes what it can,
//! admits each connection under the caps (closing the oldest idle one to
//! make room, or refusing with the API's 503), and pauses the listener when
//! accept() fails for want of descriptors or memory, so that the server
//! never stops accepting while it lives (docs/http-layer.md, "Limits").

use std::io::ErrorKind;
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::conn::Conn;
use super::epoll::Interest;
use super::layer::{CAP_RETRY_AFTER_SECS, Shared};
use super::limits::addr_key;
use super::phase::Then;
use super::serialize::{self, Framing};
use super::table::{Cell, Entry, Idle, MAX_LINGERING};
use super::workers::{FIRST_CONNECTION, close, lock};
use super::{linger, service};
use crate::error::ApiError;

/// Connections accepted in one turn on a listener, before others get theirs.
const ACCEPTS_PER_TURN: usize = 64;
/// The pause after accept() fails for want of descriptors or memory.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

pub fn accept(shared: &Arc<Shared>, metrics_only: bool) {
    let index = usize::from(metrics_only);
    let Some(listener) = shared.listeners.get(index) else {
        return;
    };
    for _ in 0..ACCEPTS_PER_TURN {
        match listener.socket.accept() {
            Ok((socket, peer)) => {
                if shared.accept_failing.swap(false, Ordering::SeqCst) {
                    log::info!("accepting connections again");
                }
                admit(shared, socket, peer, metrics_only);
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => break,
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::Interrupted | ErrorKind::ConnectionAborted
                ) => {}
            Err(e) => {
                // EMFILE, ENFILE, ENOBUFS, ENOMEM: logged once per burst,
                // retried after a pause (the sweep re-arms the listener).
                shared
                    .answering
                    .counts
                    .accept_errors
                    .fetch_add(1, Ordering::Relaxed);
                if !shared.accept_failing.swap(true, Ordering::SeqCst) {
                    log::error!("cannot accept a connection ({e}); retrying");
                }
                *shared.listeners[index]
                    .paused_until
                    .lock()
                    .unwrap_or_else(|p| p.into_inner()) = Some(Instant::now() + ACCEPT_PAUSE);
                return;
            }
        }
    }
    rearm_listener(shared, index);
}

pub fn rearm_listener(shared: &Shared, index: usize) {
    if !shared.is_stopping() {
        let _ = shared
            .waits
            .set
            .rearm(&shared.listeners[index].socket, index, Interest::Read);
    }
}

/// Registers a new connection, making room under the caps first. One
/// refused at a cap goes to the lingering closes instead, outside the table
/// (table.rs), with its 503 to write.
fn admit(shared: &Shared, socket: TcpStream, peer: std::net::SocketAddr, metrics_only: bool) {
    let counts = &shared.answering.counts;
    if socket.set_nonblocking(true).is_err() {
        return;
    }
    let _ = socket.set_nodelay(true);
    // A named front speaks for many clients, as one on loopback does.
    let addr = addr_key(&peer, shared.bounds.limits.count_loopback)
        .filter(|_| !shared.bounds.limits.fronts.names(peer.ip()));
    // Read at each accept: an operator may lower the descriptor limit of a
    // running server (prlimit).
    let max = shared.bounds.limits.effective_max();
    let full = shared.table.len() >= max && !evict_oldest_idle(shared);
    let key = shared.table.next.fetch_add(1, Ordering::Relaxed) + FIRST_CONNECTION;
    let mut c = Conn::new(socket, peer, metrics_only, None);
    let refused = if full {
        counts.refused_total.fetch_add(1, Ordering::Relaxed);
        log::debug!("{peer} refused: {max} connections open");
        true
    } else {
        let mut inner = shared.table.lock();
        match addr {
            Some(a) if !inner.per_address.take(a, shared.bounds.limits.per_address) => {
                counts.refused_per_address.fetch_add(1, Ordering::Relaxed);
                true
            }
            a => {
                c.addr = a;
                false
            }
        }
    };
    if refused {
        c.queue(cap_refusal(shared), Then::Close);
        c.refused = true;
    }
    let cut = {
        let mut inner = shared.table.lock();
        let cell = Arc::new(Mutex::new(c));
        if refused {
            inner.lingering.insert(key, cell);
            counts.lingering.fetch_add(1, Ordering::Relaxed);
        } else {
            inner.open.insert(key, cell);
            counts.open.fetch_add(1, Ordering::Relaxed);
        }
        inner.past_bound(shared.bounds.limits.descriptor_room())
    };
    for Entry { key, cell } in cut {
        cut_short(shared, key, &cell);
    }
    let Some(cell) = shared.table.get(key) else {
        return;
    };
    let mut c = lock(&cell);
    // Already closed to make room for another: never added.
    if c.is_closed() {
        return;
    }
    // A refused connection has its 503 to write; an admitted one waits for
    // its request.
    let interest = if refused {
        Interest::Write
    } else {
        Interest::Read
    };
    if shared.waits.set.add(&c.stream, key, interest).is_err() {
        close(shared, key, &mut c);
    }
}

/// 503 with Retry-After: 1 for a connection past a cap.
fn cap_refusal(shared: &Shared) -> Vec<u8> {
    let mut response =
        service::layer_error(shared, &Default::default(), &ApiError::ServiceUnavailable);
    for (name, value) in response.headers.iter_mut() {
        if *name == "Retry-After" {
            *value = CAP_RETRY_AFTER_SECS.to_string();
        }
    }
    serialize::bytes(&response, 1, false, Framing::Close)
}

/// Ends a lingering close past the bound: what it can write and read
/// without waiting, then the close.
fn cut_short(shared: &Shared, key: usize, cell: &Cell) {
    let mut c = lock(cell);
    if c.is_closed() {
        return;
    }
    linger::cut(&mut c);
    close(shared, key, &mut c);
    shared
        .answering
        .counts
        .lingering_cut
        .fetch_add(1, Ordering::Relaxed);
    log::debug!(
        "{}: its lingering close cut short ({MAX_LINGERING} at most, within the descriptors left)",
        c.peer
    );
}

/// Closes the connection idle the longest, if any is idle: true if room
/// was made. Taken from the table's list of the idle ones (table.rs), so
/// that at the cap an accept costs the table no look through each time.
fn evict_oldest_idle(shared: &Shared) -> bool {
    let mut listed = shared.table.idlest();
    let mut relisted = false;
    loop {
        let Some(Idle { since, key }) = listed.pop() else {
            if relisted {
                return false;
            }
            *listed = shared.table.list_idle();
            relisted = true;
            continue;
        };
        // Closed since, or busy, or idle again since a later time: not it.
        let Some(cell) = shared.table.get(key) else {
            continue;
        };
        let Ok(mut c) = cell.try_lock() else { continue };
        if c.refused || c.idle_since() != Some(since) {
            continue;
        }
        close(shared, key, &mut c);
        shared
            .answering
            .counts
            .evicted
            .fetch_add(1, Ordering::Relaxed);
        return true;
    }
}
