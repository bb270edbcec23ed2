//! Live reload under load, against the real binary (docs/operations.md "Data: init,
//! import, reload"): a new database renamed over the old one, alone or with
//! SIGHUP, is picked up while two clients hammer the server, with no failed
//! request, and the new data shows within the file watcher's look (every
//! second) with a margin.

use std::fs;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::common::bin::*;
use crate::common::wait::within;
use crate::common::*;
use crate::serial;

/// Hammers List Areas from two threads while `swap` runs, then until the new
/// total shows (within 3 s, else the test fails) and a few requests more.
/// Returns every total seen, in order, and every failure. The hammers stop
/// on that signal, never after a count of requests: how many a second is the
/// machine's speed, not the server's promise.
fn across_swap(addr: SocketAddr, key: &str, swap: impl FnOnce()) -> (Vec<u64>, Vec<String>) {
    let done = AtomicBool::new(false);
    let results: Vec<Result<u64, String>> = std::thread::scope(|s| {
        let hammers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut seen = Vec::new();
                    while !done.load(Ordering::SeqCst) {
                        seen.push(list_total(addr, key));
                    }
                    seen
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        swap();
        // The watcher looks every second; give it three, then a few more requests.
        let shown = within(Duration::from_secs(3), || {
            (list_total(addr, key) == Ok(100)).then_some(())
        });
        std::thread::sleep(Duration::from_millis(200));
        // Stop the hammers before failing, so the scope can end.
        done.store(true, Ordering::SeqCst);
        assert!(shown.is_some(), "the new data shows within 3 s of the swap");
        hammers
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let failures = results.iter().filter_map(|r| r.clone().err()).collect();
    (
        results.into_iter().filter_map(Result::ok).collect(),
        failures,
    )
}

fn assert_swapped(seen: &[u64], failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failed: {:?}",
        failures.len(),
        &failures[..failures.len().min(3)]
    );
    assert!(
        seen.len() > 20,
        "only {} requests across the swap",
        seen.len()
    );
    assert_eq!(seen.first(), Some(&938));
    assert_eq!(seen.last(), Some(&100), "new requests see the new data");
    assert!(seen.iter().all(|t| *t == 938 || *t == 100));
}

/// A new valid database with 100 areas, written beside `db` and renamed over it.
fn replace_with_small(db: &Path) {
    let staged = db.with_file_name("staged.db");
    small_db(&staged, 100);
    fs::rename(&staged, db).unwrap();
}

#[test]
fn a_renamed_file_is_picked_up_with_no_failed_request() {
    let _serial = serial();
    let (db, key, server) = Served::spawn_keyed("rename", Plan::Enterprise, &["--workers", "2"]);
    let (seen, failures) = across_swap(server.addr, &key, || replace_with_small(&db));
    assert_swapped(&seen, &failures);
    assert!(server.logged("reloaded"));
}

#[test]
fn a_renamed_file_and_sighup_swap_with_no_failed_request() {
    let _serial = serial();
    let (db, key, server) = Served::spawn_keyed("sighup", Plan::Enterprise, &["--workers", "2"]);
    let (seen, failures) = across_swap(server.addr, &key, || {
        replace_with_small(&db);
        server.signal("HUP");
    });
    assert_swapped(&seen, &failures);
}
