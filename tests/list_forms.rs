//! List Areas from today's files, which store each area's list form when
//! they are written (src/data/stored.rs), against a file of schema 6 (no
//! stored forms) once `area-scoring upgrade` has rewritten it: the same
//! answers, byte for byte, for every ordering, some provinces and pages.

use crate::common::bin::Served;
use area_scoring::domain::Plan;

#[test]
fn a_file_without_stored_forms_lists_as_today_once_upgraded() {
    let today = crate::common::fresh_db("list-forms");
    let older = crate::common::scratch_dir("list-forms-schema-6").join("areas.db");
    std::fs::copy(&today, &older).unwrap();
    crate::common::sql(
        &older,
        "DROP TABLE area_list_form; PRAGMA user_version = 6;",
    );
    crate::common::bin::ok(&["upgrade", older.to_str().unwrap()]);
    let (_, key) = crate::common::new_key(&today, Plan::Growth);
    let (_, older_key) = crate::common::new_key(&older, Plan::Growth);
    let (served, served_older) = (Served::spawn(&today, &[]), Served::spawn(&older, &[]));
    let mut rows = 0;
    for sort in ["name", "truth_score", "updated_at"] {
        for order in ["asc", "desc"] {
            for province in ["", "&province=gauteng", "&province=limpopo"] {
                for page in ["limit=100", "limit=7&offset=3", "limit=20&offset=930"] {
                    let target = format!("/v1/areas?sort={sort}&order={order}{province}&{page}");
                    let (now, before) = (
                        served.get(&target, &key),
                        served_older.get(&target, &older_key),
                    );
                    assert_eq!((now.status, before.status), (200, 200), "{target}");
                    assert_eq!(now.body, before.body, "{target}");
                    let page: serde_json::Value = serde_json::from_slice(&now.body).unwrap();
                    rows += page["data"].as_array().unwrap().len();
                }
            }
        }
    }
    assert!(rows > 1_000, "only {rows} rows compared");
}
