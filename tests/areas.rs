//! List Areas and Get Area: defaults, bounds, ordering, paging that covers
//! every area exactly once, the detail form, the weighted-sum invariant of
//! truth_score, `include`, and nearby against a brute-force search.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::calc::{distance_to, has_two_decimals_at_most, haversine_km};
use common::{assert_error, assert_nearest_first, seed_places, spawn_app};
use serde_json::Value;

const LIST_FIELDS: [&str; 6] = [
    "id",
    "name",
    "province",
    "municipality",
    "truth_score",
    "updated_at",
];
const DIMENSIONS: [&str; 7] = [
    "safety",
    "infrastructure",
    "service_delivery",
    "market",
    "amenities",
    "environment",
    "sentiment",
];

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().expect("an object").keys().cloned().collect()
}

fn ids(page: &Value) -> Vec<String> {
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn list_defaults_to_twenty_by_name_and_counts_every_seed_area() {
    let app = spawn_app();
    let page = app.ok("/v1/areas");
    assert_eq!(
        (page["limit"].as_i64(), page["offset"].as_i64()),
        (Some(20), Some(0))
    );
    assert_eq!(
        page["total"].as_u64(),
        Some(seed_places().len() as u64),
        "every seed place is an area"
    );
    assert_eq!(
        ids(&page),
        ids(&app.ok("/v1/areas?sort=name&order=asc&limit=20&offset=0"))
    );
    assert_eq!(page["data"].as_array().unwrap().len(), 20);
    for area in page["data"].as_array().unwrap() {
        let want: BTreeSet<String> = LIST_FIELDS.iter().map(|s| s.to_string()).collect();
        assert_eq!(keys(area), want, "list form is exactly spec 2.3");
    }
    // An empty query string is no query at all.
    assert_eq!(ids(&app.ok("/v1/areas?")), ids(&page));
}

#[test]
fn list_limit_and_offset_at_their_bounds() {
    let app = spawn_app();
    let total = app.ok("/v1/areas")["total"].as_u64().unwrap();
    for (limit, len) in [(1, 1), (100, 100)] {
        let page = app.ok(&format!("/v1/areas?limit={limit}"));
        assert_eq!(page["data"].as_array().unwrap().len(), len);
        assert_eq!(page["limit"], limit);
    }
    for bad in ["0", "101", "-1"] {
        let msg = assert_error(
            &app.get(&format!("/v1/areas?limit={bad}")),
            400,
            "invalid_parameter",
            Some("limit"),
        );
        assert!(
            msg.contains('1') && msg.contains("100"),
            "the message gives the bounds: {msg}"
        );
    }
    let last = app.ok(&format!("/v1/areas?offset={}", total - 1));
    assert_eq!(
        (
            last["data"].as_array().unwrap().len(),
            last["offset"].as_u64()
        ),
        (1, Some(total - 1))
    );
    let past = app.ok(&format!("/v1/areas?offset={total}"));
    assert!(past["data"].as_array().unwrap().is_empty());
    assert_eq!(
        past["total"].as_u64(),
        Some(total),
        "total does not depend on the page"
    );
    assert!(
        app.ok("/v1/areas?offset=999999999")["data"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_error(
        &app.get("/v1/areas?offset=-1"),
        400,
        "invalid_parameter",
        Some("offset"),
    );
    for (name, bad) in [
        ("sort", "rating"),
        ("sort", "NAME"),
        ("order", "up"),
        ("province", "Gauteng"),
        ("province", "atlantis"),
    ] {
        assert_error(
            &app.get(&format!("/v1/areas?{name}={bad}")),
            400,
            "invalid_parameter",
            Some(name),
        );
    }
}

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
        "the seed spans the nine provinces of spec 2.8"
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

#[test]
fn get_area_returns_the_detail_form_consistent_with_the_list() {
    let app = spawn_app();
    let bare = app.ok("/v1/areas/aberdeen");
    let want: BTreeSet<String> = [
        "id",
        "name",
        "province",
        "municipality",
        "truth_score",
        "dimensions",
        "coordinates",
        "updated_at",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(keys(&bare), want, "no nearby or history unless included");
    // The id segment is percent-decoded: %61 is 'a'.
    assert_eq!(app.ok("/v1/areas/%61berdeen"), bare);
    let mut weights: BTreeMap<String, f64> = BTreeMap::new();
    for (listed, detail) in app.listed().iter().zip(app.details()) {
        for field in LIST_FIELDS {
            assert_eq!(listed[field], detail[field], "{field} of {}", listed["id"]);
        }
        let updated = detail["updated_at"].as_str().unwrap();
        assert!(
            updated.len() == 20 && updated.ends_with('Z') && &updated[10..11] == "T",
            "ISO 8601 UTC: {updated}"
        );
        let (lat, lng) = (
            detail["coordinates"]["lat"].as_f64().unwrap(),
            detail["coordinates"]["lng"].as_f64().unwrap(),
        );
        assert!(
            (-35.0..=-22.0).contains(&lat) && (16.0..=33.0).contains(&lng),
            "inside South Africa: {detail}"
        );
        let dims = detail["dimensions"].as_object().unwrap();
        // serde_json's map sorts keys, so compare the sets of names.
        let names: BTreeSet<&str> = dims.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            BTreeSet::from(DIMENSIONS),
            "the seven dimensions of spec 2.2"
        );
        let score = detail["truth_score"].as_f64().unwrap();
        assert!((0.0..=10.0).contains(&score) && has_two_decimals_at_most(score));
        let mut weighted = 0.0;
        for (name, d) in dims {
            assert_eq!(
                keys(d),
                ["score", "sources", "weight"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect()
            );
            let (s, w) = (d["score"].as_f64().unwrap(), d["weight"].as_f64().unwrap());
            assert!(
                (0.0..=10.0).contains(&s) && has_two_decimals_at_most(s),
                "{name}: {s}"
            );
            let sources = d["sources"].as_array().unwrap();
            assert!((1..=3).contains(&sources.len()), "{name}: 1 to 3 sources");
            assert!(
                sources
                    .iter()
                    .all(|x| x.as_str().is_some_and(|x| !x.is_empty()))
            );
            assert_eq!(
                *weights.entry(name.clone()).or_insert(w),
                w,
                "{name}'s weight is fixed per dimension"
            );
            weighted += s * w;
        }
        // truth_score is the weighted sum, rounded to 2 decimals.
        assert!(
            (weighted - score).abs() <= 0.005 + 1e-9,
            "{}: {weighted} vs {score}",
            detail["id"]
        );
    }
    assert!(
        (weights.values().sum::<f64>() - 1.0).abs() < 1e-9,
        "weights sum to 1: {weights:?}"
    );
}

#[test]
fn nearby_is_the_nearest_five_other_areas_within_25_km() {
    let app = spawn_app();
    let details = app.details();
    let point = |d: &Value| {
        (
            d["coordinates"]["lat"].as_f64().unwrap(),
            d["coordinates"]["lng"].as_f64().unwrap(),
        )
    };
    let mut seen_full = false;
    for here in details {
        let (lat, lng) = point(here);
        let nearby = here["nearby"].as_array().expect("nearby when included");
        assert!(nearby.len() <= 5);
        seen_full |= nearby.len() == 5;
        let mut previous = 0.0;
        for n in nearby {
            assert_eq!(
                keys(n),
                ["distance_km", "id", "name", "truth_score"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect()
            );
            assert_ne!(n["id"], here["id"], "an area is not near itself");
            let other = app.detail(n["id"].as_str().unwrap());
            assert_eq!(
                (&n["name"], &n["truth_score"]),
                (&other["name"], &other["truth_score"])
            );
            let d = n["distance_km"].as_f64().unwrap();
            let exact = haversine_km(lat, lng, point(other).0, point(other).1);
            assert!(
                (d - exact).abs() <= 0.005 + 1e-9 && d <= 25.0,
                "{} -> {}: {d} vs {exact}",
                here["id"],
                n["id"]
            );
            assert!(d >= previous, "nearest first: {}", here["id"]);
            previous = d;
        }
        // Brute force over every other area: the first five within 25 km.
        let all: Vec<(f64, &str)> = details
            .iter()
            .filter(|o| o["id"] != here["id"])
            .map(|o| (distance_to(lat, lng, o), o["id"].as_str().unwrap()))
            .collect();
        let got: Vec<&str> = nearby.iter().map(|n| n["id"].as_str().unwrap()).collect();
        assert_nearest_first(here["id"].as_str().unwrap(), &got, &all, 5, 25.0);
    }
    assert!(
        seen_full,
        "some area has five neighbours, so the cap is exercised"
    );
}

#[test]
fn include_takes_history_and_nearby_in_any_order_and_nothing_else() {
    let app = spawn_app();
    let both = app.ok("/v1/areas/aberdeen?include=history,nearby");
    assert_eq!(both, app.ok("/v1/areas/aberdeen?include=nearby,history"));
    assert!(both["history"].is_array() && both["nearby"].is_array());
    let nearby = app.ok("/v1/areas/aberdeen?include=nearby");
    assert!(nearby.get("history").is_none() && nearby["nearby"] == both["nearby"]);
    // Taken as given: no empty item, no repeat, no case or space folding.
    for bad in [
        "bogus",
        "nearby,nearby",
        "",
        "nearby,",
        ",nearby",
        "Nearby",
        "nearby,+history",
        "nearby%2Cbogus",
    ] {
        assert_error(
            &app.get(&format!("/v1/areas/aberdeen?include={bad}")),
            400,
            "invalid_parameter",
            Some("include"),
        );
    }
}

#[test]
fn an_unknown_area_is_404_naming_the_id() {
    let app = spawn_app();
    let msg = assert_error(
        &app.get("/v1/areas/no-such-place"),
        404,
        "area_not_found",
        None,
    );
    assert!(msg.contains("no-such-place"), "{msg}");
    // Ids are exact: case is not folded, and the decoded id is what is named.
    assert_error(&app.get("/v1/areas/Aberdeen"), 404, "area_not_found", None);
    let msg = assert_error(
        &app.get("/v1/areas/dani%C3%ABlskuil"),
        404,
        "area_not_found",
        None,
    );
    assert!(msg.contains("daniëlskuil"), "{msg}");
}
