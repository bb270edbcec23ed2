//! The watcher's look and the one request that may wait for it: served
//! when asked, one waiter at a time, `MAX_WAIT` at most, and none once the
//! watcher is closed.

use super::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// A period no test waits for: every look it sees is asked for.
const NEVER: Duration = Duration::from_secs(3600);

/// Waits until a request is waiting.
fn until_waiting(check: &SharedCheck) {
    while !check.rounds().waiting {
        std::thread::yield_now();
    }
}

#[test]
fn an_asked_look_runs_at_once_and_the_request_sees_it_finish() {
    let check = SharedCheck::new();
    let looks = AtomicUsize::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            check.serve(NEVER, |why| {
                assert_eq!(why, Look::Asked);
                looks.fetch_add(1, Ordering::SeqCst);
            })
        });
        assert!(check.ask(NEVER), "a look that started after the ask");
        assert!(check.ask(NEVER), "and another for the next request");
        check.close();
    });
    assert_eq!(looks.load(Ordering::SeqCst), 2);
}

#[test]
fn a_look_under_way_when_asked_is_not_taken_for_the_one_wanted() {
    let check = SharedCheck::new();
    let (started, release) = (mpsc::channel(), mpsc::channel::<()>());
    let release_rx = Mutex::new(release.1);
    let looks = AtomicUsize::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            check.serve(NEVER, |_| {
                looks.fetch_add(1, Ordering::SeqCst);
                started.0.send(()).unwrap();
                release_rx.lock().unwrap().recv().unwrap();
            })
        });
        // The first look is asked by a request that gives up at once.
        assert!(!check.ask(Duration::ZERO));
        started.1.recv().unwrap();
        let asker = s.spawn(|| check.ask(NEVER));
        until_waiting(&check);
        release.0.send(()).unwrap();
        started.1.recv().unwrap();
        release.0.send(()).unwrap();
        assert!(asker.join().unwrap(), "seen once the second look ended");
        check.close();
    });
    assert_eq!(looks.load(Ordering::SeqCst), 2);
}

#[test]
fn while_one_request_waits_another_does_not() {
    let check = SharedCheck::new();
    let (started, release) = (mpsc::channel(), mpsc::channel::<()>());
    let release_rx = Mutex::new(release.1);
    std::thread::scope(|s| {
        s.spawn(|| {
            check.serve(NEVER, |_| {
                started.0.send(()).unwrap();
                release_rx.lock().unwrap().recv().unwrap();
            })
        });
        let first = s.spawn(|| check.ask(NEVER));
        started.1.recv().unwrap();
        until_waiting(&check);
        let other = Instant::now();
        assert!(!check.ask(NEVER), "a second request does not wait");
        assert!(other.elapsed() < MAX_WAIT, "nor sleeps");
        release.0.send(()).unwrap();
        assert!(first.join().unwrap(), "the first saw its look");
        check.close();
    });
}

#[test]
fn a_request_waits_for_a_slow_look_until_the_limit_only() {
    let check = SharedCheck::new();
    let release = mpsc::channel::<()>();
    let release_rx = Mutex::new(release.1);
    std::thread::scope(|s| {
        s.spawn(|| {
            check.serve(NEVER, |_| {
                // A store that does not answer: a look far longer than MAX_WAIT.
                let _ = release_rx.lock().unwrap().recv();
            })
        });
        let asked = Instant::now();
        assert!(!check.ask(MAX_WAIT), "the look did not finish");
        let waited = asked.elapsed();
        assert!(waited >= MAX_WAIT, "waited {waited:?}, the whole limit");
        assert!(
            waited < MAX_WAIT * 10,
            "waited {waited:?}, not for the look"
        );
        assert!(!check.rounds().waiting, "the next request may wait");
        release.0.send(()).unwrap();
        check.close();
    });
}

#[test]
fn ticks_come_each_period_without_asking() {
    let check = SharedCheck::new();
    let ticks = AtomicUsize::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            check.serve(Duration::from_millis(1), |why| {
                assert_eq!(why, Look::Tick);
                ticks.fetch_add(1, Ordering::SeqCst);
            })
        });
        while ticks.load(Ordering::SeqCst) < 3 {
            std::thread::yield_now();
        }
        check.close();
    });
}

#[test]
fn once_closed_the_watcher_ends_and_no_request_waits() {
    let check = SharedCheck::new();
    check.close();
    check.serve(NEVER, |_| panic!("no look once closed"));
    assert!(!check.ask(NEVER));
}

#[test]
fn a_look_that_panics_leaves_no_request_waiting() {
    let check = SharedCheck::new();
    std::thread::scope(|s| {
        let watcher = s.spawn(|| check.serve(NEVER, |_| panic!("the store failed")));
        assert!(check.ask(NEVER), "the look ended, if badly");
        assert!(watcher.join().is_err());
    });
}
