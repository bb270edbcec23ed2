//! Issue 4, in-process: a database that fails answers 503 service_unavailable
//! with Retry-After (never 500), and the server recovers by itself once the
//! file is back: removed then put back by rename, overwritten in place with
//! garbage then restored, and held under an exclusive lock then released; with
//! a hot journal, until any area-scoring command that writes has rolled it back.

mod common;

use std::fs;
use std::time::Duration;

use common::bin::*;
use common::client::*;
use common::server::*;
use common::*;

const TIMEOUT: Duration = Duration::from_secs(10);

fn assert_503(r: &Reply) {
    assert_error_shape(r, 503, "service_unavailable");
    let retry: u64 = r
        .header("Retry-After")
        .expect("Retry-After")
        .parse()
        .expect("whole seconds");
    assert!(retry >= 1);
}

/// Polls `target` until it answers `status`, within `limit`; returns that reply.
fn until_status(
    addr: std::net::SocketAddr,
    target: &str,
    key: Option<&str>,
    status: u16,
    limit: Duration,
) -> Reply {
    let mut last = None;
    within(limit, || {
        let r = get(addr, target, key);
        assert!(
            r.status == status || r.status == 200 || r.status == 503,
            "unexpected {} while waiting for {status}: {}",
            r.status,
            String::from_utf8_lossy(&r.body)
        );
        let hit = (r.status == status).then(|| r.clone());
        last = Some(r);
        hit
    })
    .unwrap_or_else(|| {
        let last = last.map(|r| {
            (
                r.status,
                String::from_utf8_lossy(&r.body)
                    .chars()
                    .take(200)
                    .collect::<String>(),
            )
        });
        panic!("no {status} from {target} in {limit:?}; last {last:?}")
    })
}

#[test]
fn a_removed_file_answers_503_until_it_is_renamed_back() {
    let db = fresh_db("removed");
    let (_, key) = new_key(&db, Plan::Growth);
    let server = start(&db, 2, TIMEOUT);
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
fn a_file_overwritten_with_garbage_answers_503_and_recovers_when_restored() {
    let db = fresh_db("garbage");
    let (_, key) = new_key(&db, Plan::Growth);
    let server = start(&db, 2, TIMEOUT);
    let addr = server.addr();
    assert_eq!(get(addr, "/v1/areas", Some(&key)).status, 200);
    let good = fs::read(&db).unwrap();
    // Same inode, so no reload is triggered: the open connections read garbage.
    let garbage: Vec<u8> = (0..good.len()).map(|i| (i * 7 + 13) as u8).collect();
    fs::write(&db, &garbage).unwrap();
    for target in ["/v1/areas", "/v1/areas/search?q=cape", "/v1/areas/x"] {
        assert_503(&until_status(
            addr,
            target,
            Some(&key),
            503,
            Duration::from_secs(3),
        ));
    }
    assert_503(&get(addr, "/healthz", None));
    fs::write(&db, &good).unwrap();
    until_status(addr, "/v1/areas", Some(&key), 200, Duration::from_secs(3));
    // Valid header and schema page over corrupt table pages (SQLITE_CORRUPT
    // rather than NOTADB). The header's change counter is bumped as a writer
    // would, or the connections' page caches would hide the damage.
    let mut corrupt = good.clone();
    corrupt[4096..].copy_from_slice(&garbage[4096..]);
    corrupt[27] = corrupt[27].wrapping_add(1);
    fs::write(&db, &corrupt).unwrap();
    assert_503(&until_status(
        addr,
        "/v1/areas",
        Some(&key),
        503,
        Duration::from_secs(3),
    ));
    fs::write(&db, &good).unwrap();
    until_status(addr, "/v1/areas", Some(&key), 200, Duration::from_secs(3));
    assert_eq!(get(addr, "/healthz", None).status, 200);
}

#[test]
fn a_locked_file_answers_503_after_the_busy_timeout_and_recovers_on_unlock() {
    let db = fresh_db("locked");
    let (_, key) = new_key(&db, Plan::Growth);
    let server = start(&db, 2, TIMEOUT);
    let addr = server.addr();
    assert_eq!(get(addr, "/v1/areas", Some(&key)).status, 200);
    // A writer that holds an exclusive lock with a pending write, as a stuck
    // `keys create` or a careless operator would.
    let writer = area_scoring::data::db::open_writable(&db).unwrap();
    writer
        .execute_batch("BEGIN EXCLUSIVE; UPDATE plans SET rank = rank WHERE name = 'free';")
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

/// A writer killed mid-commit leaves a hot journal, which the server's
/// read-only connections cannot roll back: 503 (it was 500), and 200 again
/// once a command that opens the file read-write (here `keys list`) has.
#[test]
fn a_hot_journal_answers_503_until_a_command_rolls_it_back() {
    let db = fresh_db("hot-journal");
    let (_, key) = new_key(&db, Plan::Growth);
    let server = start(&db, 2, TIMEOUT);
    let addr = server.addr();
    assert_eq!(get(addr, "/v1/areas", Some(&key)).status, 200);
    db::leave_hot_journal(&db);
    assert_503(&get(addr, "/v1/areas", Some(&key)));
    let listed = run(
        &["keys", "list", "--db", db.to_str().unwrap()],
        &[],
        std::path::Path::new("/"),
    );
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    assert_eq!(get(addr, "/v1/areas", Some(&key)).status, 200);
}
