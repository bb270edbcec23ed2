//! `area-scoring restore DIR` against the real binary (docs/deployment.md,
//! "Backups and restore"): the usage comes back row for row even with a
//! stale WAL beside the live file, a key revoked since the backup works
//! again and was listed first, a running server is named and refused, a
//! file of the wrong kind changes nothing, nor does a dataset of an older
//! layout until `upgrade` has rewritten the backup's copy, a restore that
//! undoes nothing needs no --yes, and with Redis only the dataset is restored.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use crate::common::bin::{Served, create_key, ok, run, text};
use crate::common::{keys_path, scratch_dir};
use rusqlite::types::Value;
use rusqlite::{Connection, OpenFlags};

/// A dataset of 30 generated areas, made by `init`, in a folder of its own.
fn small_dataset(name: &str) -> PathBuf {
    let db = scratch_dir(name).join("areas.db");
    ok(&[
        "init",
        "--synthetic",
        "30",
        "--history-days",
        "1",
        "--db",
        db.to_str().unwrap(),
    ]);
    db
}

/// The binary with `args` and `--db db`.
fn with_db(db: &Path, args: &[&str]) -> Output {
    let mut all = args.to_vec();
    all.extend(["--db", db.to_str().unwrap()]);
    run(&all, &[], Path::new("/"))
}

fn backup(db: &Path) -> PathBuf {
    let dir = db.with_file_name("backup");
    let out = with_db(db, &["backup", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    dir
}

fn restore(db: &Path, dir: &Path, yes: bool) -> Output {
    let mut args = vec!["restore", dir.to_str().unwrap()];
    if yes {
        args.push("--yes");
    }
    with_db(db, &args)
}

/// Serves `db`, sends `requests` with each key, and stops the server so
/// that it writes the usage it counted.
fn serve_requests(db: &Path, keys: &[&str], requests: usize) {
    let mut server = Served::spawn(db, &[]);
    for key in keys {
        for _ in 0..requests {
            server.get("/v1/areas", key);
        }
    }
    server.signal("TERM");
    server.wait_exit(Duration::from_secs(10)).expect("stops");
}

/// Every row of the usage tables (by day, and by hour), as a server reads
/// the file (its WAL too).
fn usage_rows(path: &Path) -> BTreeMap<(String, String), Vec<Value>> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut rows = BTreeMap::new();
    for (table, period) in [("usage", "day"), ("usage_hours", "hour")] {
        let mut stmt = conn.prepare(&format!("SELECT * FROM {table}")).unwrap();
        let columns = stmt.column_count();
        let read = stmt
            .query_map([], |r| {
                let values: Vec<Value> =
                    (0..columns).map(|i| r.get(i)).collect::<Result<_, _>>()?;
                let at: String = r.get(period)?;
                Ok(((r.get("key_id")?, format!("{table} {at}")), values))
            })
            .unwrap();
        for row in read {
            let (at, values) = row.unwrap();
            rows.insert(at, values);
        }
    }
    rows
}

/// Leaves beside the usage file a WAL holding `rows` more key-days, as a
/// crashed server's would be: written with checkpoints off, copied before
/// the connection closes, and put back after.
fn leave_stale_wal(usage: &Path, rows: usize) {
    let wal = PathBuf::from(format!("{}-wal", usage.display()));
    let conn = Connection::open(usage).unwrap();
    conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    for n in 0..rows {
        conn.execute(
            "INSERT INTO usage (key_id, day) VALUES (?1, '2026-01-01')",
            [format!("key_stale{n}")],
        )
        .unwrap();
    }
    let kept = fs::read(&wal).expect("a WAL while the connection is open");
    drop(conn);
    fs::write(&wal, kept).unwrap();
}

fn key_id(db: &Path, label: &str) -> String {
    let out = with_db(db, &["keys", "list", "--format", "csv"]);
    let stdout = text(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.contains(label))
        .expect("the key listed");
    line.split(',').next().unwrap().to_string()
}

#[test]
fn a_restore_gives_back_the_backup_row_for_row_and_the_keys_revoked_since() {
    let db = small_dataset("restore-exact");
    let kept = create_key(&db, "growth", "kept");
    let revoked = create_key(&db, "free", "revoked later");
    serve_requests(&db, &[&kept, &revoked], 3);
    let dir = backup(&db);
    let backed_up = usage_rows(&dir.join("keys-usage.db"));
    assert!(!backed_up.is_empty(), "the backup holds usage");

    // Since the backup: more usage, a revoke, and a stale WAL.
    serve_requests(&db, &[&kept], 5);
    let id = key_id(&db, "revoked later");
    let out = with_db(&db, &["keys", "revoke", &id]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let usage = keys_path(&db).with_file_name("keys-usage.db");
    leave_stale_wal(&usage, 200);

    let asked = restore(&db, &dir, false);
    let said = text(&asked.stderr);
    assert_eq!(asked.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "{id} (\"revoked later\"): revoked since the backup"
        )),
        "{said}"
    );
    assert!(said.contains("--yes"), "{said}");
    assert!(
        usage.with_file_name("keys-usage.db-wal").exists(),
        "nothing changed yet"
    );

    let done = restore(&db, &dir, true);
    assert!(done.status.success(), "{}", text(&done.stderr));
    assert!(!usage.with_file_name("keys-usage.db-wal").exists());
    assert_eq!(
        usage_rows(&usage),
        backed_up,
        "the backup's usage, row for row"
    );
    let server = Served::spawn(&db, &[]);
    assert_eq!(
        server.get("/v1/areas", &revoked).status,
        200,
        "the key works again"
    );
}

#[test]
fn a_restore_is_refused_while_a_server_uses_the_keys_file_naming_it() {
    let db = small_dataset("restore-served");
    let key = create_key(&db, "free", "t");
    let dir = backup(&db);
    let keys_before = fs::read(keys_path(&db)).unwrap();
    let server = Served::spawn(&db, &[]);
    assert_eq!(server.get("/v1/areas", &key).status, 200);
    let out = restore(&db, &dir, true);
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!("pid {}", server.child.id())),
        "{said}"
    );
    assert!(said.contains("stop "), "{said}");
    assert_eq!(
        fs::read(keys_path(&db)).unwrap(),
        keys_before,
        "nothing changed"
    );
    drop(server);
    let out = restore(&db, &dir, true);
    assert!(out.status.success(), "once stopped: {}", text(&out.stderr));
}

#[test]
fn a_backup_holding_a_file_of_the_wrong_kind_changes_nothing() {
    let db = small_dataset("restore-kind");
    create_key(&db, "free", "t");
    let dir = backup(&db);
    let folder = db.parent().unwrap().to_path_buf();
    let before = files_in(&folder);
    // A dataset where the keys file should be.
    fs::copy(dir.join("areas.db"), dir.join("keys.db")).unwrap();
    let out = restore(&db, &dir, true);
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("is an area-scoring dataset, not a keys file"),
        "{said}"
    );
    assert_eq!(files_in(&folder), before, "nothing changed");
    // Not SQLite at all (a backup goes into a new folder, never over one).
    fs::remove_dir_all(&dir).unwrap();
    backup(&db);
    fs::write(dir.join("areas.db"), "id,name\n1,Sea Point\n").unwrap();
    let out = restore(&db, &dir, true);
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("is not an SQLite database"), "{said}");
    assert_eq!(files_in(&folder), before, "nothing changed");
}

#[test]
fn a_backup_of_an_older_layout_restores_once_its_dataset_is_upgraded() {
    let db = small_dataset("restore-older");
    create_key(&db, "free", "t");
    let dir = backup(&db);
    let folder = db.parent().unwrap().to_path_buf();
    let copy = dir.join("areas.db");
    Connection::open(&copy)
        .unwrap()
        .execute_batch("DROP TABLE group_stats; DROP TABLE stats_groups; DROP TABLE score_counts; PRAGMA user_version = 8;")
        .unwrap();
    let before = files_in(&folder);
    let out = restore(&db, &dir, true);
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    let upgrade = format!("area-scoring upgrade {}", copy.display());
    assert!(said.contains(&upgrade), "{said}");
    assert_eq!(files_in(&folder), before, "nothing changed");
    ok(&["upgrade", copy.to_str().unwrap()]);
    fs::remove_file(dir.join("areas.db.previous")).unwrap();
    let out = restore(&db, &dir, true);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (_, key) = crate::common::new_key(&db, area_scoring::domain::Plan::Free);
    let served = Served::spawn(&db, &[]);
    assert_eq!(served.get("/v1/areas/stats", &key).status, 200);
}

/// Each file of a folder but the backup folder and the locks, with its bytes.
fn files_in(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && !p.to_string_lossy().ends_with("lock"))
        .filter(|p| !p.to_string_lossy().ends_with(".serving"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                fs::read(&p).unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_restore_that_undoes_nothing_needs_no_yes_and_keeps_the_live_mode() {
    let db = small_dataset("restore-nothing");
    create_key(&db, "free", "t");
    let dir = backup(&db);
    let keys = keys_path(&db);
    fs::set_permissions(&keys, fs::Permissions::from_mode(0o640)).unwrap();
    let out = restore(&db, &dir, false);
    let said = text(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(!said.contains("undoes"), "{said}");
    assert!(said.contains("restored"), "{said}");
    assert_eq!(
        fs::metadata(&keys).unwrap().permissions().mode() & 0o777,
        0o640
    );
    // The live dataset is the backup's: left alone, and no kept one pushed out.
    assert!(said.contains("is the backup's dataset already"), "{said}");
    assert!(!db.with_file_name("areas.db.previous").exists(), "{said}");
}

#[test]
fn with_redis_only_the_dataset_is_restored_and_that_is_said() {
    let db = small_dataset("restore-redis");
    create_key(&db, "free", "before");
    let dir = backup(&db);
    create_key(&db, "free", "after the backup");
    let keys_before = fs::read(keys_path(&db)).unwrap();
    fs::write(&db, b"").unwrap();
    // No Redis is reached: the keys and usage are left alone.
    let out = with_db(
        &db,
        &[
            "restore",
            dir.to_str().unwrap(),
            "--redis",
            "redis://127.0.0.1:9",
        ],
    );
    let said = text(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("keys and usage are in Redis"), "{said}");
    assert!(
        said.contains(&format!("restored {}", db.display())),
        "{said}"
    );
    assert_eq!(
        fs::read(keys_path(&db)).unwrap(),
        keys_before,
        "the keys file is left"
    );
    assert_eq!(
        fs::read(&db).unwrap(),
        fs::read(dir.join("areas.db")).unwrap()
    );
}
