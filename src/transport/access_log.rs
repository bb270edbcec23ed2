//! The access log, written by a thread of its own through a buffer, so that
//! no worker waits on stderr. Its lines keep the format of every other log
//! line (simple_logger's: UTC time to the millisecond, level, target), with
//! the time the request was answered, not the time the line was written.
//!
//! Workers append whole lines to one buffer; the writer sleeps until the
//! first line of a batch comes, lets the batch gather for 50 ms (or less,
//! once 64 KiB wait), and writes it in one call. A line a request would
//! cost a thread wake-up and a write each; batched, both are shared by
//! every line of the batch, and a quiet server's writer never wakes. When the writer falls behind,
//! lines are dropped and counted (`area_access_log_dropped_total` in
//! /metrics), rather than slowing requests.

use std::io::Write;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::counters::LayerCounts;
use crate::dates::TimestampMillis;

/// The log target, as other modules' lines name theirs.
const TARGET: &str = "area_scoring::access";
/// Bytes waiting for the writer at most: about 8,000 lines.
const BACKLOG_BYTES: usize = 1 << 20;
/// The writer is woken early once this much waits.
const WAKE_AT_BYTES: usize = 64 << 10;
/// How long a batch gathers after its first line, at most.
const FLUSH_EVERY: Duration = Duration::from_millis(50);

thread_local! {
    /// Each worker's line, written again for each request.
    static LINE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Which answers get a line (`serve --access-log`, docs/operations.md, "Logs").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Logged {
    /// Every answer.
    #[default]
    All,
    /// Answers with a status of 400 or above.
    Errors,
    /// None.
    Off,
}

impl Logged {
    /// The words `serve --access-log` takes, in the order of the variants.
    pub const WORDS: [&str; 3] = ["all", "errors", "off"];

    pub fn parse(word: &str) -> Result<Logged, String> {
        match word {
            "all" => Ok(Logged::All),
            "errors" => Ok(Logged::Errors),
            "off" => Ok(Logged::Off),
            _ => Err(format!(
                "--access-log takes {}, not '{word}'",
                Logged::WORDS.join(", ")
            )),
        }
    }

    fn takes(self, status: u16) -> bool {
        match self {
            Logged::All => true,
            Logged::Errors => status >= 400,
            Logged::Off => false,
        }
    }
}

pub struct AccessLog {
    shared: Arc<Pending>,
    /// Whether the logger writes this target at info (RUST_LOG may say not).
    enabled: bool,
    logged: Logged,
    counts: Arc<LayerCounts>,
}

#[derive(Default)]
struct Pending {
    lines: Mutex<Batch>,
    wake: Condvar,
}

#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    closed: bool,
}

impl AccessLog {
    /// The log and its writer thread. Call after the logger is set up.
    pub fn start(
        counts: Arc<LayerCounts>,
        logged: Logged,
    ) -> Result<(AccessLog, JoinHandle<()>), String> {
        let shared = Arc::new(Pending::default());
        let theirs = shared.clone();
        let writer = std::thread::Builder::new()
            .name("access-log".into())
            .spawn(move || write_batches(&theirs))
            .map_err(|e| format!("cannot start a thread: {e}"))?;
        let enabled = log::log_enabled!(target: TARGET, log::Level::Info);
        let log = AccessLog {
            shared,
            enabled: enabled && logged != Logged::Off,
            logged,
            counts,
        };
        Ok((log, writer))
    }

    /// Appends one line; its text is formatted only when the log is written,
    /// and then once, with the time, into the thread's own line buffer
    /// (no allocation a request), which is copied into the batch.
    pub fn send(&self, status: u16, line: std::fmt::Arguments) {
        if !self.enabled || !self.logged.takes(status) {
            return;
        }
        LINE.with_borrow_mut(|text| {
            text.clear();
            let _ = writeln!(
                text,
                "{} INFO  [{TARGET}] {line}",
                timestamp(SystemTime::now())
            );
            self.append(text);
        });
    }

    fn append(&self, line: &[u8]) {
        let mut batch = lock(&self.shared.lines);
        if batch.closed {
            // A worker still answering past the shutdown deadline: the
            // writer has gone, so the line is written here.
            drop(batch);
            let _ = std::io::stderr().lock().write_all(line);
            return;
        }
        if batch.bytes.len() + line.len() > BACKLOG_BYTES {
            drop(batch);
            self.counts.log_dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let first = batch.bytes.is_empty();
        batch.bytes.extend_from_slice(line);
        // The first line wakes the writer to start its wait; a batch grown
        // large ends that wait early.
        if first || batch.bytes.len() >= WAKE_AT_BYTES {
            self.shared.wake.notify_one();
        }
    }

    /// Ends the writer once the lines before are written.
    pub fn close(&self) {
        lock(&self.shared.lines).closed = true;
        self.shared.wake.notify_one();
    }
}

fn lock(lines: &Mutex<Batch>) -> std::sync::MutexGuard<'_, Batch> {
    // A worker that panicked while appending left whole lines or none.
    lines.lock().unwrap_or_else(|e| e.into_inner())
}

fn write_batches(pending: &Pending) {
    let mut out = Vec::with_capacity(WAKE_AT_BYTES);
    loop {
        let closed = {
            let mut batch = lock(&pending.lines);
            while batch.bytes.is_empty() && !batch.closed {
                batch = pending.wake.wait(batch).unwrap_or_else(|e| e.into_inner());
            }
            let gather_until = Instant::now() + FLUSH_EVERY;
            while !batch.closed && batch.bytes.len() < WAKE_AT_BYTES {
                let Some(left) = gather_until.checked_duration_since(Instant::now()) else {
                    break;
                };
                batch = pending
                    .wake
                    .wait_timeout(batch, left)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            std::mem::swap(&mut out, &mut batch.bytes);
            batch.closed
        };
        if !out.is_empty() {
            // Nowhere to report a failed write to stderr; the lines are lost.
            let _ = std::io::stderr().lock().write_all(&out);
            out.clear();
        }
        if closed && lock(&pending.lines).bytes.is_empty() {
            return;
        }
    }
}

/// `2026-11-26T02:36:30.165Z`: simple_logger's UTC form.
fn timestamp(at: SystemTime) -> TimestampMillis {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    TimestampMillis {
        unix: since.as_secs() as i64,
        millis: since.subsec_millis(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_only_takes_the_answers_of_400_and_above() {
        let logged = Logged::parse("errors").unwrap();
        assert!(!logged.takes(200) && !logged.takes(304) && !logged.takes(399));
        assert!(logged.takes(400) && logged.takes(429) && logged.takes(503));
        assert!(Logged::parse("all").unwrap().takes(200));
        assert!(!Logged::parse("off").unwrap().takes(500));
        let refused = Logged::parse("some").unwrap_err();
        assert!(refused.contains("all, errors, off"), "{refused}");
    }

    #[test]
    fn the_time_has_simple_loggers_form() {
        let at = UNIX_EPOCH + Duration::from_millis(1_795_660_590_165);
        assert_eq!(timestamp(at).to_string(), "2026-11-26T02:36:30.165Z");
        assert_eq!(
            timestamp(UNIX_EPOCH).to_string(),
            "1970-01-01T00:00:00.000Z"
        );
    }
}
