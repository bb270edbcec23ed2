//! `import` and `init --force` keep the dataset they replace as
//! `<db>.previous`, with its mode, the older ones moving down to
//! `<db>.previous.2` and `.3`, and never one dataset twice; `area-scoring
//! rollback` puts `<db>.previous` back in one rename, naming it (keeping the
//! one it replaces last), so rollbacks step back through the three in turn;
//! a running server answers from it within its reload second, and with no
//! previous dataset rollback exits 1 and changes nothing (docs/import.md,
//! "Rollback"). A wrong file imported twice leaves the seed to roll back to.

// The import helpers this file does not use.
#[allow(dead_code)]
use crate::common::import_files as support;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::bin::{Served, create_key};
use crate::common::scratch_dir;
use crate::common::wait::within;
use support::*;

fn previous(db: &Path) -> PathBuf {
    db.with_file_name(format!(
        "{}.previous",
        db.file_name().unwrap().to_str().unwrap()
    ))
}

fn rollback(db: &Path) -> std::process::Output {
    cli(&["rollback", "--db", db.to_str().unwrap()])
}

fn ids(db: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn.prepare("SELECT id FROM areas ORDER BY id").unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn import_keeps_the_replaced_file_with_its_mode_and_rollback_swaps_them() {
    let dir = scratch_dir("rollback-swap");
    let db = dir.join("areas.db");
    assert_ok(&import(&db, &one_area(&dir, "first")));
    assert!(!previous(&db).exists(), "a new database replaces nothing");
    fs::set_permissions(&db, fs::Permissions::from_mode(0o600)).unwrap();
    let first_inode = fs::metadata(&db).unwrap().ino();

    assert_ok(&import(&db, &one_area(&dir, "second")));
    let kept = fs::metadata(previous(&db)).unwrap();
    assert_eq!(
        kept.ino(),
        first_inode,
        "the replaced file itself, not a copy"
    );
    assert_eq!(kept.permissions().mode() & 0o777, 0o600);
    assert_eq!(ids(&previous(&db)), ["first"]);
    assert_eq!(ids(&db), ["second"]);

    let out = rollback(&db);
    assert_ok(&out);
    assert!(stderr(&out).contains("rolled"), "{}", stderr(&out));
    assert_eq!(ids(&db), ["first"]);
    assert_eq!(fs::metadata(&db).unwrap().ino(), first_inode);
    assert_eq!(
        fs::metadata(&db).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(
        ids(&previous(&db)),
        ["second"],
        "the replaced one is kept in turn"
    );

    assert_ok(&rollback(&db));
    assert_eq!(ids(&db), ["second"], "a second rollback undoes the first");
    assert_eq!(ids(&previous(&db)), ["first"]);
    let leftovers: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.starts_with("areas.db.") && !n.ends_with(".previous") && !n.ends_with(".lock")
        })
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn init_force_keeps_the_replaced_file_too() {
    let dir = scratch_dir("rollback-init");
    let db = dir.join("areas.db");
    assert_ok(&import(&db, &one_area(&dir, "mine")));
    assert_ok(&cli(&["init", "--db", db.to_str().unwrap(), "--force"]));
    assert_eq!(ids(&db).len(), 938);
    assert_eq!(ids(&previous(&db)), ["mine"]);
    assert_ok(&rollback(&db));
    assert_eq!(ids(&db), ["mine"]);
}

#[test]
fn without_a_previous_dataset_rollback_exits_1_and_changes_nothing() {
    let dir = scratch_dir("rollback-none");
    let db = dir.join("areas.db");
    assert_ok(&import(&db, &one_area(&dir, "only")));
    let before = fs::read(&db).unwrap();
    let text = assert_fails(&rollback(&db));
    assert!(
        text.contains("no previous dataset") && text.contains("areas.db.previous"),
        "{text}"
    );
    assert_eq!(fs::read(&db).unwrap(), before);
    assert!(!previous(&db).exists());
    // No database at all: the same refusal, and nothing is created.
    let none = dir.join("none.db");
    assert!(assert_fails(&rollback(&none)).contains("no previous dataset"));
    assert!(!none.exists());
}

#[test]
fn a_previous_file_the_server_would_refuse_is_not_put_in_place() {
    let dir = scratch_dir("rollback-refuse");
    let db = dir.join("areas.db");
    assert_ok(&import(&db, &one_area(&dir, "good")));
    fs::write(previous(&db), "not a database").unwrap();
    let text = assert_fails(&rollback(&db));
    assert!(text.contains("refusing to roll back"), "{text}");
    assert_eq!(ids(&db), ["good"]);
    assert_eq!(fs::read_to_string(previous(&db)).unwrap(), "not a database");
}

#[test]
fn a_running_server_answers_from_the_rolled_back_file() {
    let dir = scratch_dir("rollback-serve");
    let db = dir.join("areas.db");
    assert_ok(&import(&db, &one_area(&dir, "before")));
    let key = create_key(&db, "growth", "rollback");
    assert_ok(&import(&db, &one_area(&dir, "after")));
    let served = Served::start(&["--db", db.to_str().unwrap()], &[], Path::new("/"));
    let status = |id: &str| served.get(&format!("/v1/areas/{id}"), &key).status;
    assert_eq!((status("after"), status("before")), (200, 404));

    assert_ok(&rollback(&db));
    within(Duration::from_secs(5), || {
        (status("before") == 200).then_some(())
    })
    .expect("the server reloads the rolled-back file within its reload second");
    assert_eq!(status("after"), 404);
}

#[test]
fn files_a_killed_replacement_or_rollback_left_are_removed_by_the_next() {
    let dir = scratch_dir("rollback-leftovers");
    let db = dir.join("areas.db");
    assert_ok(&import(&db, &one_area(&dir, "first")));
    assert_ok(&import(&db, &one_area(&dir, "second")));
    // Beyond this system's pid_max, so no process has it.
    let dead = 999_999;
    let left = ["previous", "current"].map(|kind| dir.join(format!("areas.db.{kind}-{dead}")));
    let running = dir.join(format!("areas.db.current-{}", std::process::id()));
    for f in left.iter().chain([&running]) {
        fs::write(f, "left behind").unwrap();
    }
    let out = rollback(&db);
    assert_ok(&out);
    let text = stderr(&out);
    assert!(left.iter().all(|f| !f.exists()), "{text}");
    assert!(running.exists(), "a running process's file is kept");
    assert!(
        text.contains(&format!("left by a rollback (process {dead})")),
        "{text}"
    );
    assert_eq!(ids(&db), ["first"]);
}

#[test]
fn a_rollback_killed_between_its_renames_is_finished_by_the_next_command() {
    let dir = scratch_dir("rollback-killed");
    let db = dir.join("areas.db");
    assert_ok(&import(&db, &one_area(&dir, "first")));
    assert_ok(&import(&db, &one_area(&dir, "second")));
    // As a rollback leaves it after its first rename: the dataset it
    // replaced only at <db>.current-PID, and no <db>.previous.
    let dead = 999_999;
    let current = dir.join(format!("areas.db.current-{dead}"));
    fs::rename(&db, &current).unwrap();
    fs::rename(previous(&db), &db).unwrap();
    let out = rollback(&db);
    assert_ok(&out);
    let text = stderr(&out);
    assert!(
        text.contains(&format!("kept {}", current.display())),
        "{text}"
    );
    assert!(!current.exists());
    assert_eq!(ids(&db), ["second"], "the finished swap, then rolled back");
    assert_eq!(ids(&previous(&db)), ["first"]);
}

fn import_allowing_shrink(db: &Path, file: &Path) -> std::process::Output {
    cli(&[
        "import",
        "--allow-shrink",
        "--db",
        db.to_str().unwrap(),
        file.to_str().unwrap(),
    ])
}

fn kept(db: &Path, place: usize) -> PathBuf {
    match place {
        0 => previous(db),
        n => db.with_file_name(format!("areas.db.previous.{}", n + 1)),
    }
}

#[test]
fn three_datasets_are_kept_and_rollbacks_step_back_through_them_in_order() {
    let dir = scratch_dir("rollback-three");
    let db = dir.join("areas.db");
    for id in ["oldest", "one", "two", "three", "served"] {
        assert_ok(&import(&db, &one_area(&dir, id)));
    }
    assert_eq!(ids(&db), ["served"]);
    for (place, id) in ["three", "two", "one"].iter().enumerate() {
        assert_eq!(ids(&kept(&db, place)), [*id], "kept in place {place}");
    }
    // The oldest, beyond the three kept, is in no file beside the dataset.
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if name.starts_with("areas.db") && !name.ends_with(".lock") {
            assert!(!ids(&path).contains(&"oldest".to_string()), "{name}");
        }
    }
    assert!(!kept(&db, 3).exists(), "no fourth kept");

    for id in ["three", "two", "one"] {
        let restored = kept(&db, 0);
        let out = rollback(&db);
        assert_ok(&out);
        let text = stderr(&out);
        assert_eq!(ids(&db), [id], "{text}");
        // It names what it restores: the file, when it was written, its
        // areas, and its identity (made from which file, by which build).
        assert!(
            text.contains(&format!("back to {}", restored.display()))
                && text.contains("written 20")
                && text.contains("1 area; made 20")
                && text.contains(&format!(" from {id}.csv (sha256 "))
                && text.contains(" by area-scoring "),
            "{text}"
        );
    }
    // Each dataset rolled away from was kept last: the next rollback goes
    // round to the first one replaced, and none was lost.
    assert_ok(&rollback(&db));
    assert_eq!(ids(&db), ["served"]);
    let mut all: Vec<String> = (0..3).flat_map(|place| ids(&kept(&db, place))).collect();
    all.sort();
    assert_eq!(all, ["one", "three", "two"]);
}

#[test]
fn a_wrong_file_imported_twice_leaves_the_seed_to_roll_back_to() {
    let dir = scratch_dir("rollback-twice");
    let db = dir.join("areas.db");
    assert_ok(&cli(&["init", "--db", db.to_str().unwrap()]));
    assert_fails(&import(&db, &one_area(&dir, "wrong")));
    // Allowed, twice, with two wrong files.
    assert_ok(&import_allowing_shrink(&db, &one_area(&dir, "wrong")));
    assert_ok(&import(&db, &one_area(&dir, "wrong-too")));
    assert_eq!(ids(&db), ["wrong-too"]);
    assert_ok(&rollback(&db));
    assert_eq!(ids(&db), ["wrong"]);
    let out = rollback(&db);
    assert_ok(&out);
    assert!(
        stderr(&out).contains("938 areas; made 20") && stderr(&out).contains("from seed"),
        "{}",
        stderr(&out)
    );
    assert_eq!(ids(&db).len(), 938, "the seed is back");
}

#[test]
fn a_dataset_equal_to_the_newest_kept_one_is_not_kept_again() {
    let dir = scratch_dir("rollback-equal");
    let db = dir.join("areas.db");
    assert_ok(&import(&db, &one_area(&dir, "older")));
    assert_ok(&import(&db, &one_area(&dir, "served")));
    // As a replacement killed after keeping the served file, before its
    // rename, leaves it (here a copy: equal rows, another inode).
    fs::rename(previous(&db), kept(&db, 1)).unwrap();
    fs::copy(&db, previous(&db)).unwrap();
    assert_ok(&import(&db, &one_area(&dir, "new")));
    assert_eq!(ids(&db), ["new"]);
    assert_eq!(ids(&previous(&db)), ["served"]);
    assert_eq!(ids(&kept(&db, 1)), ["older"], "served is kept once");
    assert!(!kept(&db, 2).exists());
}

#[test]
fn a_rollback_killed_with_three_kept_is_finished_in_order_by_the_next() {
    let dir = scratch_dir("rollback-killed-three");
    let db = dir.join("areas.db");
    for id in ["a", "b", "c", "d"] {
        assert_ok(&import(&db, &one_area(&dir, id)));
    }
    // As a rollback leaves it after its first renames: "d" only at
    // <db>.current-PID, "c" in place, and a gap where <db>.previous was.
    let current = dir.join("areas.db.current-999999");
    fs::rename(&db, &current).unwrap();
    fs::rename(previous(&db), &db).unwrap();
    let out = rollback(&db);
    assert_ok(&out);
    let text = stderr(&out);
    assert!(text.contains("closing the gap"), "{text}");
    assert!(
        text.contains(&format!("kept {}", current.display())),
        "{text}"
    );
    assert!(!current.exists());
    // The gap closed ("b" first, "a" next), "d" kept last; then "b" rolled back to.
    assert_eq!(ids(&db), ["b"], "{text}");
    let order: Vec<Vec<String>> = (0..3).map(|place| ids(&kept(&db, place))).collect();
    assert_eq!(order, [["a"], ["d"], ["c"]]);
}

#[test]
fn a_file_that_is_no_dataset_rolled_away_from_is_set_aside_not_kept() {
    let dir = scratch_dir("rollback-garbage");
    let db = dir.join("areas.db");
    assert_ok(&cli(&["init", "--db", db.to_str().unwrap()]));
    assert_ok(&import_allowing_shrink(&db, &one_area(&dir, "one")));
    // A wrong file renamed into place by hand.
    let wrong = dir.join("wrong.db");
    fs::write(&wrong, b"not a database".repeat(100)).unwrap();
    fs::rename(&wrong, &db).unwrap();
    let refused = import(&db, &one_area(&dir, "two"));
    assert_fails(&refused);
    assert!(
        stderr(&refused).contains("area-scoring rollback --db"),
        "{}",
        stderr(&refused)
    );
    let out = rollback(&db);
    assert_ok(&out);
    let said = stderr(&out);
    assert!(
        said.contains("was no dataset, and is set aside as"),
        "{said}"
    );
    assert_eq!(ids(&db).len(), 938, "the seed is back");
    let aside = dir.join("areas.db.not-a-dataset");
    assert_eq!(fs::read(&aside).unwrap(), b"not a database".repeat(100));
    assert!(
        !kept(&db, 0).exists(),
        "the wrong file is not among the kept datasets"
    );
}
