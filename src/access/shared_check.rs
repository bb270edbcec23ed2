//! The one look for newer keys, run by the keys' watcher thread alone, and
//! how a request whose key is not in memory waits for it.
//!
//! The watcher looks every tick, and at once when a request asks. A request
//! asks and waits at most `MAX_WAIT` for a look that started after it asked
//! (one already under way may have read the store before its key was made).
//! At most one request waits at a time: any other whose key is not in
//! memory meanwhile gets its answer at once, so a store that is slow or
//! locked holds up one worker for `MAX_WAIT` at most, and never a request
//! whose key is in memory, which never comes here. No lock is held while a
//! look runs: the waiter sleeps on a condition variable.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The longest a request whose key is not in memory waits for a look.
pub const MAX_WAIT: Duration = Duration::from_millis(100);

/// Why the watcher looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    /// Its tick.
    Tick,
    /// A request whose key is not in memory asked.
    Asked,
}

/// Looks started and finished, and what the watcher is asked.
#[derive(Default)]
struct Rounds {
    started: u64,
    finished: u64,
    /// A request asked for a look that has not started yet.
    asked: bool,
    /// A request is waiting for a look.
    waiting: bool,
    /// The watcher is gone, or going: no one waits for it.
    closed: bool,
}

#[derive(Default)]
pub struct SharedCheck {
    rounds: Mutex<Rounds>,
    /// Rung by a request that asks, and by `close`: wakes the watcher.
    ask: Condvar,
    /// Rung when a look finishes: wakes the waiting request.
    done: Condvar,
}

/// Marks the running look finished even when it panics, so that its waiter
/// is never left asleep.
struct Finish<'a>(&'a SharedCheck);

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        self.0.rounds().finished += 1;
        self.0.done.notify_all();
    }
}

impl SharedCheck {
    pub fn new() -> SharedCheck {
        SharedCheck::default()
    }

    fn rounds(&self) -> MutexGuard<'_, Rounds> {
        self.rounds.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A request's side: asks the watcher for a look and waits, `limit` at
    /// most, until one that started after this call has finished. Says
    /// whether one did; false at once while another request waits, or when
    /// the watcher is gone.
    pub fn ask(&self, limit: Duration) -> bool {
        let mut rounds = self.rounds();
        if rounds.waiting || rounds.closed {
            return false;
        }
        // Started only grows, and looks run one at a time on one thread.
        let wanted = rounds.started + 1;
        rounds.waiting = true;
        rounds.asked = true;
        self.ask.notify_all();
        let deadline = Instant::now() + limit;
        while rounds.finished < wanted && !rounds.closed {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                break;
            };
            rounds = self
                .done
                .wait_timeout(rounds, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        rounds.waiting = false;
        rounds.finished >= wanted
    }

    /// The watcher's side: runs `look` every `period`, and as soon as a
    /// request asks, until `close`.
    pub fn serve(&self, period: Duration, look: impl Fn(Look)) {
        let mut tick = Instant::now() + period;
        while let Some(why) = self.next(tick) {
            if why == Look::Tick {
                tick = Instant::now() + period;
            }
            let _finish = Finish(self);
            look(why);
        }
    }

    /// Sleeps until `tick` or a request asks, and marks the look started;
    /// None once closed.
    fn next(&self, tick: Instant) -> Option<Look> {
        let mut rounds = self.rounds();
        let why = loop {
            if rounds.closed {
                return None;
            }
            if rounds.asked {
                break Look::Asked;
            }
            let Some(left) = tick.checked_duration_since(Instant::now()) else {
                break Look::Tick;
            };
            rounds = self
                .ask
                .wait_timeout(rounds, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        };
        rounds.asked = false;
        rounds.started += 1;
        Some(why)
    }

    /// Ends `serve` once its look in flight is done, and stops any request
    /// waiting for it.
    pub fn close(&self) {
        self.rounds().closed = true;
        self.ask.notify_all();
        self.done.notify_all();
    }
}

#[cfg(test)]
#[path = "shared_check_tests.rs"]
mod tests;
