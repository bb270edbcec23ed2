//! The workers: all wait at once on the one readiness set (epoll.rs), and
//! each wait takes one event. A connection's event gives its worker a turn
//! (conn.rs) with the connection to itself: registered one-shot, it reports
//! nothing more until the worker re-arms it at the end of the turn, or closes
//! it. A listener's event is a turn of accepting (accept.rs), the tick's a
//! sweep of the timeouts (timers.rs), the stop event's the end.
//!
//! Closing never races with a turn: whoever closes (a turn, the sweep, an
//! eviction, the drain) holds the connection's lock, takes it out of the set
//! and marks it closed; a worker holding an event taken before finds it
//! gone from the table, or marked closed, and does nothing.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::conn::{self, Conn, Next};
use super::epoll::Interest;
use super::layer::Shared;
use super::phase::{Phase, Then};
use super::table::Entry;
use super::{accept, service, stream};
use crate::error::ApiError;

/// Keys of the set's own registrations; connections' keys come after.
pub const MAIN_LISTENER: usize = 0;
pub const METRICS_LISTENER: usize = 1;
pub const TICK_KEY: usize = 2;
pub const STOP_KEY: usize = 3;
pub const FIRST_CONNECTION: usize = 4;
/// How often the timeouts are swept (and a paused listener looked at).
pub const TICK: Duration = Duration::from_millis(100);
/// The pause after a wait fails (never seen: the set outlives the workers),
/// so that a failing wait cannot spin.
const WAIT_FAILED_PAUSE: Duration = Duration::from_millis(10);

pub fn lock(cell: &Mutex<Conn>) -> MutexGuard<'_, Conn> {
    cell.lock().unwrap_or_else(|p| p.into_inner())
}

/// A worker's loop, until the stop event.
pub fn work(shared: &Arc<Shared>) {
    loop {
        let key = match shared.waits.set.wait_one() {
            Ok(Some(key)) => key,
            Ok(None) => continue,
            Err(e) => {
                log::error!("waiting for connections failed: {e}");
                std::thread::sleep(WAIT_FAILED_PAUSE);
                continue;
            }
        };
        match key {
            MAIN_LISTENER => accept::accept(shared, false),
            METRICS_LISTENER => accept::accept(shared, true),
            TICK_KEY => {
                shared.waits.tick.take();
                sweep(shared);
                if let Err(e) = shared
                    .waits
                    .set
                    .rearm(&shared.waits.tick, TICK_KEY, Interest::Read)
                {
                    log::error!("timeouts are no longer swept: {e}");
                }
            }
            STOP_KEY => return,
            key => drive(shared, key),
        }
    }
}

fn drive(shared: &Arc<Shared>, key: usize) {
    let Some(cell) = shared.table.get(key) else {
        return;
    };
    let mut c = lock(&cell);
    if c.is_closed() {
        return;
    }
    let interest = match conn::turn(&mut c, shared) {
        Next::Readable => Interest::Read,
        Next::Writable => Interest::Write,
        Next::Yield => Interest::Both,
        Next::Close => return close(shared, key, &mut c),
        Next::Stream(s) => return hand_off(shared, key, &mut c, s),
    };
    if shared.waits.set.rearm(&c.stream, key, interest).is_err() {
        close(shared, key, &mut c);
    }
}

/// Leaves `c` to a thread that streams its answer; if none can start, 503.
fn hand_off(shared: &Arc<Shared>, key: usize, c: &mut Conn, s: service::Streamed) {
    match c
        .stream
        .try_clone()
        .map(|socket| stream::spawn(shared, socket, s))
    {
        Ok(Ok(())) => close(shared, key, c),
        _ => {
            c.queue(
                service::refusal(shared, &ApiError::ServiceUnavailable),
                Then::Close,
            );
            if shared
                .waits
                .set
                .rearm(&c.stream, key, Interest::Write)
                .is_err()
            {
                close(shared, key, c);
            }
        }
    }
}

/// Takes `c` out of the set and the table; its socket closes when the last
/// handle on it drops (a streaming thread may hold one). The caller holds
/// `c`'s lock.
pub fn close(shared: &Shared, key: usize, c: &mut Conn) {
    let _ = shared.waits.set.delete(&c.stream);
    c.phase = Phase::Closed;
    shared.table.remove(key, c);
    let counts = &shared.answering.counts;
    let count = if c.refused {
        &counts.lingering
    } else {
        &counts.open
    };
    count.fetch_sub(1, Ordering::Relaxed);
}

/// Closes the connections whose time is up, and re-arms a paused listener.
/// Only the worker holding the tick's event sweeps.
fn sweep(shared: &Shared) {
    let now = Instant::now();
    for index in 0..shared.listeners.len() {
        let mut paused = shared.listeners[index]
            .paused_until
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if paused.is_some_and(|until| now >= until) {
            *paused = None;
            accept::rearm_listener(shared, index);
        }
    }
    for Entry { key, cell } in shared.table.snapshot() {
        // A connection a worker is on now is that worker's to close.
        let Ok(mut c) = cell.try_lock() else { continue };
        if !c.is_closed() && c.expired(shared, now) {
            close(shared, key, &mut c);
        }
    }
}
