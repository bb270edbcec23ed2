//! List Areas' JSON, from the stored list forms, is the page serde writes,
//! byte for byte, for every ordering, province, limit and offset.

use super::*;
use crate::api::contract::{ORDERS, SORTS};
use crate::api::test_seed::seed_file;
use crate::domain::PROVINCES;

#[test]
fn list_json_from_stored_forms_is_the_page_serde_writes() {
    let (dir, path) = seed_file("list-json");
    let conn = Connection::open(&path).unwrap();
    let totals = ListTotals::read(&conn).unwrap();
    let stored: i64 = conn
        .query_row("SELECT count(*) FROM area_list_form", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored, totals.of(None), "a list form for every area");
    let provinces = [None, Some(PROVINCES[2].0), Some(PROVINCES[8].0)];
    let mut compared = 0;
    for (_, sort) in SORTS {
        for (_, order) in ORDERS {
            for province in provinces {
                for (limit, offset) in [(20, 0), (1, 5), (100, 40), (7, 930), (10, 5000)] {
                    let p = ListParams {
                        province,
                        limit,
                        offset,
                        sort,
                        order,
                        format: None,
                        geometry: Default::default(),
                    };
                    let page = list(&conn, &totals, &p).unwrap();
                    let (span, body) = list_json(&conn, &totals, &p).unwrap();
                    assert_eq!(body, serde_json::to_vec(&page).unwrap(), "{p:?}");
                    assert_eq!(
                        (span.total, span.limit, span.offset),
                        (page.total, page.limit, page.offset)
                    );
                    compared += page.data.len();
                }
            }
        }
    }
    // Pages past the end compare as empty; most rows were compared.
    assert!(compared > 1_500, "only {compared} rows compared");
    drop(conn);
    std::fs::remove_dir_all(dir).ok();
}
