//! A database that fails for a while, in-process, where the test bounds the
//! time: a removed file answers 503 within the file watcher's look (every
//! second) and 200 again once renamed back; a file locked by a writer answers
//! 503 only after waiting out the busy timeout (README "Errors", "Data:
//! init, import, reload").

use std::fs;
use std::time::Duration;

use crate::common::client::*;
use crate::common::server::*;
use crate::common::wait::until_status;
use crate::common::*;
use crate::serial;

#[test]
fn a_removed_file_answers_503_until_it_is_renamed_back() {
    let _serial = serial();
    let (db, key, server) = start_keyed("removed", Plan::Growth);
    let addr = server.addr();
    assert_eq!(get(addr, "/v1/areas", Some(&key)).status, 200);
    let aside = db.with_file_name("aside.db");
    fs::copy(&db, &aside).unwrap();
    fs::remove_file(&db).unwrap();
    // The file watcher looks every second.
    let r = until_status(addr, "/v1/areas", Some(&key), 503, Duration::from_secs(3));
    assert_503(&r);
    assert_503(&get(addr, "/healthz", None));
    assert_503(&get(addr, "/v1/areas/search?q=cape", Some(&key)));
    fs::rename(&aside, &db).unwrap();
    until_status(addr, "/v1/areas", Some(&key), 200, Duration::from_secs(3));
    assert_eq!(get(addr, "/healthz", None).status, 200);
}

#[test]
fn a_locked_file_answers_503_after_the_busy_timeout_and_recovers_on_unlock() {
    let _serial = serial();
    let (db, key, server) = start_keyed("locked", Plan::Growth);
    let addr = server.addr();
    assert_eq!(get(addr, "/v1/areas", Some(&key)).status, 200);
    // A writer that holds an exclusive lock with a pending write, as a stuck
    // `keys create` or a careless operator would.
    let writer = area_scoring::data::db::open_writable(&db).unwrap();
    writer
        .execute_batch("BEGIN EXCLUSIVE; UPDATE areas SET name = name WHERE area_no = 1;")
        .unwrap();
    let started = std::time::Instant::now();
    let r = get(addr, "/v1/areas", Some(&key));
    assert_503(&r);
    // It waited for the lock first (the busy timeout) rather than failing at once.
    assert!(
        started.elapsed() >= Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    writer.execute_batch("COMMIT").unwrap();
    drop(writer);
    assert_eq!(get(addr, "/v1/areas", Some(&key)).status, 200);
    assert_eq!(get(addr, "/healthz", None).status, 200);
}
