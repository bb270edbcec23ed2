//! History from today's files, which pack each area's last year into one
//! row when they are written (src/data/recent_history.rs), against a file of
//! schema 5 (history rows only) once `area-scoring upgrade` has rewritten
//! it: the same answers, byte for byte, for the seed and for an operator's
//! file with short, stepped histories.

use std::path::{Path, PathBuf};

use crate::common::bin::{Served, run, text};
use area_scoring::domain::Plan;

const PERIODS: [&str; 4] = ["7d", "30d", "90d", "1y"];
const GRANULARITIES: [&str; 3] = ["daily", "weekly", "monthly"];

/// A copy of `db` as a build before the packed year wrote it, refused by
/// serve with a pointer to `upgrade`, then upgraded.
fn as_schema_5(db: &Path) -> PathBuf {
    let dir = crate::common::scratch_dir("history-schema-5");
    let older = dir.join("areas.db");
    std::fs::copy(db, &older).unwrap();
    crate::common::sql(
        &older,
        "DROP TABLE recent_history; PRAGMA user_version = 5;",
    );
    let path = older.to_str().unwrap();
    let refused = run(&["serve", "--db", path, "--addr", "127.0.0.1:0"], &[], &dir);
    assert_eq!(refused.status.code(), Some(1), "a layout-5 file is refused");
    let said = text(&refused.stderr);
    assert!(
        said.contains(&format!("area-scoring upgrade {path}")),
        "{said}"
    );
    let upgraded = run(&["upgrade", path], &[], &dir);
    let said = text(&upgraded.stderr);
    assert!(upgraded.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "from layout 5 to {}",
            area_scoring::data::db::SCHEMA_VERSION
        )),
        "{said}"
    );
    assert!(
        dir.join("areas.db.previous").is_file(),
        "the old file is kept"
    );
    older
}

/// Every `step`th area's id, in id order.
fn ids(db: &Path, step: usize) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn.prepare("SELECT id FROM areas ORDER BY id").unwrap();
    let all: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    all.into_iter().step_by(step).collect()
}

/// Every period and granularity of History, and Get Area's include=history,
/// answered alike by both files; returns how many answers were compared.
fn same_answers(today: &Path, older: &Path, ids: &[String]) -> usize {
    let (_, key) = crate::common::new_key(today, Plan::Growth);
    let (_, older_key) = crate::common::new_key(older, Plan::Growth);
    let (served, served_older) = (Served::spawn(today, &[]), Served::spawn(older, &[]));
    let mut compared = 0;
    for id in ids {
        let mut targets = vec![format!("/v1/areas/{id}?include=history")];
        for period in PERIODS {
            for granularity in GRANULARITIES {
                targets.push(format!(
                    "/v1/areas/{id}/history?period={period}&granularity={granularity}"
                ));
            }
        }
        for target in targets {
            let (now, before) = (
                served.get(&target, &key),
                served_older.get(&target, &older_key),
            );
            assert_eq!(now.status, 200, "{target}");
            assert_eq!(before.status, 200, "{target} from schema 5");
            let body = String::from_utf8(now.body).unwrap();
            assert!(body.contains("\"history\":[{\"date\":"), "{target}: {body}");
            assert_eq!(body, String::from_utf8(before.body).unwrap(), "{target}");
            compared += 1;
        }
    }
    compared
}

#[test]
fn the_seed_answers_history_as_a_file_read_row_by_row_does() {
    let today = crate::common::fresh_db("history-packed");
    let older = as_schema_5(&today);
    let ids = ids(&today, 10);
    assert!(ids.len() > 90, "a spread of the seed: {}", ids.len());
    assert_eq!(same_answers(&today, &older, &ids), ids.len() * 13);
}

#[test]
fn an_imported_file_answers_history_as_a_file_read_row_by_row_does() {
    // Its areas have a few monthly points, or none (the one point of
    // updated_at): windows shorter than the period, and stepped series.
    let today = crate::common::scratch_dir("history-import").join("areas.db");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("seed/example-import.csv");
    crate::common::bin::ok(&[
        "import",
        "--db",
        today.to_str().unwrap(),
        example.to_str().unwrap(),
    ]);
    let older = as_schema_5(&today);
    let ids = ids(&today, 1);
    assert!(ids.len() >= 3, "the example's areas: {ids:?}");
    assert_eq!(same_answers(&today, &older, &ids), ids.len() * 13);
}
