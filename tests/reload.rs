//! Issue 4, against the real binary: live reload. A new database renamed over
//! the old one is picked up while a client hammers the server, with no failed
//! request and the new data visible afterwards; SIGHUP reloads a change the
//! file watcher cannot see; a file that is not a database of this schema is
//! refused, logged, and the old data keeps serving.

mod common;

use std::fs;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::bin::*;
use common::client::*;
use common::*;

/// The `total` List Areas reports, or why there is none.
fn total(addr: SocketAddr, key: &str) -> Result<u64, String> {
    let r = exchange(
        addr,
        &get_request(
            "/v1/areas?limit=3",
            &[format!("Authorization: Bearer {key}")],
        ),
    )
    .map_err(|e| e.to_string())?;
    if r.status != 200 {
        return Err(format!("{} {}", r.status, String::from_utf8_lossy(&r.body)));
    }
    r.json()["total"].as_u64().ok_or("no total".into())
}

/// Hammers List Areas from two threads while `swap` runs, then until the new
/// total shows (bounded). Returns every total seen, in order, and every failure.
fn across_swap(addr: SocketAddr, key: &str, swap: impl FnOnce()) -> (Vec<u64>, Vec<String>) {
    let done = AtomicBool::new(false);
    let results: Vec<Result<u64, String>> = std::thread::scope(|s| {
        let hammers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut seen = Vec::new();
                    for _ in 0..3000 {
                        seen.push(total(addr, key));
                        if done.load(Ordering::SeqCst) {
                            break;
                        }
                    }
                    seen
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        swap();
        // The watcher looks every second; give it three, then a few more requests.
        within(Duration::from_secs(3), || {
            (total(addr, key) == Ok(100)).then_some(())
        });
        std::thread::sleep(Duration::from_millis(200));
        done.store(true, Ordering::SeqCst);
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
    small_db(&staged, 100, db);
    fs::rename(&staged, db).unwrap();
}

#[test]
fn a_renamed_file_is_picked_up_with_no_failed_request() {
    let db = fresh_db("rename");
    let (_, key) = new_key(&db, Plan::Enterprise);
    let server = Served::spawn(&db, &["--workers", "2"]);
    let (seen, failures) = across_swap(server.addr, &key, || replace_with_small(&db));
    assert_swapped(&seen, &failures);
    assert!(server.logged("reloaded"));
}

#[test]
fn a_renamed_file_and_sighup_swap_with_no_failed_request() {
    let db = fresh_db("sighup");
    let (_, key) = new_key(&db, Plan::Enterprise);
    let server = Served::spawn(&db, &["--workers", "2"]);
    let (seen, failures) = across_swap(server.addr, &key, || {
        replace_with_small(&db);
        server.signal("HUP");
    });
    assert_swapped(&seen, &failures);
}

#[test]
fn sighup_reloads_a_change_made_in_place() {
    let db = fresh_db("inplace");
    let (_, key) = new_key(&db, Plan::Starter);
    let server = Served::spawn(&db, &[]);
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
    let db = fresh_db("refuse");
    let (_, key) = new_key(&db, Plan::Enterprise);
    let server = Served::spawn(&db, &[]);
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
    assert_eq!(total(server.addr, &key), Ok(938));
    let plain = rusqlite::Connection::open(&staged).unwrap();
    plain
        .execute_batch("CREATE TABLE areas (id TEXT); INSERT INTO areas VALUES ('x');")
        .unwrap();
    drop(plain);
    fs::rename(&staged, &db).unwrap();
    within(Duration::from_secs(5), || (refusals() >= 2).then_some(()))
        .expect("plain SQLite refused and logged");
    assert_eq!(total(server.addr, &key), Ok(938));
    server.signal("HUP");
    within(Duration::from_secs(5), || (refusals() >= 3).then_some(()))
        .expect("SIGHUP refusal logged");
    for _ in 0..20 {
        assert_eq!(total(server.addr, &key), Ok(938), "old data keeps serving");
    }
    assert_eq!(get(server.addr, "/healthz", None).status, 200);
}
