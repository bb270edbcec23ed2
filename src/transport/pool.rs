//! The workers: each waits, in turn, on the one readiness set, takes one
//! ready connection (one-shot interest, so no other worker gets it until it
//! is re-armed), gives it a turn (conn.rs) and re-arms it. A ready listener
//! is accepted from the same way (accept.rs). Between turns a worker sweeps
//! the timeouts.
//!
//! The workers wait in turn (`wait_turn`), not all at once: `polling` lets one
//! thread wait on a set at a time (another's wait returns at once, empty),
//! and one wait handing out one event is what gives each ready connection to
//! exactly one worker.

use std::num::NonZeroUsize;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use polling::{Event, Events};

use super::conn::{self, Conn, Next};
use super::layer::Shared;
pub(super) use super::table::Cell;
use super::{accept, respond, stream};
use crate::error::ApiError;

/// Keys of the listeners in the readiness set; connections come after.
pub const MAIN_LISTENER: usize = 0;
pub const METRICS_LISTENER: usize = 1;
/// How long one wait lasts at most, so that timeouts are swept and a stop seen.
const TICK: Duration = Duration::from_millis(100);

pub fn lock(cell: &Mutex<Conn>) -> MutexGuard<'_, Conn> {
    cell.lock().unwrap_or_else(|p| p.into_inner())
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
            Some(MAIN_LISTENER) => accept::accept(shared, false),
            Some(METRICS_LISTENER) => accept::accept(shared, true),
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
    let layer = &shared.app_metrics().layer;
    let count = if c.refused {
        &layer.lingering
    } else {
        &layer.open
    };
    count.fetch_sub(1, Ordering::Relaxed);
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
            accept::rearm_listener(shared, index);
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
