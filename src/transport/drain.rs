//! Stopping: stop accepting, give every open connection a turn so that what
//! it has received is answered (the last answer says `Connection: close`),
//! close the idle ones once quiet, and wait for all of it, and for exports
//! still streaming, to `SHUTDOWN_DEADLINE` at most (see the note of mod.rs).

use std::sync::atomic::Ordering;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::Running;
use super::epoll::Interest;
use super::layer::{Layer, SHUTDOWN_DEADLINE};
use super::pool::{self, lock};
use crate::access::usage;

/// How long stopping waits for a thread to end once its work is done.
const AFTER_DEADLINE: Duration = Duration::from_millis(200);

/// Joins the threads that end before `until`; false if any did not.
fn join_within(threads: impl IntoIterator<Item = JoinHandle<()>>, until: Instant) -> bool {
    let mut all = true;
    for t in threads {
        while !t.is_finished() && Instant::now() < until {
            thread::sleep(Duration::from_millis(5));
        }
        if t.is_finished() {
            let _ = t.join();
        } else {
            all = false;
        }
    }
    all
}

/// When the last usage flush gives up, from the signal: the process exits
/// within 5 s of it (README, "Data: init, import, reload").
const USAGE_DEADLINE: Duration = Duration::from_millis(4800);

impl Running {
    /// Stops accepting connections, answers the requests already received,
    /// and waits until every connection has closed, to the deadline at most.
    pub fn shutdown(mut self) {
        let signalled = Instant::now();
        self.layer.stop();
        self.stop_watchers.stop();
        // A watcher in the middle of opening a new dataset is not waited for.
        join_within(self.threads.drain(..), Instant::now() + AFTER_DEADLINE);
        // Last, so that every request answered is counted (README, "Usage"),
        // waiting for the usage file as long as the exit deadline allows.
        let patience = USAGE_DEADLINE
            .saturating_sub(signalled.elapsed())
            .max(usage::BUSY_TIMEOUT);
        if let Err(why) = self.app.usage.stop(patience) {
            log::error!("{why}; they are lost, as the server is stopping");
        }
    }
}

impl Layer {
    /// Stops accepting, answers what was received, closes every connection.
    pub fn stop(&mut self) {
        let deadline = Instant::now() + SHUTDOWN_DEADLINE;
        let shared = self.shared.clone();
        *shared.stopped_at.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
        shared.stopping.store(true, Ordering::SeqCst);
        for listener in &shared.listeners {
            let _ = shared.set.delete(listener);
        }
        let mut all_stopped = true;
        for switch in &self.switches {
            if let Err(e) = switch.stop_accepting() {
                log::warn!("cannot stop accepting ({e}); new connections wait unanswered");
                all_stopped = false;
            }
        }
        if all_stopped {
            log::info!("stopped accepting new connections");
        }
        // A turn for every connection now: one with requests waiting in the
        // kernel is answered; an idle one is closed once quiet (the sweep).
        // One a worker holds gets its turn there, and is re-armed after it.
        for (key, cell) in shared.table.snapshot() {
            if let Ok(c) = cell.try_lock()
                && !c.closed
            {
                let _ = shared.set.rearm(&c.stream, key, Interest::Both);
            }
        }
        // A refused connection's lingering close ends within `LINGER_FOR`.
        let open = || shared.table.len() + shared.table.lingering();
        while open() > 0 || shared.streams.load(Ordering::SeqCst) > 0 {
            if Instant::now() >= deadline {
                log::warn!(
                    "abandoned {} connection(s) and {} export(s) at the shutdown deadline \
                     (clients not reading their answers)",
                    open(),
                    shared.streams.load(Ordering::SeqCst)
                );
                break;
            }
            thread::sleep(Duration::from_millis(10));
        }
        shared.bell.ring();
        // Each worker ends at its next wait; one still in a turn past the
        // wait below is left to end with the process, so that the exit
        // deadline holds under load.
        let joined = join_within(self.workers.drain(..), Instant::now() + AFTER_DEADLINE);
        // Whatever is left (past the deadline) closes here, not at exit.
        if joined {
            for (key, cell) in shared.table.snapshot() {
                pool::close(&shared, key, &mut lock(&cell));
            }
        }
        // The log's last batch may be large and stderr slow: it gets what is
        // left of the shutdown deadline and a little more, within the exit's.
        shared.log.close();
        let log_by = (deadline + AFTER_DEADLINE).max(Instant::now() + AFTER_DEADLINE);
        join_within(self.log_writer.take(), log_by);
    }
}
