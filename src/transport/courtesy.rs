//! When a worker offers its core to the other workers between two turns.
//!
//! With more workers than cores, the scheduler takes a core from a worker
//! at one of its ticks (4 ms apart at the kernel's usual 250 Hz), mostly in
//! the middle of a request, which then waits a tick or more: a request in
//! thirty at 100 µs each, enough to set the p99 of every such case. A worker
//! that has run `YIELD_AFTER` without sleeping therefore yields before its
//! next wait, holding no connection, and the ready connections go to the
//! workers still running.
//!
//! Only while no other process wants the cores: a yield hands the core to
//! whoever waits for it, and beside two busy processes the workers' p99
//! and rate both got worse with it (bench/PROFILE.md, "Yielding between
//! turns"). At each sweep (every `TICK`), the worker sweeping counts the
//! machine's runnable threads (/proc/loadavg) that are not workers (each
//! worker's state in /proc/self/task). Yielding is on after `CALM_SWEEPS`
//! sweeps that found fewer of them than cores, and a sweep that found as
//! many takes `CALM_SWEEPS` off: one such sweep (another thread a moment
//! awake) leaves a long calm as it was, two in a row end it.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// How long a worker runs without sleeping before it yields: well under
/// the scheduler's slice (0.75 ms, scaled up with the cores), chosen
/// against 150 µs, 600 µs and 1 ms (bench/PROFILE.md).
pub const YIELD_AFTER: Duration = Duration::from_micros(300);
/// A wait that took longer than this slept, and the worker's run starts
/// again; a wait that finds an event ready returns in a microsecond or two.
const SLEPT_AFTER: Duration = Duration::from_micros(30);
/// Sweeps without other processes wanting the cores (half a second at the
/// sweep's 100 ms) before the workers yield.
pub const CALM_SWEEPS: u32 = 5;

/// What the workers share to decide.
pub struct Courtesy {
    /// The workers' thread ids.
    workers: Mutex<Vec<i32>>,
    /// Sweeps that found fewer other runnable threads than cores, less
    /// `CALM_SWEEPS` for each that found as many (at most twice that).
    calm: AtomicU32,
    cores: usize,
}

impl Courtesy {
    pub fn new() -> Courtesy {
        Courtesy {
            workers: Mutex::new(Vec::new()),
            calm: AtomicU32::new(0),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }

    /// At a sweep: reads how many threads the machine is running now.
    pub fn look(&self) {
        if let Some(running) = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|text| runnable(&text))
        {
            self.count(running.saturating_sub(self.workers_running()));
        }
    }

    /// How many workers are running or ready to run.
    fn workers_running(&self) -> usize {
        let workers = self.workers.lock().unwrap_or_else(|p| p.into_inner());
        workers
            .iter()
            .filter(|tid| {
                std::fs::read_to_string(format!("/proc/self/task/{tid}/stat"))
                    .is_ok_and(|stat| state(&stat) == Some('R'))
            })
            .count()
    }

    /// Counts a sweep that found `others` runnable threads besides the
    /// workers.
    fn count(&self, others: usize) {
        let calm = self.calm.load(Ordering::Relaxed);
        let calm = if others >= self.cores {
            calm.saturating_sub(CALM_SWEEPS)
        } else {
            (calm + 1).min(2 * CALM_SWEEPS)
        };
        self.calm.store(calm, Ordering::Relaxed);
    }

    fn yields(&self) -> bool {
        self.calm.load(Ordering::Relaxed) >= CALM_SWEEPS
    }
}

/// The runnable threads in /proc/loadavg's text ("0.52 0.58 0.59 3/180 42").
fn runnable(loadavg: &str) -> Option<usize> {
    let (running, _) = loadavg.split_whitespace().nth(3)?.split_once('/')?;
    running.parse().ok()
}

/// A thread's state in its /proc stat line: the letter after the name,
/// which is in parentheses and may hold any character.
fn state(stat: &str) -> Option<char> {
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

/// One worker's run since it last slept.
pub struct Run {
    since: Instant,
}

impl Run {
    /// The run of the worker on this thread, which `courtesy` now knows.
    pub fn new(courtesy: &Courtesy) -> Run {
        // SAFETY: takes nothing; returns the calling thread's id.
        let tid = unsafe { libc::gettid() };
        let mut workers = courtesy.workers.lock().unwrap_or_else(|p| p.into_inner());
        workers.push(tid);
        Run {
            since: Instant::now(),
        }
    }

    /// Before a wait: yields when the run is long enough and yielding is
    /// on. Returns when the wait is asked.
    pub fn before_wait(&mut self, courtesy: &Courtesy) -> Instant {
        let asked = Instant::now();
        if asked - self.since >= YIELD_AFTER && courtesy.yields() {
            // SAFETY: takes nothing, and cannot fail on Linux.
            unsafe { libc::sched_yield() };
            self.since = Instant::now();
        }
        asked
    }

    /// After the wait asked at `asked` returned.
    pub fn after_wait(&mut self, asked: Instant) {
        if asked.elapsed() > SLEPT_AFTER {
            self.since = Instant::now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_threads_state_whatever_its_name() {
        assert_eq!(state("42 (worker-0) R 1 2 3"), Some('R'));
        assert_eq!(state("42 (a) b) S 1 2 3"), Some('S'));
        assert_eq!(state("42 (x"), None);
    }

    #[test]
    fn reads_the_runnable_threads_of_loadavg() {
        assert_eq!(runnable("0.52 0.58 0.59 3/180 4242\n"), Some(3));
        assert_eq!(runnable("0.52 0.58"), None);
        assert_eq!(runnable("1 2 3 x/180 4"), None);
    }

    #[test]
    fn yields_only_after_sweeps_without_other_busy_processes() {
        let c = Courtesy {
            workers: Mutex::new(Vec::new()),
            calm: AtomicU32::new(0),
            cores: 2,
        };
        // One other thread (the client) beside the workers: calm.
        for _ in 0..CALM_SWEEPS - 1 {
            c.count(1);
            assert!(!c.yields(), "not before CALM_SWEEPS calm sweeps");
        }
        c.count(1);
        assert!(c.yields());
        // After a long calm, one sweep that finds two other threads wanting
        // the two cores leaves it on; a second in a row turns it off.
        (0..CALM_SWEEPS).for_each(|_| c.count(0));
        c.count(2);
        assert!(c.yields());
        c.count(2);
        assert!(!c.yields());
        // Beside two busy processes, every sweep finds them: never on.
        (0..3 * CALM_SWEEPS).for_each(|i| c.count(if i % 2 == 0 { 3 } else { 0 }));
        assert!(!c.yields());
    }
}
