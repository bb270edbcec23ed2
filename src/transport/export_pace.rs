//! How slowly a client may take a streamed answer (the export), counted on
//! the wire: the bytes the kernel took from the stream thread's writes, over
//! the time the thread spent waiting in those writes. Time spent making the
//! body is the server's, so it never counts against the client; a client
//! that reads at any speed the server can write at never waits it at all.
//!
//! After `grace` of waiting, a client that took fewer than `min_rate` bytes
//! a second over the last `window` of waiting is too slow: its export is
//! closed, so that readers who trickle cannot hold the export slots.

use std::collections::VecDeque;
use std::time::Duration;

/// Bytes a second an export's client takes at least: 64 kbit/s. The
/// slowest mobile data still in use (2G EDGE) carries 100 to 200 kbit/s;
/// a reader that trickles to keep its slot must take 240 KiB a window.
pub const DEFAULT_MIN_RATE: u64 = 8 * 1024;
/// Waiting the rate is taken over: a phone's brief stalls average out in it
/// (one with nothing taken for `--client-timeout` closes anyway).
pub const DEFAULT_WINDOW: Duration = Duration::from_secs(30);
/// Waiting at the start before the rate is looked at: TCP's slow start, and
/// a client setting up where to save the download.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(30);
/// Waiting between two samples of the window.
const SAMPLE_EVERY: Duration = Duration::from_millis(250);

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pace {
    pub min_rate: u64,
    pub window: Duration,
    pub grace: Duration,
}

impl Default for Pace {
    fn default() -> Pace {
        Pace {
            min_rate: DEFAULT_MIN_RATE,
            window: DEFAULT_WINDOW,
            grace: DEFAULT_GRACE,
        }
    }
}

impl Pace {
    /// `RATE,WINDOW_MS,GRACE_MS`, for the tests of the rule, which cannot
    /// wait a minute.
    #[cfg(feature = "fault-injection")]
    pub fn parse(text: &str) -> Result<Pace, String> {
        let numbers: Vec<u64> = text
            .split(',')
            .map(|n| n.trim().parse::<u64>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("a pace is RATE,WINDOW_MS,GRACE_MS, not {text:?}"))?;
        match numbers[..] {
            [min_rate, window, grace] if window > 0 => Ok(Pace {
                min_rate,
                window: Duration::from_millis(window),
                grace: Duration::from_millis(grace),
            }),
            _ => Err(format!("a pace is RATE,WINDOW_MS,GRACE_MS, not {text:?}")),
        }
    }
}

/// What a client found too slow took, over how much waiting.
#[derive(Debug, PartialEq)]
pub struct TooSlow {
    pub took: u64,
    pub over: Duration,
}

/// One export's pace so far.
pub struct Watch {
    pace: Pace,
    /// Time spent in writes.
    waited: Duration,
    /// Bytes the kernel took.
    sent: u64,
    /// (waited, sent), oldest first: the first is the window's start.
    samples: VecDeque<(Duration, u64)>,
}

impl Watch {
    pub fn new(pace: Pace) -> Watch {
        Watch {
            pace,
            waited: Duration::ZERO,
            sent: 0,
            samples: VecDeque::from([(Duration::ZERO, 0)]),
        }
    }

    /// One write, which took `sent` bytes in `took`; Err once the client
    /// is too slow.
    pub fn wrote(&mut self, sent: usize, took: Duration) -> Result<(), TooSlow> {
        self.waited += took;
        self.sent += sent as u64;
        if self
            .samples
            .back()
            .is_none_or(|(at, _)| self.waited >= *at + SAMPLE_EVERY)
        {
            self.samples.push_back((self.waited, self.sent));
        }
        // The newest sample at least a window old starts the window.
        while self
            .samples
            .get(1)
            .is_some_and(|(at, _)| *at + self.pace.window <= self.waited)
        {
            self.samples.pop_front();
        }
        if self.waited < self.pace.grace {
            return Ok(());
        }
        let Some(&(from, then)) = self.samples.front() else {
            return Ok(());
        };
        let over = self.waited - from;
        let took = self.sent - then;
        if (took as f64) < self.pace.min_rate as f64 * over.as_secs_f64() {
            return Err(TooSlow { took, over });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    fn pace() -> Pace {
        Pace {
            min_rate: 1000,
            window: 10 * SECOND,
            grace: 5 * SECOND,
        }
    }

    /// Feeds `seconds` of one write a second, each taking `each` bytes.
    fn feed(w: &mut Watch, seconds: usize, each: usize) -> Result<(), TooSlow> {
        (0..seconds).try_for_each(|_| w.wrote(each, SECOND))
    }

    #[test]
    fn a_client_under_the_rate_is_too_slow_once_the_grace_has_passed() {
        let mut w = Watch::new(pace());
        assert_eq!(feed(&mut w, 4, 10), Ok(()), "within the grace");
        let verdict = w.wrote(10, SECOND).unwrap_err();
        assert_eq!((verdict.took, verdict.over), (50, 5 * SECOND));
    }

    #[test]
    fn a_burst_at_the_start_leaves_the_window_and_stops_counting() {
        let mut w = Watch::new(pace());
        w.wrote(1_000_000, Duration::from_millis(1)).unwrap();
        // Ten seconds later the burst is out of the window, and 500 bytes a
        // second is under the rate.
        assert_eq!(feed(&mut w, 10, 500), Ok(()));
        let verdict = w.wrote(500, SECOND).unwrap_err();
        assert!(
            verdict.over >= 10 * SECOND && verdict.took <= 5_500,
            "{verdict:?}"
        );
    }

    #[test]
    fn a_client_at_the_rate_and_time_making_the_body_are_never_too_slow() {
        let mut w = Watch::new(pace());
        assert_eq!(feed(&mut w, 120, 1000), Ok(()));
        // Writes that never wait add no waiting, however few their bytes.
        for _ in 0..100_000 {
            assert_eq!(w.wrote(1, Duration::from_micros(10)), Ok(()));
        }
    }

    #[test]
    fn a_client_that_stalls_then_catches_up_within_the_window_is_kept() {
        let mut w = Watch::new(pace());
        feed(&mut w, 20, 2000).unwrap();
        assert_eq!(
            feed(&mut w, 4, 0),
            Ok(()),
            "4 s stalled: 12 KB in the window"
        );
        assert_eq!(w.wrote(20_000, SECOND), Ok(()));
    }
}
