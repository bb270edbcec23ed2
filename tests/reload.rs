//! Live reload against the real binary (README "Data: init, import,
//! reload"): a change made in place is noticed by the file watcher (size and
//! modification time) and reloaded once the file is valid, and SIGHUP reads
//! the file again; a file that
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
fn a_change_made_in_place_is_noticed_and_reloaded_when_valid() {
    let (db, _key, server) = Served::spawn_keyed("inplace", Plan::Starter, &[]);
    let areas = || get(server.addr, "/healthz", None).json()["areas"].as_i64();
    assert_eq!(areas(), Some(938));
    server.signal("HUP");
    within(Duration::from_secs(5), || {
        server.logged("reloaded").then_some(())
    })
    .expect("SIGHUP reads the file again");
    assert_eq!(areas(), Some(938));
    // Same file, same inode, a new size and time: the served connections read
    // it as immutable, so the watcher stops serving it and reloads it.
    sql(
        &db,
        "INSERT INTO areas (area_no, id, name, province_slug, province, municipality, lat, lng, truth_score, updated_at)
         VALUES (100000, 'za-inplace', 'In Place', 'gauteng', 'Gauteng', 'Nowhere', -26.0, 28.0, 5.0, '2026-11-01T00:00:00Z')",
    );
    within(Duration::from_secs(5), || {
        (areas() == Some(939)).then_some(())
    })
    .expect("the watcher reloads a file changed in place, within its second");
    assert!(server.logged("changed in place"));
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
