//! Search Areas by province (docs/api.md, "Search Areas"): `province` takes the
//! slugs List Areas takes, is enough on its own, and narrows every other
//! criterion; an unknown slug is refused naming `province`. Every page of
//! each combination is checked against brute force in tests/search_paging.rs.

use crate::common::reference::seed_areas;
use crate::common::{assert_invalid, data, ids, spawn_app};
use serde_json::Value;

/// Every match of a search, walking its pages of 50.
fn every_match(app: &crate::common::TestApp, query: &str) -> (Vec<String>, u64) {
    let mut found = Vec::new();
    loop {
        let target = format!("/v1/areas/search?{query}&limit=50&offset={}", found.len());
        let page = app.ok(&target);
        let got = ids(&page);
        let total = page["total"].as_u64().unwrap();
        if got.is_empty() {
            return (found, total);
        }
        found.extend(got.into_iter().map(str::to_string));
    }
}

/// "Gauteng areas scoring 7 or more": one search, best score first, exactly
/// the areas List Areas gives for the province that score enough.
#[test]
fn a_province_with_a_minimum_score_is_one_search() {
    let app = spawn_app();
    let areas = seed_areas(app);
    for (slug, min) in [("gauteng", 7.0), ("limpopo", 0.0), ("western-cape", 6.0)] {
        let query = format!("province={slug}&min_score={min}");
        let (got, total) = every_match(app, &query);
        // Every area as List Areas gives it, with its province's slug.
        let mut want: Vec<&Value> = areas
            .iter()
            .filter(|a| a.province_slug == slug && a.score() >= min)
            .map(|a| &a.item)
            .collect();
        want.sort_by(|a, b| {
            let score = |v: &Value| v["truth_score"].as_f64().unwrap();
            score(b)
                .total_cmp(&score(a))
                .then(a["id"].as_str().cmp(&b["id"].as_str()))
        });
        let want: Vec<&str> = want.iter().map(|a| a["id"].as_str().unwrap()).collect();
        assert!(!want.is_empty(), "{query}: the seed has such areas");
        assert_eq!(got, want, "{query}: the province's areas, best first");
        assert_eq!(total, want.len() as u64, "{query}: total");
    }
}

/// A province alone satisfies "at least one of"; its total is the
/// province's count in List Areas.
#[test]
fn a_province_alone_is_a_search_of_every_area_there() {
    let app = spawn_app();
    for slug in ["gauteng", "northern-cape", "mpumalanga"] {
        let page = app.ok(&format!("/v1/areas/search?province={slug}&limit=5"));
        let listed = app.ok(&format!("/v1/areas?province={slug}&limit=1"));
        assert_eq!(page["total"], listed["total"], "{slug}");
        assert_eq!(data(&page).len(), 5, "{slug}");
    }
    let none = app.get("/v1/areas/search?limit=5");
    let message = assert_invalid(&none, &["q"]);
    assert!(message.contains("province"), "{message}");
}

/// The same search with and without a province: the province keeps exactly
/// the matches that lie in it, in the same order.
#[test]
fn a_province_narrows_text_circle_and_viewport_in_their_own_order() {
    let app = spawn_app();
    let areas = seed_areas(app);
    for (query, slug) in [
        ("q=port", "eastern-cape"),
        ("q=west&min_score=4", "western-cape"),
        ("lat=-25.75&lng=27.9&radius=50", "gauteng"),
        ("lat=-25.75&lng=27.9&radius=50", "north-west"),
        ("bbox=27,-27,29,-25&min_score=5", "gauteng"),
        ("bbox=16,-35,33,-22", "kwazulu-natal"),
    ] {
        let (all, _) = every_match(app, query);
        let (narrowed, total) = every_match(app, &format!("{query}&province={slug}"));
        let in_province = |id: &String| {
            areas
                .iter()
                .any(|a| a.id() == id && a.province_slug == slug)
        };
        let want: Vec<String> = all.iter().filter(|id| in_province(id)).cloned().collect();
        assert!(!want.is_empty(), "{query}&province={slug} finds something");
        assert!(want.len() < all.len(), "{query}: the province narrows it");
        assert_eq!(narrowed, want, "{query}&province={slug}");
        assert_eq!(total, want.len() as u64, "{query}&province={slug}: total");
    }
}

#[test]
fn an_unknown_province_is_refused_naming_province() {
    let app = spawn_app();
    for bad in [
        "atlantis",
        "Gauteng",
        "gauteng ",
        "",
        "gauteng,limpopo",
        "western_cape",
    ] {
        let target = format!(
            "/v1/areas/search?q=cape&province={}",
            crate::common::encode(bad)
        );
        let message = assert_invalid(&app.get(&target), &["province"]);
        assert!(message.contains("province"), "{bad:?}: {message}");
    }
    let twice = "/v1/areas/search?province=gauteng&province=limpopo";
    assert_invalid(&app.get(twice), &["province"]);
}
