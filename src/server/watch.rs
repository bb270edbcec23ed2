//! The threads that work on a clock beside the workers: the dataset's and
//! the keys' watchers and the usage flush. Each sleeps its whole interval,
//! and the stop wakes it at once, so a quiet server's threads wake only when
//! there is work for them, and shutdown never waits an interval for one.
//! The keys' watcher also wakes when a request asks it to look
//! (access/shared_check.rs), so it sleeps on the keys' own wake-up, which the
//! stop rings as well.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::access::usage;
use crate::app::App;

/// What the stop does besides waking the threads sleeping on it.
type OnStop = Box<dyn FnOnce() + Send>;

/// Set once, at shutdown; wakes every thread sleeping on it.
#[derive(Default)]
pub struct Stop {
    stopped: Mutex<bool>,
    wake: Condvar,
    /// For threads that sleep elsewhere.
    also: Mutex<Vec<OnStop>>,
}

impl Stop {
    pub fn stop(&self) {
        *self.stopped.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.wake.notify_all();
        let also = std::mem::take(&mut *self.also.lock().unwrap_or_else(|p| p.into_inner()));
        for wake in also {
            wake();
        }
    }

    /// Runs `wake` at the stop, or now if it has come.
    fn also(&self, wake: impl FnOnce() + Send + 'static) {
        let stopped = self.stopped.lock().unwrap_or_else(|p| p.into_inner());
        if *stopped {
            drop(stopped);
            return wake();
        }
        // Pushed while the stop is not yet set, so that it finds this.
        self.also
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Box::new(wake));
    }

    /// Sleeps for `period`, or until the stop: true once stopped.
    fn sleep(&self, period: Duration) -> bool {
        let until = Instant::now() + period;
        let mut stopped = self.stopped.lock().unwrap_or_else(|p| p.into_inner());
        while !*stopped {
            let Some(left) = until.checked_duration_since(Instant::now()) else {
                return false;
            };
            stopped = self
                .wake
                .wait_timeout(stopped, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        true
    }
}

/// Calls `poll` every `period`, until the stop.
pub fn every(period: Duration, stop: &Stop, poll: impl Fn()) {
    while !stop.sleep(period) {
        poll();
    }
}

/// The keys' watcher: looks at the keys every `period`, and as soon as a
/// request whose key is not in memory asks (access/key_store.rs), until the stop.
pub fn watch_keys(app: &Arc<App>, period: Duration, stop: &Stop) {
    let closing = app.clone();
    stop.also(move || closing.keys.close());
    app.keys.watch(period);
}

/// Adds the usage counted to the usage file every `FLUSH_EVERY`, apart from
/// the watch, whose reloads must not wait behind a locked usage file. The last
/// flush is shutdown's.
pub fn count_usage(app: &App, stop: &Stop) {
    let mut failing = false;
    while !stop.sleep(usage::FLUSH_EVERY) {
        failing = flush_usage(app, failing);
    }
}

/// One flush; a failure is logged when it starts and when it ends, not every
/// few seconds between. Returns whether this one failed.
fn flush_usage(app: &App, failing: bool) -> bool {
    match app.usage.flush(usage::BUSY_TIMEOUT) {
        Ok(()) if failing => {
            log::info!("usage written again to {}", app.usage.path().display());
            false
        }
        Ok(()) => false,
        Err(why) => {
            if !failing {
                log::warn!("{why}; they wait in memory for the next try");
            }
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_watcher_polls_each_period_and_ends_at_once_when_stopped() {
        let stop = Arc::new(Stop::default());
        let polls = Arc::new(AtomicUsize::new(0));
        let (stop2, polls2) = (stop.clone(), polls.clone());
        let watcher = std::thread::spawn(move || {
            every(Duration::from_millis(30), &stop2, || {
                polls2.fetch_add(1, Ordering::SeqCst);
            })
        });
        std::thread::sleep(Duration::from_millis(200));
        let started = Instant::now();
        stop.stop();
        watcher.join().unwrap();
        assert!(started.elapsed() < Duration::from_millis(100));
        let polled = polls.load(Ordering::SeqCst);
        assert!((2..=7).contains(&polled), "{polled} polls in 200 ms");
    }

    #[test]
    fn the_stop_wakes_threads_sleeping_elsewhere_even_those_that_come_late() {
        let stop = Stop::default();
        let woken = Arc::new(AtomicUsize::new(0));
        let early = woken.clone();
        stop.also(move || {
            early.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(woken.load(Ordering::SeqCst), 0, "not before the stop");
        stop.stop();
        assert_eq!(woken.load(Ordering::SeqCst), 1);
        let late = woken.clone();
        stop.also(move || {
            late.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(woken.load(Ordering::SeqCst), 2, "at once, after the stop");
    }
}
