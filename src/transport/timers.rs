//! The readiness set's own two descriptors, a timer and an event, beside the
//! listeners and the connections. The tick: a timer (a timerfd) armed once when the layer starts, firing
//! every `TICK` for as long as it runs; one worker at a time takes its event
//! (one-shot) and sweeps the timeouts, so they are kept while every worker
//! waits, and no wait arms a timer of its own. The stop event (an eventfd): once set it
//! stays readable, level-triggered, so every waiting worker is woken in turn
//! and ends.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::time::Duration;

use super::epoll::checked;

/// A timer that fires every period, from its start.
pub struct Tick(File);

impl Tick {
    pub fn every(period: Duration) -> io::Result<Tick> {
        let flags = libc::TFD_NONBLOCK | libc::TFD_CLOEXEC;
        // SAFETY: takes no pointer; returns a new descriptor or -1.
        let fd = checked(unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, flags) })?;
        // SAFETY: `fd` was just opened and nothing else owns it.
        let file = File::from(unsafe { OwnedFd::from_raw_fd(fd) });
        let each = libc::timespec {
            tv_sec: period.as_secs() as libc::time_t,
            tv_nsec: period.subsec_nanos() as libc::c_long,
        };
        let spec = libc::itimerspec {
            it_interval: each,
            it_value: each,
        };
        // SAFETY: `spec` outlives the call; no old value is asked for.
        let fd = file.as_raw_fd();
        checked(unsafe { libc::timerfd_settime(fd, 0, &spec, std::ptr::null_mut()) })?;
        Ok(Tick(file))
    }

    /// Takes the firings counted so far: the timer is not ready again
    /// until the next.
    pub fn take(&self) {
        let _ = (&self.0).read(&mut [0u8; 8]);
    }
}

impl AsFd for Tick {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.0.as_fd()
    }
}

/// Readable for good once rung.
pub struct StopEvent(File);

impl StopEvent {
    pub fn new() -> io::Result<StopEvent> {
        let flags = libc::EFD_NONBLOCK | libc::EFD_CLOEXEC;
        // SAFETY: takes no pointer; returns a new descriptor or -1.
        let fd = checked(unsafe { libc::eventfd(0, flags) })?;
        // SAFETY: `fd` was just opened and nothing else owns it.
        Ok(StopEvent(File::from(unsafe { OwnedFd::from_raw_fd(fd) })))
    }

    pub fn set(&self) {
        let _ = (&self.0).write(&1u64.to_ne_bytes());
    }
}

impl AsFd for StopEvent {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.0.as_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::super::epoll::{Epoll, Interest};
    use super::*;
    use std::sync::Arc;
    use std::thread;
    use std::time::Instant;

    #[test]
    fn the_stop_event_wakes_every_waiter() {
        let set = Arc::new(Epoll::new().unwrap());
        let stop_event = StopEvent::new().unwrap();
        set.add_always(&stop_event, 3).unwrap();
        let waiters: Vec<_> = (0..4)
            .map(|_| {
                let set = set.clone();
                thread::spawn(move || set.wait_one().unwrap())
            })
            .collect();
        thread::sleep(Duration::from_millis(100));
        stop_event.set();
        for w in waiters {
            assert_eq!(w.join().unwrap(), Some(3));
        }
    }

    #[test]
    fn the_tick_fires_each_period_and_is_taken_once() {
        let set = Epoll::new().unwrap();
        let tick = Tick::every(Duration::from_millis(20)).unwrap();
        set.add(&tick, 2, Interest::Read).unwrap();
        let started = Instant::now();
        for _ in 0..3 {
            assert_eq!(set.wait_one().unwrap(), Some(2));
            tick.take();
            set.rearm(&tick, 2, Interest::Read).unwrap();
        }
        assert!(started.elapsed() >= Duration::from_millis(40));
    }
}
