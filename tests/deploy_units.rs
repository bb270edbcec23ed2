//! The systemd units in deploy/, as `systemd-analyze security --offline=yes`
//! rates them where the tool is available: each exposes less than the 1.5
//! they were rated before PrivateUsers, PrivateMounts, ProcSubset=pid and
//! UMask=0077 (and, for the replicas, the drop-in naming the addresses they
//! may reach), and every exposure it still flags is explained in a comment.

use std::path::Path;
use std::process::Command;

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
