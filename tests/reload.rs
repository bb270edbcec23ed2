//! Live reload against the real binary (docs/operations.md "Data: init, import,
//! reload"): a change made in place is noticed by the file watcher (size and
//! modification time) and reloaded once the file is valid, and SIGHUP reads
//! the file again; a file that
//! is not a database of this schema is refused, logged, and the old data keeps
//! serving. A new file picked up under load within the watcher's second:
//! tests/wall_clock/reload.rs.

use std::fs;
use std::time::Duration;

use crate::common::bin::*;
use crate::common::client::*;
use crate::common::wait::within;
use crate::common::*;

#[test]
fn a_change_made_in_place_is_noticed_and_reloaded_when_valid() {
    let (db, _key, server) = Served::spawn_keyed("inplace", Plan::Starter, &[]);
    let areas = || get(server.addr, "/healthz", None).json()["areas"].as_i64();
    assert_eq!(areas(), Some(938));
    server.signal("HUP");
    assert!(server.logged("reloaded"), "SIGHUP reads the file again");
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

/// A reload asked for the moment the server says where it listens (a
/// service manager's reload right after the start) reloads; it does not
/// end the process by SIGHUP's default action.
#[test]
fn a_sighup_as_soon_as_the_server_listens_reloads_and_it_serves_on() {
    let (_db, _key, mut server) = Served::spawn_keyed("hup-at-once", Plan::Starter, &[]);
    server.signal("HUP");
    assert!(
        server.logged("reloaded"),
        "{:?}",
        server.log.lock().unwrap()
    );
    assert!(
        server.wait_exit(Duration::from_millis(200)).is_none(),
        "still running"
    );
    let health = get(server.addr, "/healthz", None);
    assert_eq!(health.json()["areas"].as_i64(), Some(938));
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
    // InvalidValues, then a real SQLite file without our application_id.
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

/// Waits for the line that ends the server's start, after its warnings.
fn started(server: &Served) {
    assert!(
        server.logged_within("live API keys", Duration::from_secs(10)),
        "the server logs its keys at start"
    );
}

/// The log lines that warn of a dataset's stored search words.
fn words_warnings(server: &Served) -> Vec<String> {
    let log = server.log.lock().unwrap();
    log.iter()
        .filter(|l| l.contains("WARN") && l.contains("search words"))
        .cloned()
        .collect()
}

#[test]
fn a_dataset_without_usable_stored_words_is_warned_of_at_start_and_on_every_reload() {
    let db = fresh_db("words-warning");
    let (_, key) = new_key(&db, Plan::Growth);
    {
        let server = Served::spawn(&db, &[]);
        started(&server);
        assert_eq!(
            words_warnings(&server),
            Vec::<String>::new(),
            "as init wrote it"
        );
    }
    sql(&db, "DELETE FROM word_store");
    let server = Served::spawn(&db, &[]);
    started(&server);
    let said = words_warnings(&server);
    assert_eq!(said.len(), 1, "{said:?}");
    let first = server.log.lock().unwrap()[0].clone();
    assert!(
        first.contains("listening on"),
        "the address still comes first: {first}"
    );
    let path = db.display().to_string();
    for remedy in [
        "holds no stored search words".to_string(),
        format!("area-scoring import --db {path} FILE"),
        format!("area-scoring init --force --db {path}"),
    ] {
        assert!(said[0].contains(&remedy), "{remedy:?} in {said:?}");
    }
    // A new file with the words of another layout: said again on its reload.
    let staged = db.with_file_name("staged.db");
    fs::copy(&db, &staged).unwrap();
    sql(
        &staged,
        "INSERT INTO word_store (layout, areas) SELECT 999999, count(*) FROM areas",
    );
    fs::rename(&staged, &db).unwrap();
    let both = within(Duration::from_secs(5), || {
        Some(words_warnings(&server)).filter(|w| w.len() == 2)
    })
    .expect("the reloaded file is warned of too");
    assert!(both[1].contains("layout 999999"), "{both:?}");
    assert_eq!(get_area_status(&server, &key), 200, "and it serves");
    // Put back by a rollback-like rename of a file as init writes it: no warning.
    let fixed = db.with_file_name("fixed.db");
    fs::copy(fresh_db("words-warning-fixed"), &fixed).unwrap();
    fs::rename(&fixed, &db).unwrap();
    let reloads = format!("reloaded {path}:");
    within(Duration::from_secs(5), || {
        let log = server.log.lock().unwrap();
        (log.iter().filter(|l| l.contains(&reloads)).count() == 2).then_some(())
    })
    .expect("the third file is reloaded");
    assert_eq!(
        words_warnings(&server).len(),
        2,
        "a file as init writes it says nothing"
    );
}

fn get_area_status(server: &Served, key: &str) -> u16 {
    server.get("/v1/areas/aberdeen", key).status
}

#[test]
fn a_dataset_holding_an_area_with_a_reserved_id_is_warned_of_at_start() {
    let db = fresh_db("reserved-id");
    // A file written before /v1/areas/at was a route could hold an area "at".
    sql(&db, "UPDATE areas SET id = 'at' WHERE id = 'soweto'");
    let server = Served::spawn(&db, &[]);
    started(&server);
    let warned = within(Duration::from_secs(5), || {
        let log = server.log.lock().unwrap();
        log.iter()
            .find(|l| l.contains("WARN") && l.contains("with the ids at"))
            .cloned()
    })
    .expect("the reserved id is warned of");
    assert!(warned.contains("Get Area cannot reach them"), "{warned}");
    assert!(warned.contains(&db.display().to_string()), "{warned}");
}
