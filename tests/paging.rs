//! List Areas paging: walking the pages of every sort and order, for all
//! areas and for each province, visits every area exactly once, in the
//! promised order (ties by id ascending), with `total` the count walked.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::{seed_places, spawn_app};
use serde_json::Value;

/// The key an ordering sorts by, comparable across areas.
fn sort_key(area: &Value, sort: &str) -> (String, f64) {
    match sort {
        // NOCASE folds ASCII letters only.
        "name" => (area["name"].as_str().unwrap().to_ascii_lowercase(), 0.0),
        "truth_score" => (String::new(), area["truth_score"].as_f64().unwrap()),
        _ => (area["updated_at"].as_str().unwrap().to_string(), 0.0),
    }
}

#[test]
fn pages_cover_every_area_exactly_once_in_every_order() {
    let app = spawn_app();
    let seed = seed_places();
    let all_ids: BTreeSet<String> = seed.iter().map(|p| p.id.clone()).collect();
    let provinces: BTreeMap<String, String> = seed
        .iter()
        .map(|p| (p.province_slug.clone(), p.province.clone()))
        .collect();
    assert_eq!(
        provinces.len(),
        9,
        "the seed spans the nine provinces of docs/api.md \"List Areas\""
    );
    for sort in ["name", "truth_score", "updated_at"] {
        for order in ["asc", "desc"] {
            let mut by_province: BTreeSet<String> = BTreeSet::new();
            let filters = std::iter::once(None).chain(provinces.keys().map(Some));
            for province in filters {
                let filter = province.map_or(String::new(), |p| format!("&province={p}"));
                // 37 does not divide any count, so pages end mid-ordering.
                let (mut walked, mut offset, mut total) = (Vec::<Value>::new(), 0, u64::MAX);
                while (offset as u64) < total {
                    let page = app.ok(&format!(
                        "/v1/areas?sort={sort}&order={order}&limit=37&offset={offset}{filter}"
                    ));
                    total = page["total"].as_u64().unwrap();
                    let data = page["data"].as_array().unwrap();
                    assert!(
                        !data.is_empty() || total == 0,
                        "a page before the end is not empty"
                    );
                    offset += data.len();
                    walked.extend(data.iter().cloned());
                }
                let walked_ids: Vec<String> = walked
                    .iter()
                    .map(|a| a["id"].as_str().unwrap().to_string())
                    .collect();
                let unique: BTreeSet<String> = walked_ids.iter().cloned().collect();
                assert_eq!(
                    unique.len(),
                    walked_ids.len(),
                    "{sort} {order} {filter}: an area repeated"
                );
                assert_eq!(
                    walked.len() as u64,
                    total,
                    "{sort} {order} {filter}: total is the count"
                );
                match province {
                    None => assert_eq!(unique, all_ids, "{sort} {order}: every area exactly once"),
                    Some(slug) => {
                        let want: BTreeSet<String> = seed
                            .iter()
                            .filter(|p| &p.province_slug == slug)
                            .map(|p| p.id.clone())
                            .collect();
                        assert_eq!(unique, want, "{sort} {order} {slug}: exactly that province");
                        assert!(
                            walked
                                .iter()
                                .all(|a| a["province"] == provinces[slug].as_str())
                        );
                        by_province.extend(unique);
                    }
                }
                for pair in walked.windows(2) {
                    let (a, b) = (sort_key(&pair[0], sort), sort_key(&pair[1], sort));
                    let ord = a.partial_cmp(&b).unwrap();
                    let ord = if order == "desc" { ord.reverse() } else { ord };
                    let tie_by_id = pair[0]["id"].as_str() < pair[1]["id"].as_str();
                    assert!(
                        ord.is_lt() || (ord.is_eq() && tie_by_id),
                        "{sort} {order} {filter}: {} then {}",
                        pair[0],
                        pair[1]
                    );
                }
            }
            assert_eq!(by_province, all_ids, "the provinces partition the areas");
        }
    }
}
