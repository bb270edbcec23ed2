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
                        ids: None,
                        limit,
                        offset,
                        sort,
                        order,
                        format: None,
                        geometry: Default::default(),
                    };
                    let page = list(&conn, &totals, &p).unwrap();
                    same_bytes(&conn, &totals, &p, &page);
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

/// `list_json`'s body for `p` is serde's of `page`, and its span and
/// missing ids are the page's.
fn same_bytes(conn: &Connection, totals: &ListTotals, p: &ListParams, page: &AreaPage) {
    let json = list_json(conn, totals, p).unwrap();
    assert_eq!(json.body, serde_json::to_vec(page).unwrap(), "{p:?}");
    assert_eq!(
        (json.span.total, json.span.limit, json.span.offset),
        (page.total, page.limit, page.offset)
    );
    assert_eq!(json.missing, page.missing, "{p:?}");
}

#[test]
fn list_by_ids_from_stored_forms_is_the_page_serde_writes() {
    let (dir, path) = seed_file("list-ids");
    let conn = Connection::open(&path).unwrap();
    let totals = ListTotals::read(&conn).unwrap();
    let asked: Vec<String> = [
        "soweto",
        "no-such-area",
        "stellenbosch",
        "Soweto",
        "mabopane",
    ]
    .map(String::from)
    .to_vec();
    for province in [None, Some("gauteng"), Some("limpopo")] {
        let p = ListParams {
            province,
            ids: Some(asked.clone()),
            limit: asked.len() as i64,
            offset: 0,
            sort: crate::api::contract::SORT_DEFAULT,
            order: crate::api::contract::ORDER_DEFAULT,
            format: None,
            geometry: Default::default(),
        };
        let page = list(&conn, &totals, &p).unwrap();
        let found: Vec<&str> = page.data.iter().map(|a| a.id.as_str()).collect();
        let missing = page.missing.clone().unwrap();
        match province {
            None => assert_eq!(found, ["soweto", "stellenbosch", "mabopane"]),
            Some("gauteng") => assert_eq!(found, ["soweto", "mabopane"]),
            _ => assert!(found.is_empty()),
        }
        assert_eq!(found.len() + missing.len(), asked.len(), "{province:?}");
        same_bytes(&conn, &totals, &p, &page);
    }
    drop(conn);
    std::fs::remove_dir_all(dir).ok();
}
