//! The systemd units in deploy/, as `systemd-analyze security --offline=yes`
//! rates them where the tool is available: each exposes less than the 1.5
//! they were rated before PrivateUsers, PrivateMounts, ProcSubset=pid and
//! UMask=0077 (and, for the replicas, the drop-in naming the addresses they
//! may reach), and every exposure it still flags is explained in a comment.
//! And the script the backup timer runs, against the real binary: a backup,
//! its retention and its copy elsewhere (docs/deployment.md, "Backups and restore").

use std::path::Path;
use std::process::Command;

use crate::common::db::{fresh_db, keys_path, new_key};
use crate::common::scratch_dir;
use area_scoring::domain::Plan;

/// The exposure both units were rated before; each must now be below it.
const EXPOSURE_BEFORE: f64 = 1.5;
const UNITS: [&str; 2] = [
    "deploy/area-scoring.service",
    "deploy/area-scoring@.service",
];

/// The unit's text and its drop-ins' (a folder named after it plus `.d`).
fn unit_text(unit: &Path) -> String {
    let mut text = std::fs::read_to_string(unit).unwrap();
    let drop_ins =
        unit.with_file_name(format!("{}.d", unit.file_name().unwrap().to_string_lossy()));
    if let Ok(entries) = std::fs::read_dir(drop_ins) {
        for entry in entries {
            text.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
        }
    }
    text
}

#[test]
fn the_units_expose_less_and_explain_what_remains() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for unit in UNITS {
        let path = root.join(unit);
        let Ok(out) = Command::new("systemd-analyze")
            .args(["security", "--offline=yes"])
            .arg(&path)
            .output()
        else {
            eprintln!("systemd-analyze is not installed: {unit} not rated");
            return;
        };
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        let score: f64 = said
            .lines()
            .find_map(|l| l.strip_prefix("→ Overall exposure level for "))
            .and_then(|l| {
                l.split(": ")
                    .nth(1)?
                    .split_whitespace()
                    .next()?
                    .parse()
                    .ok()
            })
            .unwrap_or_else(|| {
                panic!(
                    "{unit}: no score in {said}{}",
                    String::from_utf8_lossy(&out.stderr)
                )
            });
        assert!(score < EXPOSURE_BEFORE, "{unit}: exposure {score}\n{said}");
        let text = unit_text(&path);
        for flagged in said.lines().filter_map(|l| l.strip_prefix("✗ ")) {
            let setting = flagged.split(['=', ' ']).next().unwrap();
            assert!(
                text.contains(setting),
                "{unit}: {setting} is flagged and no comment says why: {flagged}"
            );
        }
    }
}

#[test]
fn the_backup_script_keeps_the_newest_backups_and_copies_the_new_one() {
    let db = fresh_db("backup-script");
    new_key(&db, Plan::Free);
    let backups = scratch_dir("backup-script-backups");
    let remote = scratch_dir("backup-script-remote");
    for day in ["2020-01-01", "2020-01-02", "2020-01-03"] {
        std::fs::create_dir(backups.join(format!("{day}T000000Z"))).unwrap();
    }
    std::fs::create_dir(backups.join("not-a-backup")).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/area-scoring-backup");
    let out = Command::new(&script)
        .env("AREA_BINARY", env!("CARGO_BIN_EXE_area-scoring"))
        .env("AREA_DB", &db)
        .env("AREA_KEYS", keys_path(&db))
        .env("AREA_BACKUP_DIR", &backups)
        .env("AREA_BACKUP_KEEP", "2")
        .env("AREA_BACKUP_REMOTE", &remote)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    let mut left: Vec<String> = std::fs::read_dir(&backups)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left.len(), 3, "{left:?}");
    assert_eq!(left[0], "2020-01-03T000000Z", "the newest old one stays");
    assert_eq!(left[2], "not-a-backup", "other folders are left alone");
    let new = &left[1];
    assert!(new.starts_with("20") && new.ends_with('Z'), "{new}");
    for file in ["areas.db", "keys.db"] {
        assert!(backups.join(new).join(file).is_file(), "{file} in {new}");
        assert!(remote.join(new).join(file).is_file(), "{file} copied");
    }
    assert!(
        said.contains("removed") && said.contains("2020-01-02T000000Z"),
        "{said}"
    );
}

#[test]
fn the_backup_script_refuses_a_retention_that_is_not_a_number() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/area-scoring-backup");
    let out = Command::new(&script)
        .env("AREA_BACKUP_KEEP", "0")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("AREA_BACKUP_KEEP"));
}
