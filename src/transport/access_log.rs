//! The access log, written by a thread of its own through a buffer, so that
//! no worker waits on stderr. Its lines keep the format of every other log
//! line (simple_logger's). When the writer falls behind, lines are dropped
//! and counted (`area_access_log_dropped_total` in /metrics), rather than
//! slowing requests.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;

use crate::app::metrics::Metrics;

/// Lines waiting for the writer at most.
const BACKLOG: usize = 8192;

pub struct AccessLog {
    lines: SyncSender<Option<String>>,
    metrics: Arc<Metrics>,
}

impl AccessLog {
    /// The log and its writer thread.
    pub fn start(metrics: Arc<Metrics>) -> Result<(AccessLog, JoinHandle<()>), String> {
        let (lines, rx) = sync_channel(BACKLOG);
        let writer = std::thread::Builder::new()
            .name("access-log".into())
            .spawn(move || write_lines(rx))
            .map_err(|e| format!("cannot start a thread: {e}"))?;
        Ok((AccessLog { lines, metrics }, writer))
    }

    pub fn send(&self, line: String) {
        if let Err(TrySendError::Full(_)) = self.lines.try_send(Some(line)) {
            self.metrics
                .layer
                .log_dropped
                .fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Ends the writer once the lines before are written.
    pub fn close(&self) {
        let _ = self.lines.send(None);
    }
}

fn write_lines(rx: Receiver<Option<String>>) {
    while let Ok(Some(line)) = rx.recv() {
        log::info!(target: "area_scoring::access", "{line}");
    }
}
