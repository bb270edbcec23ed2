//! A killed `import` or `init` leaves its new file (`<db>.new-PID`) beside the
//! database; the next `import` or `init --force` on that database removes
//! every such file of a process that is no longer running, says so on
//! stderr, and keeps the file of one that still runs.

// The import helpers this file does not use.
#[allow(dead_code)]
use crate::common::import_files as support;

use std::fs;
use std::path::Path;

use crate::common::scratch_dir;
use support::*;

/// Beyond this system's pid_max, so no process has it.
const DEAD_PID: u32 = 999_999;

/// A stale new file, its journal, and the new file of this test's own
/// (running) process; returns their paths in that order.
fn leave_files(db: &Path) -> [std::path::PathBuf; 3] {
    let name = db.file_name().unwrap().to_str().unwrap();
    let files = [
        format!("{name}.new-{DEAD_PID}"),
        format!("{name}.new-{DEAD_PID}-journal"),
        format!("{name}.new-{}", std::process::id()),
    ]
    .map(|f| db.with_file_name(f));
    for f in &files {
        fs::write(f, vec![0u8; 64 * 1024]).unwrap();
    }
    files
}

#[test]
fn the_next_import_removes_what_a_killed_one_left() {
    let dir = scratch_dir("import-leftovers");
    let db = dir.join("areas.db");
    assert_ok(&import(&db, &example("example-import.csv")));
    let [stale, journal, running] = leave_files(&db);
    let out = import(&db, &example("example-import.jsonl"));
    assert_ok(&out);
    let text = stderr(&out);
    assert!(!stale.exists() && !journal.exists(), "{text}");
    assert!(running.exists(), "a running process's file is kept");
    let said = format!("removed {}, left by", stale.display());
    assert!(text.contains(&said), "{said}: {text}");
    assert!(text.contains(&format!("(process {DEAD_PID})")), "{text}");
    assert!(!text.contains(&running.display().to_string()), "{text}");
}

#[test]
fn init_force_removes_them_too() {
    let dir = scratch_dir("import-leftovers-init");
    let db = dir.join("areas.db");
    let [stale, journal, running] = leave_files(&db);
    let db_arg = db.to_str().unwrap();
    let out = cli(&["init", "--db", db_arg, "--force"]);
    assert_ok(&out);
    assert!(!stale.exists() && !journal.exists(), "{}", stderr(&out));
    assert!(running.exists());
}
