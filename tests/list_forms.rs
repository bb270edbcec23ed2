//! List Areas from today's files, which store each area's list form when
//! they are written (src/data/stored.rs), against files of older layouts
//! once `area-scoring upgrade` has rewritten them: one of schema 6 (no
//! stored forms) and one of schema 8 (stored forms without province_slug).
//! The same answers, byte for byte, for every ordering, some provinces and
//! pages, and for the detail form.

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

/// A file of layout 8 stored its forms without province_slug: `upgrade`
/// writes them anew from the areas' columns, so Get Area, the area at a
/// point and List answer what today's file answers, byte for byte.
#[test]
fn a_file_whose_stored_forms_lack_the_slug_answers_as_today_once_upgraded() {
    let today = crate::common::fresh_db("slug-forms");
    let older = crate::common::scratch_dir("slug-forms-schema-8").join("areas.db");
    std::fs::copy(&today, &older).unwrap();
    // Bodies no answer may show: were they read, the comparison would fail.
    crate::common::sql(
        &older,
        "UPDATE area_detail SET body = '{}'; UPDATE area_list_form SET body = '{}';
         PRAGMA user_version = 8;",
    );
    crate::common::bin::ok(&["upgrade", older.to_str().unwrap()]);
    let (_, key) = crate::common::new_key(&today, Plan::Growth);
    let (_, older_key) = crate::common::new_key(&older, Plan::Growth);
    let (served, served_older) = (Served::spawn(&today, &[]), Served::spawn(&older, &[]));
    let targets = [
        "/v1/areas/soweto",
        "/v1/areas/danielskuil?include=nearby,history",
        "/v1/areas/at?lat=-26.26781&lng=27.85849",
        "/v1/areas?province=gauteng&limit=100",
        "/v1/areas?ids=soweto,no-such-area,stellenbosch",
    ];
    for target in targets {
        let (now, before) = (
            served.get(target, &key),
            served_older.get(target, &older_key),
        );
        assert_eq!((now.status, before.status), (200, 200), "{target}");
        assert!(now.text().contains("\"province_slug\":"), "{target}");
        assert_eq!(now.body, before.body, "{target}");
    }
}
