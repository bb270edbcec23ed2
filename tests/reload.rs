//! Live reload against the real binary (README "Data: init, import,
//! reload"): SIGHUP reloads a change the file watcher cannot see; a file that
//! is not a database of this schema is refused, logged, and the old data keeps
//! serving. A new file picked up under load within the watcher's second:
//! tests/wall_clock/reload.rs.

mod common;

use std::fs;
use std::time::Duration;

use common::bin::*;
use common::client::*;
use common::wait::within;
use common::*;

#[test]
fn sighup_reloads_a_change_made_in_place() {
    let (db, key, server) = Served::spawn_keyed("inplace", Plan::Starter, &[]);
    let limit = || {
        get(server.addr, "/v1/areas", Some(&key))
            .header("X-RateLimit-Limit")
            .map(String::from)
    };
    assert_eq!(limit().as_deref(), Some("600"));
    // Same file, same inode: the watcher does not reload; only SIGHUP does.
    sql(
        &db,
        "UPDATE plans SET requests_per_minute = 900 WHERE name = 'starter'",
    );
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        limit().as_deref(),
        Some("600"),
        "limits are read at load time"
    );
    server.signal("HUP");
    within(Duration::from_secs(5), || {
        (limit().as_deref() == Some("900")).then_some(())
    })
    .expect("SIGHUP applies the new plan limit");
}

#[test]
fn a_file_not_of_this_schema_is_refused_and_the_old_data_keeps_serving() {
    let (db, key, server) = Served::spawn_keyed("refuse", Plan::Enterprise, &[]);
    let refusals = || {
        server
            .log
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains("refused"))
            .count()
    };
    let staged = db.with_file_name("staged.db");
    // Garbage, then a real SQLite file without our application_id.
    fs::write(
        &staged,
        b"this is not a database at all, not even close".repeat(100),
    )
    .unwrap();
    fs::rename(&staged, &db).unwrap();
    within(Duration::from_secs(5), || (refusals() >= 1).then_some(()))
        .expect("garbage refused and logged");
    assert_eq!(list_total(server.addr, &key), Ok(938));
    let plain = rusqlite::Connection::open(&staged).unwrap();
    plain
        .execute_batch("CREATE TABLE areas (id TEXT); INSERT INTO areas VALUES ('x');")
        .unwrap();
    drop(plain);
    fs::rename(&staged, &db).unwrap();
    within(Duration::from_secs(5), || (refusals() >= 2).then_some(()))
        .expect("plain SQLite refused and logged");
    assert_eq!(list_total(server.addr, &key), Ok(938));
    server.signal("HUP");
    within(Duration::from_secs(5), || (refusals() >= 3).then_some(()))
        .expect("SIGHUP refusal logged");
    for _ in 0..20 {
        assert_eq!(
            list_total(server.addr, &key),
            Ok(938),
            "old data keeps serving"
        );
    }
    assert_eq!(get(server.addr, "/healthz", None).status, 200);
}
