//! Stopping the layer: stop accepting, give every open connection a turn so
//! that what it has received is answered (the last answer says `Connection:
//! close`), close the idle ones once quiet, and wait for all of it, and for
//! exports still streaming, to `SHUTDOWN_DEADLINE` at most (see the note of
//! mod.rs). What a connection does while stopping is conn.rs's `Phase`.

use std::sync::atomic::Ordering;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::epoll::Interest;
use super::layer::{Layer, SHUTDOWN_DEADLINE};
use super::table::Entry;
use super::workers::{self, lock};

/// How long stopping waits for a thread to end once its work is done.
pub const AFTER_DEADLINE: Duration = Duration::from_millis(200);

/// Joins the threads that end before `until`; false if any did not.
pub fn join_within(threads: impl IntoIterator<Item = JoinHandle<()>>, until: Instant) -> bool {
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

impl Layer {
    /// Stops accepting, answers what was received, closes every connection.
    pub fn stop(&mut self) {
        let deadline = Instant::now() + SHUTDOWN_DEADLINE;
        let shared = self.shared.clone();
        let _ = shared.stopped_at.set(Instant::now());
        for listener in &shared.listeners {
            let _ = shared.waits.set.delete(&listener.socket);
        }
        let mut all_stopped = true;
        for listener in &shared.listeners {
            if let Err(e) = listener.switch.stop_accepting() {
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
        for Entry { key, cell } in shared.table.snapshot() {
            if let Ok(c) = cell.try_lock()
                && !c.is_closed()
            {
                let _ = shared.waits.set.rearm(&c.stream, key, Interest::Both);
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
        shared.waits.stop_event.set();
        // Each worker ends at its next wait; one still in a turn past the
        // wait below is left to end with the process, so that the exit
        // deadline holds under load.
        let joined = join_within(self.workers.drain(..), Instant::now() + AFTER_DEADLINE);
        // Whatever is left (past the deadline) closes here, not at exit.
        if joined {
            for Entry { key, cell } in shared.table.snapshot() {
                workers::close(&shared, key, &mut lock(&cell));
            }
        }
        // The log's last batch may be large and stderr slow: it gets what is
        // left of the shutdown deadline and a little more, within the exit's.
        shared.answering.log.close();
        let log_by = (deadline + AFTER_DEADLINE).max(Instant::now() + AFTER_DEADLINE);
        join_within(self.log_writer.take(), log_by);
    }
}
