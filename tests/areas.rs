//! List Areas and Get Area: defaults, bounds, the detail form consistent with
//! the list form, the weighted-sum invariant of truth_score, `include`, and
//! unknown ids. Paging is in tests/paging.rs, nearby in tests/geo.rs.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::calc::has_two_decimals_at_most;
use crate::common::seed::DIMENSIONS;
use crate::common::{assert_error, coordinates, ids, keys, seed_places, spawn_app};
use serde_json::json;

const LIST_FIELDS: [&str; 7] = [
    "id",
    "name",
    "province",
    "province_slug",
    "municipality",
    "truth_score",
    "updated_at",
];

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
        assert_eq!(
            keys(area),
            want,
            "exactly the list form of docs/api.md \"List Areas\""
        );
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

#[test]
fn get_area_returns_the_detail_form_consistent_with_the_list() {
    let app = spawn_app();
    let bare = app.ok("/v1/areas/aberdeen");
    let want: BTreeSet<String> = [
        "id",
        "name",
        "province",
        "province_slug",
        "municipality",
        "truth_score",
        "dimensions",
        "coordinates",
        "updated_at",
        "other_names",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(keys(&bare), want, "no nearby or history unless included");
    // The id segment is percent-decoded: %61 is 'a'.
    assert_eq!(app.ok("/v1/areas/%61berdeen"), bare);
    let mut weights: BTreeMap<String, f64> = BTreeMap::new();
    let seed = seed_places();
    for (listed, detail) in app.listed().iter().zip(app.details()) {
        for field in LIST_FIELDS {
            assert_eq!(listed[field], detail[field], "{field} of {}", listed["id"]);
        }
        let updated = detail["updated_at"].as_str().unwrap();
        assert!(
            updated.len() == 20 && updated.ends_with('Z') && &updated[10..11] == "T",
            "ISO 8601 UTC: {updated}"
        );
        // The seed's place, its coordinates at the seed's precision.
        let place = seed
            .iter()
            .find(|p| detail["id"] == p.id.as_str())
            .expect("a seed id");
        let expect = (&place.name, &place.province, &place.municipality);
        assert_eq!(
            (
                &detail["name"],
                &detail["province"],
                &detail["municipality"]
            ),
            (&json!(expect.0), &json!(expect.1), &json!(expect.2))
        );
        let (lat, lng) = coordinates(detail);
        assert!(
            (lat - place.lat).abs() < 1e-9 && (lng - place.lng).abs() < 1e-9,
            "{} vs {place:?}",
            detail["coordinates"]
        );
        let dims = detail["dimensions"].as_object().unwrap();
        // serde_json keeps an object's members in the order they came.
        let names: Vec<&str> = dims.keys().map(String::as_str).collect();
        assert_eq!(
            names, DIMENSIONS,
            "the seven dimensions of docs/api.md \"Get Area\", in its order"
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
fn get_area_shows_other_names_in_their_order_and_an_empty_array_for_none() {
    let app = spawn_app();
    let renamed = app.ok("/v1/areas/gqeberha");
    let names: Vec<&str> = renamed["other_names"]
        .as_array()
        .expect("an array")
        .iter()
        .map(|n| n.as_str().expect("a string"))
        .collect();
    assert_eq!(
        names.first(),
        Some(&"Port Elizabeth"),
        "the former name first: {names:?}"
    );
    assert!(names.iter().all(|n| !n.eq_ignore_ascii_case("gqeberha")));
    assert_eq!(
        app.ok("/v1/areas/aberdeen")["other_names"],
        serde_json::json!([])
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
    // On the wire: the plain body, with nearby and then history appended to
    // the same object, the detail form's keys in docs/api.md "Get Area"'s order.
    let plain = app.get("/v1/areas/aberdeen").text();
    let full = app.get("/v1/areas/aberdeen?include=history,nearby").text();
    let open = plain.strip_suffix('}').expect("an object");
    let rest = full
        .strip_prefix(open)
        .expect("the plain body starts the full one");
    assert!(rest.starts_with(",\"nearby\":["), "{rest}");
    assert!(
        rest.contains("],\"history\":[") && rest.ends_with("]}"),
        "{rest}"
    );
    let order = [
        "\"id\"",
        "\"name\"",
        "\"province\"",
        "\"municipality\"",
        "\"truth_score\"",
        "\"dimensions\"",
        "\"coordinates\"",
        "\"updated_at\"",
        "\"other_names\"",
    ];
    let at: Vec<usize> = order.iter().map(|k| plain.find(k).expect(k)).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "keys in order: {plain}");
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
