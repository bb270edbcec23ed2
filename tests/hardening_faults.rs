//! A database that fails, in-process: it answers 503 service_unavailable with
//! Retry-After (never 500, docs/api.md "Errors"), and the server recovers by itself
//! once the file is good again: overwritten in place with garbage then
//! restored; with a hot journal, once any area-scoring command that writes
//! has rolled it back. A file removed, or locked by a writer:
//! tests/wall_clock/database_faults.rs.

use std::fs;
use std::time::Duration;

use crate::common::bin::*;
use crate::common::client::*;
use crate::common::server::*;
use crate::common::wait::until_status;
use crate::common::*;

#[test]
fn a_file_overwritten_with_garbage_answers_503_and_recovers_when_restored() {
    let (db, key, server) = start_keyed("garbage", Plan::Growth);
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

/// A writer killed mid-commit leaves a hot journal and a file it changed in
/// place. The served connections read the file as immutable and never look
/// at the journal: the change in place is what stops the file being served,
/// 503 (not 500: nothing is wrong with the server); the file cannot be
/// reloaded while the journal is hot, and is 200 again once a command that
/// opens the file read-write (here `keys list`) has rolled it back.
#[test]
fn a_hot_journal_answers_503_until_a_command_rolls_it_back() {
    let (db, key, server) = start_keyed("hot-journal", Plan::Growth);
    let addr = server.addr();
    assert_eq!(get(addr, "/v1/areas", Some(&key)).status, 200);
    db::leave_hot_journal(&db);
    // The pages the writer had written before it died: a new modification time.
    let file = fs::OpenOptions::new().write(true).open(&db).unwrap();
    let later = fs::metadata(&db).unwrap().modified().unwrap() + Duration::from_secs(1);
    file.set_modified(later).unwrap();
    drop(file);
    assert_503(&until_status(
        addr,
        "/v1/areas",
        Some(&key),
        503,
        Duration::from_secs(3),
    ));
    let listed = run(
        &["keys", "list", "--db", db.to_str().unwrap()],
        &[],
        std::path::Path::new("/"),
    );
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    until_status(addr, "/v1/areas", Some(&key), 200, Duration::from_secs(3));
}
