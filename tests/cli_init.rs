//! The database file's life on the command line, the built binary run as a
//! user runs it (docs/operations.md "Data: init, import, reload", "Configuration"): init
//! refuses an existing file and --force replaces it keeping the keys; a file
//! of an older schema is refused by serve and rewritten by init --force or
//! import keeping the keys, one of a newer schema is left alone; serve on a
//! missing or foreign file exits 1 naming it, without a panic.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use crate::common::bin::{Served, command, create_key, ok, run, text};
use crate::common::scratch_dir;
use crate::common::wait::within;

/// Serves `db` and requires that `key` is still accepted.
fn assert_key_works(db: &str, dir: &Path, key: &str, why: &str) {
    let server = Served::start(&["--db", db], &[], dir);
    assert_eq!(server.get("/v1/areas?limit=1", key).status, 200, "{why}");
}

/// Sets the file's schema version, as an older or newer build would have.
fn set_schema_version(db: &Path, version: i64) {
    rusqlite::Connection::open(db)
        .unwrap()
        .execute_batch(&format!("PRAGMA user_version = {version}"))
        .unwrap();
}

/// `upgrade` says a current file is current and writes nothing.
#[test]
fn upgrade_leaves_a_current_file_alone() {
    let dir = scratch_dir("cli-upgrade-current");
    let db = dir.join("areas.db");
    let path = db.to_str().unwrap();
    ok(&["init", "--db", path]);
    let before = std::fs::read(&db).unwrap();
    let out = run(&["upgrade", path], &[], &dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("already current"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(&db).unwrap(), before, "nothing written");
}

#[test]
fn init_refuses_an_existing_file_and_force_replaces_it_keeping_keys() {
    let dir = scratch_dir("cli-init");
    let db = dir.join("areas.db");
    let path = db.to_str().unwrap();
    ok(&["init", "--db", path]);
    let key = create_key(&db, "growth", "kept");
    let before = std::fs::read(&db).unwrap();
    let out = run(&["init", "--db", path], &[], &dir);
    assert_eq!(out.status.code(), Some(1), "an existing file is refused");
    let err = text(&out.stderr);
    assert!(
        err.contains("--force") && err.contains(path),
        "a clear message: {err}"
    );
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the refused file is untouched"
    );
    ok(&["init", "--db", path, "--force"]);
    assert_key_works(path, &dir, &key, "the key survived --force");
}

/// A file from an older build (schema version 1) is refused by serve with a
/// message naming the way out, and that way out keeps the API keys.
#[test]
fn an_older_schema_is_refused_and_rewriting_it_keeps_the_keys() {
    let dir = scratch_dir("cli-upgrade");
    let db = dir.join("areas.db");
    let path = db.to_str().unwrap();
    ok(&["init", "--db", path]);
    let key = create_key(&db, "growth", "from-v1");
    set_schema_version(&db, 1);
    let out = run(&["serve", "--db", path, "--addr", "127.0.0.1:0"], &[], &dir);
    assert_eq!(out.status.code(), Some(1), "an old file is refused");
    let err = text(&out.stderr);
    assert!(
        err.contains("schema version 1") && err.contains(&format!("area-scoring upgrade {path}")),
        "the message says what to do: {err}"
    );
    ok(&["init", "--db", path, "--force"]);
    assert_key_works(
        path,
        &dir,
        &key,
        "the key survived init --force over a version-1 file",
    );
    // import takes the same way out.
    set_schema_version(&db, 1);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let example = root.join("seed/example-import.jsonl");
    // Seven areas in place of the seed's 938, as meant.
    ok(&[
        "import",
        "--allow-shrink",
        "--db",
        path,
        example.to_str().unwrap(),
    ]);
    assert_key_works(
        path,
        &dir,
        &key,
        "the key survived import over a version-1 file",
    );
    // A newer schema than this build knows: import refuses to replace it and
    // leaves it exactly as it was; init --force, told to, replaces it. The
    // keys, in their own file, are never at stake.
    set_schema_version(&db, 99);
    let before = std::fs::read(&db).unwrap();
    let out = run(
        &["import", "--db", path, example.to_str().unwrap()],
        &[],
        &dir,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&db).unwrap(), before, "untouched");
    ok(&["init", "--db", path, "--force"]);
    assert_key_works(path, &dir, &key, "the key works over the new file");
}

#[test]
fn serve_refuses_a_missing_or_foreign_file_with_exit_1_and_no_panic() {
    let dir = scratch_dir("cli-bad-db");
    let text_file = dir.join("notes.txt");
    std::fs::write(&text_file, "not a database at all\n").unwrap();
    let foreign = dir.join("other.sqlite");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    for db in [
        dir.join("missing.db"),
        dir.join("no-folder/areas.db"),
        text_file,
        foreign,
    ] {
        let mut child = command(
            &[
                "serve",
                "--addr",
                "127.0.0.1:0",
                "--db",
                db.to_str().unwrap(),
            ],
            &[],
            &dir,
        )
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
        if within(Duration::from_secs(20), || child.try_wait().unwrap()).is_none() {
            let _ = child.kill();
            panic!("serve kept running on {}", db.display());
        }
        let out = child.wait_with_output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {err}", db.display());
        assert!(err.contains(db.to_str().unwrap()), "names the file: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
            "no panic: {err}"
        );
    }
    // A start refused for want of a dataset writes nothing: no keys file (a
    // key made in it would work on no server) and no folder for one.
    assert!(!dir.join("no-folder").exists(), "no folder made");
    assert!(
        !dir.join("keys.db").exists(),
        "no keys file beside a missing dataset"
    );
}
