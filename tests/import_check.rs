//! `area-scoring import --check FILE` end to end (docs/import.md, "Checking
//! a file first"): every check an import makes, the safeguard included, and
//! what the import would change against the served dataset, with nothing
//! written: the dataset's bytes and time, the kept datasets and the folder's
//! files are as they were.

// The import helpers this file does not use.
#[allow(dead_code)]
use crate::common::import_files as support;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::common::scratch_dir;
use support::*;

const HEADER: &str = "id,name,province,municipality,lat,lng,safety,safety_weight,safety_sources";

/// A CSV file in `dir` of rows "id,province,lat,lng,safety score".
fn areas_file(dir: &Path, name: &str, rows: &[String]) -> PathBuf {
    let file = dir.join(name);
    let rows: Vec<String> = rows
        .iter()
        .map(|r| {
            let f: Vec<&str> = r.split(',').collect();
            format!(
                "{0},{0},{1},Municipality,{2},{3},{4},1,saps",
                f[0], f[1], f[2], f[3], f[4]
            )
        })
        .collect();
    fs::write(&file, format!("{HEADER}\n{}\n", rows.join("\n"))).unwrap();
    file
}

/// Twelve areas in Johannesburg, a01 to a12, each scored 6.5.
fn twelve() -> Vec<String> {
    (1..=12)
        .map(|i| format!("a{i:02},gauteng,-26.2,28.04,6.5"))
        .collect()
}

/// Every file of `dir` with its length and modification time, and the dataset's bytes.
fn snapshot(dir: &Path, db: &Path) -> (Vec<(String, u64, SystemTime)>, Vec<u8>) {
    let mut files: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let meta = e.metadata().unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, meta.len(), meta.modified().unwrap())
        })
        .collect();
    files.sort();
    (files, fs::read(db).unwrap())
}

/// The served dataset of twelve areas, imported over the seed so that a kept one exists.
fn served(dir: &Path) -> PathBuf {
    let db = dir.join("areas.db");
    let db_arg = db.to_str().unwrap();
    assert_ok(&cli(&["init", "--db", db_arg]));
    let first = areas_file(dir, "first.csv", &twelve());
    assert_ok(&cli(&[
        "import",
        "--db",
        db_arg,
        "--allow-shrink",
        first.to_str().unwrap(),
    ]));
    assert!(dir.join("areas.db.previous").is_file());
    db
}

fn check(db: &Path, file: &Path, more: &[&str]) -> std::process::Output {
    let (db, file) = (db.to_str().unwrap(), file.to_str().unwrap());
    cli(&[&["import", "--check", "--db", db], more, &[file]].concat())
}

#[test]
fn a_check_counts_what_would_change_and_writes_nothing() {
    let dir = scratch_dir("check-counts");
    let db = served(&dir);
    let mut rows = twelve();
    rows.remove(0);
    for row in &mut rows[..3] {
        *row = row.replace(",6.5", ",7");
    }
    rows[3] = "a05,free-state,-26.3,27.9,6.5".into();
    rows.push("b01,gauteng,-26.1,28.0,5".into());
    rows.push("b02,gauteng,-26.1,28.0,5".into());
    let next = areas_file(&dir, "next.csv", &rows);
    let before = snapshot(&dir, &db);

    let out = check(&db, &next, &[]);
    assert_ok(&out);
    let text = stderr(&out);
    for want in [
        "next.csv has no problems: 13 areas, against ",
        "\n  added: 2 (b01, b02)\n",
        "\n  removed: 1 (a01)\n",
        "\n  rescored (truth_score changed): 3 (a02 (6.5 to 7.0), a03 (6.5 to 7.0), a04 (6.5 to 7.0))\n",
        "\n  unchanged truth_score: 8\n",
        "\n  moved to another province: 1 (a05 (gauteng to free-state))\n",
        "\nthe import would succeed; nothing was written (--check)",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    assert_eq!(
        snapshot(&dir, &db),
        before,
        "no file was written or touched"
    );

    // The import itself does what the check said.
    assert_ok(&import(&db, &next));
    let ids: Vec<String> = rusqlite::Connection::open(&db)
        .unwrap()
        .prepare("SELECT id FROM areas ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(ids.len(), 13);
    assert!(!ids.contains(&"a01".to_string()) && ids.contains(&"b02".to_string()));
}

#[test]
fn a_check_that_would_shrink_says_allow_shrink_is_needed() {
    let dir = scratch_dir("check-shrink");
    let db = served(&dir);
    let one = areas_file(&dir, "one.csv", &["only,gauteng,-26.2,28.04,6.5".into()]);
    let before = snapshot(&dir, &db);

    let refused = check(&db, &one, &[]);
    let text = assert_fails(&refused);
    assert!(
        text.contains("\n  removed: 12 (a01, a02, a03, a04, a05 and 7 more)\n"),
        "{text}"
    );
    assert!(
        text.contains("the import would be refused without --allow-shrink: the file would remove 12 of the 12 areas it serves (more than 20%)"),
        "{text}"
    );
    let allowed = check(&db, &one, &["--allow-shrink"]);
    assert_ok(&allowed);
    assert!(
        stderr(&allowed).contains("the import would succeed with --allow-shrink, which it needs"),
        "{}",
        stderr(&allowed)
    );
    assert_eq!(
        snapshot(&dir, &db),
        before,
        "no file was written or touched"
    );
}

#[test]
fn a_check_of_a_file_with_problems_exits_1_with_them() {
    let dir = scratch_dir("check-problems");
    let db = served(&dir);
    let rows = [
        "a01,gauteng,-26.2,28.04,6.5".into(),
        "a02,gauteng,28.04,-26.2,6.5".into(),
    ];
    let bad = areas_file(&dir, "bad.csv", &rows);
    let before = snapshot(&dir, &db);
    let text = assert_fails(&check(&db, &bad, &[]));
    assert!(
        text.contains("line 3 (a02): lat 28.04 and lng -26.2 lie outside"),
        "{text}"
    );
    assert!(text.contains("lat and lng look swapped"), "{text}");
    assert_eq!(
        snapshot(&dir, &db),
        before,
        "no file was written or touched"
    );
}

#[test]
fn a_check_without_a_dataset_says_it_would_create_one_and_creates_nothing() {
    let dir = scratch_dir("check-new");
    let db = dir.join("areas.db");
    let file = areas_file(&dir, "first.csv", &twelve());
    let out = check(&db, &file, &[]);
    assert_ok(&out);
    assert!(
        stderr(&out).contains("first.csv has no problems: 12 areas; the import would create "),
        "{}",
        stderr(&out)
    );
    let names: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["first.csv"]);
}

#[test]
fn a_check_says_what_the_reading_skipped_as_an_import_does() {
    let dir = scratch_dir("check-empty-rows");
    let db = dir.join("areas.db");
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/excel-empty-rows.csv");
    let out = check(&db, &file, &[]);
    assert_ok(&out);
    assert!(stderr(&out).contains("(skipped "), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("rows of empty cells)"),
        "{}",
        stderr(&out)
    );
}
