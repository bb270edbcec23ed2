//! Key changes against the real binary: `keys revoke` takes effect on a
//! running server within 5 s without a restart, and a key created or revoked
//! while `import` or `init --force` replaces the database file is never lost
//! (src/file_swap.rs). The replacement tests hold the old file's write lock
//! themselves, as the other side would, so that the race happens every run
//! rather than by chance.

mod common;

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use area_scoring::auth;
use area_scoring::domain::Plan;
use common::bin::{Served, command, run, text, within};
use common::client::get;
use common::{assert_error_shape, fresh_db, new_key, small_db};
use rusqlite::Connection;

#[test]
fn a_revoked_key_is_refused_within_5_s_without_restart() {
    let db = fresh_db("revoke");
    let (id, key) = new_key(&db, Plan::Growth);
    let (_, other) = new_key(&db, Plan::Growth);
    let server = Served::spawn(&db, &[]);
    assert_eq!(get(server.addr, "/v1/areas", Some(&key)).status, 200);
    let out = run(
        &["keys", "revoke", "--db", db.to_str().unwrap(), &id],
        &[],
        Path::new("/"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let refused = within(Duration::from_secs(5), || {
        let r = get(server.addr, "/v1/areas", Some(&key));
        (r.status == 401).then_some(r)
    })
    .expect("the revoked key still works after 5 s");
    assert_error_shape(&refused, 401, "invalid_api_key");
    // Only that key: another one on the same plan still works.
    assert_eq!(get(server.addr, "/v1/areas", Some(&other)).status, 200);
}

/// One valid area in the import's CSV format (docs/import.md).
const ONE_AREA_CSV: &str = "\
id,name,province,municipality,lat,lng,updated_at,safety,safety_weight,safety_sources
za-test-1,Testdorp,gauteng,Test Local Municipality,-26.1,28.0,2026-11-01,6.5,1,survey
";

fn key_ids(db: &Path) -> Vec<String> {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn.prepare("SELECT id FROM api_keys ORDER BY id").unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Waits for the child to exit and returns its stderr; it must succeed.
fn finished(mut child: Child, what: &str) -> String {
    let status = within(Duration::from_secs(60), || child.try_wait().unwrap())
        .unwrap_or_else(|| panic!("{what} did not finish within 60 s"));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(status.success(), "{what} failed: {err}");
    err
}

#[test]
fn a_key_being_created_while_import_replaces_the_file_is_carried_over() {
    let db = fresh_db("key-during-import");
    let csv = db.with_file_name("one.csv");
    fs::write(&csv, ONE_AREA_CSV).unwrap();

    // A key change in progress on the old file: written, not yet committed.
    let writer = Connection::open(&db).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    let (id, _key) = auth::create(&writer, Plan::Starter, "mid-import").unwrap();

    let args = [
        "import",
        "--db",
        db.to_str().unwrap(),
        csv.to_str().unwrap(),
    ];
    let mut import = command(&args, &[], Path::new("/"))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The import must wait for the key change before copying the keys.
    let mut stderr = BufReader::new(import.stderr.take().unwrap());
    let mut line = String::new();
    let mut said = String::new();
    while stderr.read_line(&mut line).unwrap() > 0 {
        said.push_str(&line);
        if line.contains("waiting for a key change") {
            break;
        }
        line.clear();
    }
    assert!(
        line.contains("waiting for a key change"),
        "import went ahead while a key was being written (that key would be lost): {said}"
    );
    writer.execute_batch("COMMIT").unwrap();
    import.stderr = Some(stderr.into_inner());
    let summary = finished(import, "import");
    assert!(summary.contains("imported 1 areas"), "{summary}");
    assert!(
        key_ids(&db).contains(&id),
        "the key created during the import is in the new file"
    );
}

/// Whether process `pid` has `file` open.
fn has_open(pid: u32, file: &Path) -> bool {
    let file = fs::canonicalize(file).unwrap();
    fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|fds| {
            fds.flatten()
                .any(|fd| fs::read_link(fd.path()).is_ok_and(|target| target == file))
        })
        .unwrap_or(false)
}

#[test]
fn a_key_created_while_the_file_is_renamed_over_lands_in_the_new_file() {
    let db = fresh_db("key-during-rename");
    let replacement = db.with_file_name("replacement.db");
    small_db(&replacement, 5, &db);

    // Hold the old file's write lock as init --force or import does while it
    // copies the keys and renames the new file into place.
    let replacer = Connection::open(&db).unwrap();
    replacer.execute_batch("BEGIN IMMEDIATE").unwrap();
    let args = [
        "keys",
        "create",
        "--db",
        db.to_str().unwrap(),
        "--plan",
        "free",
    ];
    let keys = command(&args, &[], Path::new("/"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    within(Duration::from_secs(30), || {
        has_open(keys.id(), &db).then_some(())
    })
    .expect("keys create opens the database");
    // Past its first look at the file and waiting for the lock.
    std::thread::sleep(Duration::from_millis(300));
    fs::rename(&replacement, &db).unwrap();
    replacer.execute_batch("ROLLBACK").unwrap();

    let said = finished(keys, "keys create");
    let id = said
        .split_whitespace()
        .find(|w| w.starts_with("key_"))
        .unwrap_or_else(|| panic!("keys create names the key: {said}"));
    assert!(
        key_ids(&db).contains(&id.to_string()),
        "the key is in the file the path names now, not in the replaced one: {}",
        text(said.as_bytes())
    );
}
