//! Stopping: the workers' loop, which turns into draining once the server
//! stops, and `Running::shutdown`, which stops accepting, lets the workers
//! drain and waits for them to the deadline (see the note of mod.rs).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::{Duration, Instant};

use tiny_http::Server;

use super::serve::{serve, serve_metrics};
use super::{DRAIN_DEADLINE, QUIET, Running, SHUTDOWN_DEADLINE, Shared};
use crate::access::usage;
use crate::app::App;

/// When the last usage flush gives up, from the signal: the process exits
/// within 5 s of it (README, "Data: init, import, reload").
const USAGE_DEADLINE: Duration = Duration::from_millis(4800);

impl Running {
    /// Stops accepting connections, answers the requests already received
    /// (for a few seconds at most), and waits for the workers, until
    /// `SHUTDOWN_DEADLINE` at most: a worker still busy then is left behind.
    pub fn shutdown(self) {
        let signalled = Instant::now();
        let app = self.app.clone();
        self.stop();
        // Last, so that every request answered is counted (README, "Usage"),
        // waiting for the usage file as long as the exit deadline allows.
        let patience = USAGE_DEADLINE
            .saturating_sub(signalled.elapsed())
            .max(usage::BUSY_TIMEOUT);
        if let Err(why) = app.usage.stop(patience) {
            log::error!("{why}; they are lost, as the server is stopping");
        }
    }

    fn stop(self) {
        let deadline = Instant::now() + SHUTDOWN_DEADLINE;
        self.shared.stopping.store(true, Ordering::SeqCst);
        // The self-connections end first (within about 20 ms: they wait in 10 ms
        // slices and check `stopping`): one made after the
        // listener stops would be refused and logged as a failure.
        for keeper in self.keepers {
            let _ = keeper.join();
        }
        // From here on new connections are refused. A connection tiny_http
        // accepted just before and left queued without a thread (see
        // keep_accepting) now waits for one of its busy connection threads.
        let mut all_stopped = true;
        for switch in &self.switches {
            if let Err(e) = switch.stop_accepting() {
                log::warn!("cannot stop accepting ({e}); still accepting while draining");
                all_stopped = false;
            }
        }
        if all_stopped {
            log::info!("stopped accepting new connections");
        }
        // One unblock per worker is not enough: a draining worker's recv_timeout
        // can take an unblock meant for another. Keep waking them until all are done.
        // Threads writing to a slow client are waited for too, to the deadline.
        while self.threads.iter().any(|t| !t.is_finished())
            || self.shared.slow.load(Ordering::SeqCst) > 0
        {
            if Instant::now() >= deadline {
                // Joining would wait out the write timeout; the threads end
                // with the process. Their clients see the connection close.
                log::warn!(
                    "abandoned {} request(s) still being answered at the shutdown deadline \
                     (clients not reading their answers)",
                    self.shared.busy.load(Ordering::SeqCst)
                        + self.shared.slow.load(Ordering::SeqCst)
                );
                return;
            }
            self.server.unblock();
            if let Some(ms) = &self.metrics_server {
                ms.unblock();
            }
            thread::sleep(Duration::from_millis(20));
        }
        for t in self.threads {
            let _ = t.join();
        }
    }
}

pub(super) fn work(server: &Server, app: &Arc<App>, shared: &Arc<Shared>) {
    loop {
        if shared.stopping.load(Ordering::SeqCst) {
            return drain(server, app, shared);
        }
        match server.recv() {
            Ok(request) => serve(app, shared, request),
            // tiny_http hands over the error that ended its accept thread:
            // from here on no new connection is taken (see keep_accepting).
            Err(e) if !shared.stopping.load(Ordering::SeqCst) => {
                log::error!("the listener stopped accepting connections: {e}")
            }
            Err(_) => {}
        }
    }
}

/// Answers requests until none has come for `QUIET`, or the deadline passes.
fn drain(server: &Server, app: &Arc<App>, shared: &Arc<Shared>) {
    let deadline = Instant::now() + DRAIN_DEADLINE;
    let mut last = Instant::now();
    loop {
        let until = (last + QUIET).min(deadline);
        let now = Instant::now();
        if now >= until {
            return;
        }
        // Ok(None) means the wait ran out or shutdown's unblock() cut it short;
        // Err is the error that ended the accept thread when the listener
        // stopped. Neither says that no request is still on its way.
        if let Ok(Some(request)) = server.recv_timeout(until - now) {
            serve(app, shared, request);
            last = Instant::now();
        }
    }
}

/// The metrics listener's one thread, until the server stops.
pub(super) fn work_metrics(server: &Server, app: &App, shared: &Shared) {
    while !shared.stopping.load(Ordering::SeqCst) {
        if let Ok(request) = server.recv() {
            serve_metrics(app, shared, request);
        }
    }
}
