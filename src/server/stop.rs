//! Stopping the server: the layer first (transport/drain.rs), so that every
//! request received is answered; then the watchers; and last the usage
//! flush, so that every request answered is counted (docs/operations.md,
//! "Keys": usage), waiting for the usage file as long as the exit deadline allows.

use std::time::{Duration, Instant};

use super::Running;
use crate::access::usage;
use crate::transport::{AFTER_DEADLINE, join_within};

/// When the last usage flush gives up, from the signal: the process exits
/// within 5 s of it (docs/http-layer.md, "Shutdown").
const USAGE_DEADLINE: Duration = Duration::from_millis(4800);

impl Running {
    /// Stops accepting connections, answers the requests already received,
    /// waits until every connection has closed (to the deadline at most),
    /// and writes the usage counted.
    pub fn shutdown(mut self) {
        let signalled = Instant::now();
        self.layer.stop();
        self.stop_watchers.stop();
        // A watcher in the middle of opening a new dataset is not waited for.
        join_within(self.threads.drain(..), Instant::now() + AFTER_DEADLINE);
        let patience = USAGE_DEADLINE
            .saturating_sub(signalled.elapsed())
            .max(usage::BUSY_TIMEOUT);
        if let Err(why) = self.app.usage.stop(patience) {
            log::error!("{why}; they are lost, as the server is stopping");
        }
    }
}
