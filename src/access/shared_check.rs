//! One check at a time for newer keys, shared by every request that needs
//! one: a request whose key is not in memory joins the check in flight
//! rather than making its own, so a flood of unknown keys costs the store
//! (a file's stamp, or Redis's version) one read per check, not one per
//! request.
//!
//! A check already under way when a request arrives may have read the store
//! before the request's key was made, so the request waits for the next
//! check to finish, which starts as soon as the one in flight ends. No lock
//! is held while a check runs: waiters sleep on a condition variable, and
//! requests whose keys are in memory never come here.

use std::sync::{Condvar, Mutex, MutexGuard};

/// Checks started and finished; one is in flight while they differ.
#[derive(Default)]
struct Rounds {
    started: u64,
    finished: u64,
    /// Requests asleep until a check ends.
    waiting: usize,
}

#[derive(Default)]
pub struct SharedCheck {
    rounds: Mutex<Rounds>,
    done: Condvar,
}

/// Marks the running check finished even when it panics, so that its
/// waiters are never left asleep.
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

    /// Returns once a check that started after this call has finished:
    /// runs `check` itself when none is in flight, else waits for the next.
    pub fn run(&self, check: impl FnOnce()) {
        let mut rounds = self.rounds();
        let wanted = rounds.started + 1;
        loop {
            if rounds.finished >= wanted {
                return;
            }
            if rounds.started == rounds.finished {
                // Started only grows, so this check is the one wanted.
                rounds.started += 1;
                drop(rounds);
                let _finish = Finish(self);
                check();
                return;
            }
            rounds.waiting += 1;
            rounds = self.done.wait(rounds).unwrap_or_else(|p| p.into_inner());
            rounds.waiting -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Barrier};

    #[test]
    fn requests_at_once_share_checks_and_each_sees_one_started_after_it() {
        let shared = Arc::new(SharedCheck::new());
        let checks = Arc::new(AtomicUsize::new(0));
        let (gate, release) = (Arc::new(Barrier::new(2)), Arc::new(Barrier::new(2)));
        // The first check holds until every other request is waiting.
        let first = {
            let (shared, checks, gate, release) = (
                shared.clone(),
                checks.clone(),
                gate.clone(),
                release.clone(),
            );
            std::thread::spawn(move || {
                shared.run(|| {
                    checks.fetch_add(1, Ordering::SeqCst);
                    gate.wait();
                    release.wait();
                })
            })
        };
        gate.wait();
        let waiters: Vec<_> = (0..16)
            .map(|_| {
                let (shared, checks) = (shared.clone(), checks.clone());
                std::thread::spawn(move || {
                    shared.run(|| {
                        checks.fetch_add(1, Ordering::SeqCst);
                    })
                })
            })
            .collect();
        // All 16 are asleep behind the check in flight before it ends.
        while shared.rounds().waiting < 16 {
            std::thread::yield_now();
        }
        release.wait();
        first.join().unwrap();
        for w in waiters {
            w.join().unwrap();
        }
        // The first, then one more that all 16 shared: not one each, and
        // not none, since the first may have read before they came.
        assert_eq!(checks.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_check_that_panics_leaves_no_one_waiting() {
        let shared = SharedCheck::new();
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            shared.run(|| panic!("the check failed"))
        }));
        assert!(panicked.is_err());
        let ran = AtomicUsize::new(0);
        shared.run(|| {
            ran.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(ran.load(Ordering::SeqCst), 1);
    }
}
