//! A database that fails for a while, in-process, where the test bounds the
//! time: a removed file answers 503 within the file watcher's look (every
//! second) and 200 again once renamed back; a writer's lock on the served
//! file holds no read (the file is read as immutable), and what it commits in
//! place is noticed and reloaded (docs/api.md "Errors", "Data: init, import,
//! reload").

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
fn a_writers_lock_holds_no_read_and_its_commit_in_place_is_reloaded() {
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
    assert_eq!(get(addr, "/v1/areas", Some(&key)).status, 200);
    // Well inside the busy timeout (2 s) a locked read would have waited out.
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    writer.execute_batch("COMMIT").unwrap();
    drop(writer);
    // The commit wrote the file in place: until the watcher has reloaded it,
    // answers are 200 or 503, never anything else.
    let mut statuses = std::collections::BTreeSet::new();
    let reloaded = crate::common::wait::within(Duration::from_secs(3), || {
        let s = get(addr, "/v1/areas", Some(&key)).status;
        statuses.insert(s);
        (s == 200 && started.elapsed() > Duration::from_millis(1200)).then_some(())
    });
    assert!(reloaded.is_some(), "statuses {statuses:?}");
    assert!(
        statuses.iter().all(|s| [200, 503].contains(s)),
        "{statuses:?}"
    );
    assert_eq!(get(addr, "/healthz", None).status, 200);
}
