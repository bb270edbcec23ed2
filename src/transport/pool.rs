//! The workers: each waits, in turn, on the one readiness set, takes one
//! ready connection (one-shot interest, so no other worker gets it until it
//! is re-armed), gives it a turn (conn.rs) and re-arms it. A ready listener
//! is accepted from the same way. Between turns a worker sweeps the timeouts.
//!
//! The workers wait in turn (`wait_turn`), not all at once: `polling` lets one
//! thread wait on a set at a time (another's wait returns at once, empty),
//! and one wait handing out one event is what gives each ready connection to
//! exactly one worker.

use std::collections::HashMap;
use std::io::ErrorKind;
use std::net::TcpStream;
use std::num::NonZeroUsize;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use polling::{Event, Events};

use super::conn::{self, Conn, Next};
use super::layer::{CAP_RETRY_AFTER_SECS, Shared};
use super::limits::{PerAddress, addr_key};
use super::{respond, stream};
use crate::error::ApiError;

/// Keys of the listeners in the readiness set; connections come after.
pub const MAIN_LISTENER: usize = 0;
pub const METRICS_LISTENER: usize = 1;
const FIRST_CONNECTION: usize = 2;
/// How long one wait lasts at most, so that timeouts are swept and a stop seen.
const TICK: Duration = Duration::from_millis(100);
/// Connections accepted in one turn on a listener, before others get theirs.
const ACCEPTS_PER_TURN: usize = 64;
/// The pause after accept() fails for want of descriptors or memory.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

type Cell = Arc<Mutex<Conn>>;

pub fn lock(cell: &Mutex<Conn>) -> MutexGuard<'_, Conn> {
    cell.lock().unwrap_or_else(|p| p.into_inner())
}

/// Every open connection, by key, and the counts per client address.
#[derive(Default)]
pub struct Table {
    inner: Mutex<(HashMap<usize, Cell>, PerAddress)>,
    next: std::sync::atomic::AtomicUsize,
}

impl Table {
    fn lock(&self) -> MutexGuard<'_, (HashMap<usize, Cell>, PerAddress)> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn len(&self) -> usize {
        self.lock().0.len()
    }

    pub fn snapshot(&self) -> Vec<(usize, Cell)> {
        self.lock().0.iter().map(|(k, c)| (*k, c.clone())).collect()
    }

    fn get(&self, key: usize) -> Option<Cell> {
        self.lock().0.get(&key).cloned()
    }

    fn remove(&self, key: usize, c: &Conn) {
        let mut inner = self.lock();
        if inner.0.remove(&key).is_some()
            && let Some(a) = c.addr
        {
            inner.1.give_back(a);
        }
    }
}

/// A worker's loop, until the server has stopped.
pub fn work(shared: &Arc<Shared>) {
    let mut events = Events::with_capacity(NonZeroUsize::MIN);
    while !shared.done.load(Ordering::SeqCst) {
        events.clear();
        let key = {
            let _turn = shared.wait_turn.lock().unwrap_or_else(|p| p.into_inner());
            if shared.done.load(Ordering::SeqCst) {
                return;
            }
            if shared.poller.wait(&mut events, Some(TICK)).is_err() {
                None
            } else {
                events.iter().next().map(|e| e.key)
            }
        };
        match key {
            Some(MAIN_LISTENER) => accept(shared, false),
            Some(METRICS_LISTENER) => accept(shared, true),
            Some(key) => drive(shared, key),
            None => {}
        }
        sweep(shared);
    }
}

fn drive(shared: &Arc<Shared>, key: usize) {
    let Some(cell) = shared.table.get(key) else {
        return;
    };
    let mut c = lock(&cell);
    if c.closed {
        return;
    }
    let interest = match conn::turn(&mut c, shared) {
        Next::Readable => Event::readable(key),
        Next::Writable => Event::writable(key),
        Next::Yield => Event::all(key),
        Next::Close => return close(shared, key, &mut c),
        Next::Stream(s) => return hand_off(shared, key, &mut c, s),
    };
    if shared.poller.modify(&c.stream, interest).is_err() {
        close(shared, key, &mut c);
    }
}

/// Leaves `c` to a thread that streams its answer; if none can start, 503.
fn hand_off(shared: &Arc<Shared>, key: usize, c: &mut Conn, s: respond::Streamed) {
    match c
        .stream
        .try_clone()
        .map(|socket| stream::spawn(shared, socket, s))
    {
        Ok(Ok(())) => close(shared, key, c),
        _ => {
            c.refuse_with(respond::refusal(shared, &ApiError::ServiceUnavailable));
            if shared
                .poller
                .modify(&c.stream, Event::writable(key))
                .is_err()
            {
                close(shared, key, c);
            }
        }
    }
}

/// Takes `c` out of the set and the table; its socket closes when the last
/// handle on it drops (a streaming thread may hold one).
pub fn close(shared: &Shared, key: usize, c: &mut Conn) {
    let _ = shared.poller.delete(&c.stream);
    c.closed = true;
    shared.table.remove(key, c);
    shared
        .app_metrics()
        .layer
        .open
        .fetch_sub(1, Ordering::Relaxed);
}

fn accept(shared: &Arc<Shared>, metrics_only: bool) {
    let index = usize::from(metrics_only);
    let Some(listener) = shared.listeners.get(index) else {
        return;
    };
    for _ in 0..ACCEPTS_PER_TURN {
        match listener.accept() {
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
                    .app_metrics()
                    .layer
                    .accept_errors
                    .fetch_add(1, Ordering::Relaxed);
                if !shared.accept_failing.swap(true, Ordering::SeqCst) {
                    log::error!("cannot accept a connection ({e}); retrying");
                }
                *shared.accept_paused[index]
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
            .poller
            .modify(&shared.listeners[index], Event::readable(index));
    }
}

/// Registers a new connection, making room under the caps first.
fn admit(shared: &Shared, socket: TcpStream, peer: std::net::SocketAddr, metrics_only: bool) {
    let layer = &shared.app_metrics().layer;
    if socket.set_nonblocking(true).is_err() {
        return;
    }
    let _ = socket.set_nodelay(true);
    // A named front speaks for many clients, as one on loopback does.
    let addr = addr_key(&peer, shared.limits.count_loopback)
        .filter(|_| !shared.limits.fronts.names(peer.ip()));
    // Read at each accept: an operator may lower the descriptor limit of a
    // running server (prlimit).
    let max = shared.limits.effective_max();
    if shared.table.len() >= max && !evict_oldest_idle(shared) {
        layer.refused_total.fetch_add(1, Ordering::Relaxed);
        return refuse_now(shared, socket, peer, max);
    }
    let key = shared.table.next.fetch_add(1, Ordering::Relaxed) + FIRST_CONNECTION;
    let mut c = Conn::new(socket, peer, metrics_only, None);
    {
        let mut inner = shared.table.lock();
        match addr {
            Some(a) if !inner.1.take(a, shared.limits.per_address) => {
                layer.refused_per_address.fetch_add(1, Ordering::Relaxed);
                c.refuse_with(cap_refusal(shared));
            }
            a => c.addr = a,
        }
        inner.0.insert(key, Arc::new(Mutex::new(c)));
    }
    layer.open.fetch_add(1, Ordering::Relaxed);
    let Some(cell) = shared.table.get(key) else {
        return;
    };
    let c = lock(&cell);
    // SAFETY: the socket is deleted from the set (`close`) before it drops.
    let added = unsafe { shared.poller.add(&c.stream, Event::all(key)) };
    if added.is_err() {
        drop(c);
        let mut c = lock(&cell);
        close(shared, key, &mut c);
    }
}

/// 503 with Retry-After: 1 for a connection past a cap.
fn cap_refusal(shared: &Shared) -> Vec<u8> {
    let mut response =
        respond::layer_error(shared, &Default::default(), &ApiError::ServiceUnavailable);
    for (name, value) in response.headers.iter_mut() {
        if *name == "Retry-After" {
            *value = CAP_RETRY_AFTER_SECS.to_string();
        }
    }
    super::answer::bytes(&response, 1, false, super::answer::Framing::Close)
}

/// Past `--max-connections` with none idle: answered at once, unregistered.
fn refuse_now(shared: &Shared, socket: TcpStream, peer: std::net::SocketAddr, max: usize) {
    use std::io::Write;
    let _ = (&socket).write(&cap_refusal(shared));
    let _ = socket.shutdown(std::net::Shutdown::Write);
    log::debug!("{peer} refused: {max} connections open");
}

/// Closes the connection idle the longest, if any is idle: true if room was made.
fn evict_oldest_idle(shared: &Shared) -> bool {
    let mut oldest: Option<(Instant, usize, Cell)> = None;
    for (key, cell) in shared.table.snapshot() {
        let Ok(c) = cell.try_lock() else { continue };
        if c.is_idle() && oldest.as_ref().is_none_or(|(at, _, _)| c.idle_at() < *at) {
            let at = c.idle_at();
            drop(c);
            oldest = Some((at, key, cell));
        }
    }
    let Some((_, key, cell)) = oldest else {
        return false;
    };
    let mut c = lock(&cell);
    if c.closed {
        return true;
    }
    close(shared, key, &mut c);
    shared
        .app_metrics()
        .layer
        .evicted
        .fetch_add(1, Ordering::Relaxed);
    true
}

/// Closes the connections whose time is up, and re-arms a paused listener;
/// one worker at a time, every `TICK` at most.
fn sweep(shared: &Shared) {
    let Ok(mut last) = shared.swept_at.try_lock() else {
        return;
    };
    let now = Instant::now();
    if now.duration_since(*last) < TICK {
        return;
    }
    *last = now;
    drop(last);
    for index in 0..shared.listeners.len() {
        let mut paused = shared.accept_paused[index]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if paused.is_some_and(|until| now >= until) {
            *paused = None;
            rearm_listener(shared, index);
        }
    }
    for (key, cell) in shared.table.snapshot() {
        // A connection a worker is on now is that worker's to close.
        let Ok(mut c) = cell.try_lock() else { continue };
        if !c.closed && c.expired(shared, now) {
            close(shared, key, &mut c);
        }
    }
}
