//! `province_slug` beside `province` in every answer about an area, in
//! every representation: for every seed area it is the slug seed/ gives its
//! province, and the slug the `province` filter takes to find it (List,
//! Search and Export filtered by it hold the area).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::exports::items;
use crate::common::{data, seed_places, spawn_app};
use area_scoring::domain::PROVINCES;

/// Every seed area's province slug by id, as seed/za-areas.csv gives it.
fn seed_slugs() -> BTreeMap<String, String> {
    seed_places()
        .into_iter()
        .map(|p| (p.id, p.province_slug))
        .collect()
}

/// Checks `rows` (flat objects with id, province and province_slug) against
/// the seed, and that each is of `filter`'s province when one was given.
fn check(what: &str, rows: &[Value], filter: Option<&str>) -> usize {
    let slugs = seed_slugs();
    for row in rows {
        let id = row["id"]
            .as_str()
            .unwrap_or_else(|| panic!("{what}: {row}"));
        let slug = row["province_slug"].as_str().expect("province_slug");
        assert_eq!(slug, slugs[id], "{what}: {id}");
        let name = PROVINCES.iter().find(|(s, _)| *s == slug).unwrap().1;
        assert_eq!(
            row["province"], name,
            "{what}: {id}: the slug's display name"
        );
        if let Some(filter) = filter {
            assert_eq!(slug, filter, "{what}: {id} is of the province filtered by");
        }
    }
    rows.len()
}

/// Every area of a List path filtered by `province`, page by page.
fn listed(path: &str, province: &str) -> Vec<Value> {
    let app = spawn_app();
    let mut all = Vec::new();
    loop {
        let target = format!("{path}?province={province}&limit=100&offset={}", all.len());
        let reply = app.get(&target);
        assert_eq!(reply.status, 200, "{target}: {}", reply.text());
        let page = match path {
            "/v1/areas.csv" => csv_rows(&reply.body),
            "/v1/areas.geojson" => properties(&reply.json()),
            _ => data(&reply.json()).clone(),
        };
        let done = page.len() < 100;
        all.extend(page);
        if done {
            return all;
        }
    }
}

fn csv_rows(body: &[u8]) -> Vec<Value> {
    let mut reader = csv::Reader::from_reader(body);
    let names: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let at = |n: &str| names.iter().position(|h| h == n).unwrap();
    assert_eq!(
        at("province_slug"),
        at("province") + 1,
        "right after province"
    );
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            serde_json::json!({"id": &r[0], "province": &r[at("province")], "province_slug": &r[at("province_slug")]})
        })
        .collect()
}

fn properties(collection: &Value) -> Vec<Value> {
    collection["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["properties"].clone())
        .collect()
}

#[test]
fn every_list_form_carries_the_slug_the_filter_takes() {
    for path in ["/v1/areas", "/v1/areas.csv", "/v1/areas.geojson"] {
        let mut seen = 0;
        for (slug, _) in PROVINCES {
            seen += check(path, &listed(path, slug), Some(slug));
        }
        assert_eq!(seen, seed_places().len(), "{path}: every seed area, once");
    }
    let app = spawn_app();
    assert_eq!(check("List", app.listed(), None), seed_places().len());
    for (slug, _) in PROVINCES {
        let target = format!("/v1/areas/search?province={slug}&limit=50");
        check(&target, data(&app.ok(&target)), Some(slug));
        let csv = app.get(&format!("/v1/areas/search.csv?province={slug}&limit=50"));
        check("search.csv", &csv_rows(&csv.body), Some(slug));
    }
    let hits = app.ok("/v1/areas/search?q=heidelberg");
    assert_eq!(check("search q", data(&hits), None), 2);
}

#[test]
fn get_area_and_the_area_at_a_point_carry_it() {
    let app = spawn_app();
    let details = app.details();
    assert_eq!(check("Get Area", details, None), seed_places().len());
    for detail in details {
        let keys: Vec<&String> = detail.as_object().unwrap().keys().collect();
        let at = keys.iter().position(|k| *k == "province").unwrap();
        assert_eq!(keys[at + 1], "province_slug", "beside province");
    }
    for place in seed_places().iter().step_by(47) {
        let target = format!("/v1/areas/at?lat={}&lng={}", place.lat, place.lng);
        let at = app.ok(&target);
        check(&target, std::slice::from_ref(&at), None);
    }
}

#[test]
fn every_export_format_carries_it_and_filters_by_it() {
    let app = spawn_app();
    for format in ["json", "ndjson", "csv", "geojson"] {
        let path = format!("/v1/areas/export.{format}");
        let path = if format == "json" {
            "/v1/areas/export".to_string()
        } else {
            path
        };
        let all = items(&app.get(&path), format);
        assert_eq!(check(&path, &all, None), seed_places().len(), "{path}");
        let mut seen = 0;
        for (slug, _) in PROVINCES {
            let target = format!("{path}?province={slug}");
            seen += check(&target, &items(&app.get(&target), format), Some(slug));
        }
        assert_eq!(seen, all.len(), "{path}: the provinces' exports cover it");
    }
}
