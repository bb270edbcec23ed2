//! Search Areas: geo search against a brute-force haversine over every area,
//! text search against a brute-force prefix match over name, municipality and
//! province, min_score, their combinations (AND), ordering, bounds, and q
//! holding query-syntax characters (always plain text, never a 500).

mod common;

use std::collections::BTreeSet;

use common::calc::{distance_to, words};
use common::{TestApp, assert_invalid, assert_nearest_first, encode, spawn_app};
use serde_json::Value;

fn data(page: &Value) -> &Vec<Value> {
    page["data"].as_array().expect("data")
}

fn ids(page: &Value) -> Vec<&str> {
    data(page)
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect()
}

/// True when every word of q is a prefix of a word of the area's name,
/// municipality or province (case and diacritics folded).
fn text_matches(area: &Value, q: &str, name_only: bool) -> bool {
    let hay = if name_only {
        words(area["name"].as_str().unwrap())
    } else {
        let s = |k: &str| area[k].as_str().unwrap().to_string();
        words(&format!(
            "{} {} {}",
            s("name"),
            s("municipality"),
            s("province")
        ))
    };
    words(q)
        .iter()
        .all(|w| hay.iter().any(|h| h.starts_with(w.as_str())))
}

/// Every area as (list form, detail form).
fn areas(app: &TestApp) -> impl Iterator<Item = (&Value, &Value)> {
    app.listed().iter().zip(app.details())
}

/// Runs a geo search (optionally with min_score) and checks it against brute force.
fn check_geo(app: &TestApp, lat: f64, lng: f64, radius: Option<&str>, min_score: Option<f64>) {
    let mut target = format!("/v1/areas/search?lat={lat}&lng={lng}&limit=50");
    if let Some(r) = radius {
        target += &format!("&radius={r}");
    }
    if let Some(m) = min_score {
        target += &format!("&min_score={m}");
    }
    let r: f64 = radius.unwrap_or("10").parse().unwrap();
    let page = app.ok(&target);
    let all: Vec<(f64, &str)> = areas(app)
        .filter(|(l, _)| min_score.is_none_or(|m| l["truth_score"].as_f64().unwrap() >= m))
        .map(|(l, d)| (distance_to(lat, lng, d), l["id"].as_str().unwrap()))
        .collect();
    let inside = all.iter().filter(|(d, _)| *d <= r).count() as u64;
    let edge = all.iter().filter(|(d, _)| (d - r).abs() < 1e-9).count() as u64;
    let total = page["total"].as_u64().unwrap();
    assert!(
        total + edge >= inside && total <= inside + edge,
        "{target}: total {total}, brute force {inside}"
    );
    assert_nearest_first(&target, &ids(&page), &all, 50, r);
    for item in data(&page) {
        let d = item["distance_km"].as_f64().expect("distance_km with geo");
        let exact = all.iter().find(|(_, id)| item["id"] == *id).unwrap().0;
        assert!(
            (d - exact).abs() <= 0.005 + 1e-9,
            "{target}: {d} vs {exact}"
        );
    }
}

#[test]
fn geo_search_returns_exactly_what_brute_force_haversine_finds() {
    let app = spawn_app();
    let details = app.details();
    let at = |i: usize| {
        let c = &details[i]["coordinates"];
        (c["lat"].as_f64().unwrap(), c["lng"].as_f64().unwrap())
    };
    // The area with the most others within 50 km (so a page cannot hold the
    // circle), an area in sparse country, a city centre, the open Atlantic.
    let count_near = |i: usize| {
        details
            .iter()
            .filter(|d| distance_to(at(i).0, at(i).1, d) <= 50.0)
            .count()
    };
    let densest = (0..details.len())
        .step_by(7)
        .max_by_key(|&i| count_near(i))
        .unwrap();
    let points = [
        at(densest),
        at(0),
        at(details.len() / 2),
        (-26.2041, 28.0473),
        (-34.0, 10.0),
    ];
    let mut seen_more_than_a_page = false;
    for (lat, lng) in points {
        for radius in [Some("0.5"), Some("3"), None, Some("25.7"), Some("50")] {
            check_geo(app, lat, lng, radius, None);
        }
        check_geo(app, lat, lng, Some("50"), Some(6.5));
        let total =
            app.ok(&format!("/v1/areas/search?lat={lat}&lng={lng}&radius=50"))["total"].as_u64();
        seen_more_than_a_page |= total > Some(50);
    }
    assert!(
        seen_more_than_a_page,
        "some circle holds more than a page of areas"
    );
    for (lat, lng) in [
        (-90.0, 0.0),
        (90.0, 0.0),
        (0.0, -180.0),
        (0.0, 180.0),
        (-90.0, -180.0),
    ] {
        check_geo(app, lat, lng, Some("50"), None);
    }
    check_geo(app, at(0).0, at(0).1, Some("0.0001"), None);
}

#[test]
fn geo_parameters_at_and_beyond_their_bounds() {
    let app = spawn_app();
    for ok in [
        "lat=90&lng=180",
        "lat=-90&lng=-180",
        "lat=0&lng=0&radius=50",
        "lat=0&lng=0&radius=0.0001",
    ] {
        app.ok(&format!("/v1/areas/search?{ok}"));
    }
    for (query, param) in [
        ("lat=90.0001&lng=0", "lat"),
        ("lat=-90.0001&lng=0", "lat"),
        ("lat=0&lng=180.0001", "lng"),
        ("lat=0&lng=-180.0001", "lng"),
        ("lat=0&lng=0&radius=50.0001", "radius"),
        ("lat=0&lng=0&radius=0", "radius"),
        ("lat=0&lng=0&radius=-1", "radius"),
        ("lat=abc&lng=0", "lat"),
    ] {
        assert_invalid(&app.get(&format!("/v1/areas/search?{query}")), &[param]);
    }
    // lat and lng come together, and radius needs them.
    assert_invalid(&app.get("/v1/areas/search?lat=-26"), &["lat", "lng"]);
    assert_invalid(&app.get("/v1/areas/search?lng=28"), &["lat", "lng"]);
    assert_invalid(
        &app.get("/v1/areas/search?radius=5"),
        &["radius", "lat", "lng"],
    );
    assert_invalid(
        &app.get("/v1/areas/search?q=cape&radius=5"),
        &["radius", "lat", "lng"],
    );
    // At least one criterion.
    let msg = assert_invalid(
        &app.get("/v1/areas/search"),
        &["q", "lat", "lng", "min_score"],
    );
    assert!(
        msg.contains("q") && msg.contains("min_score"),
        "says what is allowed: {msg}"
    );
    assert_invalid(
        &app.get("/v1/areas/search?limit=5"),
        &["q", "lat", "lng", "min_score"],
    );
}

#[test]
fn min_score_alone_lists_the_highest_scores_first() {
    let app = spawn_app();
    for m in [0.0, 5.5, 7.0, 10.0] {
        let page = app.ok(&format!("/v1/areas/search?min_score={m}&limit=50"));
        let mut want: Vec<&Value> = app
            .listed()
            .iter()
            .filter(|a| a["truth_score"].as_f64().unwrap() >= m)
            .collect();
        want.sort_by(|a, b| {
            let (x, y) = (
                a["truth_score"].as_f64().unwrap(),
                b["truth_score"].as_f64().unwrap(),
            );
            y.total_cmp(&x)
                .then(a["id"].as_str().cmp(&b["id"].as_str()))
        });
        assert_eq!(
            page["total"].as_u64(),
            Some(want.len() as u64),
            "min_score={m}"
        );
        let want_ids: Vec<&str> = want
            .iter()
            .take(50)
            .map(|a| a["id"].as_str().unwrap())
            .collect();
        assert_eq!(
            ids(&page),
            want_ids,
            "min_score={m}: best first, ties by id"
        );
        assert!(
            data(&page).iter().all(|a| a.get("distance_km").is_none()),
            "no distance without geo"
        );
    }
    for bad in ["-0.01", "10.01", "abc", "nan", "inf", "1e1"] {
        assert_invalid(
            &app.get(&format!("/v1/areas/search?min_score={bad}")),
            &["min_score"],
        );
    }
}

#[test]
fn limit_is_1_to_50_defaults_to_10_and_the_body_is_data_total_limit() {
    let app = spawn_app();
    for (query, len) in [("", 10), ("&limit=1", 1), ("&limit=50", 50)] {
        let page = app.ok(&format!("/v1/areas/search?min_score=0{query}"));
        let keys: BTreeSet<&str> = page
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, BTreeSet::from(["data", "limit", "total"]));
        assert_eq!(
            (data(&page).len(), page["limit"].as_u64()),
            (len, Some(len as u64))
        );
        assert_eq!(
            page["total"].as_u64(),
            Some(app.listed().len() as u64),
            "total counts every match"
        );
    }
    for bad in ["0", "51", "-1", "5.0"] {
        assert_invalid(
            &app.get(&format!("/v1/areas/search?min_score=0&limit={bad}")),
            &["limit"],
        );
    }
}

/// Runs a text search and checks total, page and order against brute force.
fn check_text(app: &TestApp, q: &str) -> Value {
    let page = app.ok(&format!("/v1/areas/search?q={}&limit=50", encode(q)));
    let want: BTreeSet<&str> = app
        .listed()
        .iter()
        .filter(|a| text_matches(a, q, false))
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        page["total"].as_u64(),
        Some(want.len() as u64),
        "q={q:?}: total"
    );
    let got: BTreeSet<&str> = ids(&page).into_iter().collect();
    assert_eq!(got.len(), data(&page).len(), "q={q:?}: no repeats");
    assert!(got.is_subset(&want), "q={q:?}: only matches");
    if want.len() <= 50 {
        assert_eq!(got, want, "q={q:?}: every match");
    }
    // Areas whose name holds every word come before the others.
    let in_name: Vec<bool> = data(&page)
        .iter()
        .map(|a| text_matches(a, q, true))
        .collect();
    assert!(
        in_name.windows(2).all(|w| w[0] || !w[1]),
        "q={q:?}: name matches first: {:?}",
        ids(&page)
    );
    page
}

#[test]
fn text_search_matches_every_word_as_a_prefix_with_name_matches_first() {
    let app = spawn_app();
    let mut both_kinds = 0;
    for q in [
        "eden",
        "town",
        "johannesburg",
        "alfred",
        "mandela",
        "cape",
        "cape town",
        "port eliz",
        "west coast",
    ] {
        let page = check_text(app, q);
        let in_name = data(&page)
            .iter()
            .filter(|a| text_matches(a, q, true))
            .count();
        both_kinds += (in_name > 0 && in_name < data(&page).len()) as usize;
    }
    assert!(both_kinds >= 3, "the name-first rule was exercised");
    // Case and diacritics fold both ways.
    for q in [
        "danielskuil",
        "DANIELSKUIL",
        "Daniëlskuil",
        "daniel",
        "DANIËL",
    ] {
        let page = check_text(app, q);
        assert_eq!(
            ids(&page).first(),
            Some(&"danielskuil"),
            "q={q:?} finds Daniëlskuil"
        );
    }
}

#[test]
fn q_is_1_to_200_characters_with_a_letter_or_digit() {
    let app = spawn_app();
    // Characters, not bytes: 200 two-byte letters are 400 bytes and allowed.
    for q in [
        "é".repeat(200),
        "a".repeat(200),
        "٣".into(),
        "ж".into(),
        "7".into(),
    ] {
        app.ok(&format!("/v1/areas/search?q={}", encode(&q)));
    }
    for q in [
        "é".repeat(201),
        "a".repeat(201),
        String::new(),
        " ".into(),
        "!!!".into(),
        "-*-".into(),
        "\"\"".into(),
        "()".into(),
    ] {
        assert_invalid(
            &app.get(&format!("/v1/areas/search?q={}", encode(&q))),
            &["q"],
        );
    }
}

#[test]
fn fts_syntax_in_q_is_matched_as_text_and_never_a_500() {
    let app = spawn_app();
    let nasty = [
        "\"cape",
        "cape\"",
        "\"cape town\"",
        "cape*",
        "*cape",
        "NEAR(cape town)",
        "NEAR(",
        "-cape",
        "cape -town",
        "name:cape",
        "name : cape",
        "{name}:cape",
        "^cape",
        "(cape",
        "cape)",
        "(cape OR town)",
        "cape AND town",
        "cape OR town",
        "NOT cape",
        "cape NOT town",
        "AND",
        "OR",
        "NOT",
        "cape + town",
        "'",
        "cape'",
        "\\cape",
        "%",
        "cape_town",
        ";DROP TABLE areas;--",
        "a\"b",
        "cape\"*",
        "cape::",
        "* * *",
        "\u{0}cape",
    ];
    for q in nasty {
        let reply = app.get(&format!("/v1/areas/search?q={}&limit=50", encode(q)));
        assert_ne!(reply.status, 500, "q={q:?}");
        if q.chars().any(char::is_alphanumeric) {
            assert_eq!(
                reply.status,
                200,
                "q={q:?}: {}",
                String::from_utf8_lossy(&reply.body)
            );
            check_text(app, q);
        } else {
            assert_invalid(&reply, &["q"]);
        }
    }
}

#[test]
fn every_given_criterion_must_hold() {
    let app = spawn_app();
    let cape_town = app.detail("cape-town");
    let (lat, lng) = (
        cape_town["coordinates"]["lat"].as_f64().unwrap(),
        cape_town["coordinates"]["lng"].as_f64().unwrap(),
    );
    for (query, min, radius) in [
        ("q=cape&min_score=7", Some(7.0), None),
        ("q=cape&radius=20", None, Some(20.0)),
        ("q=cape&radius=30&min_score=5.5", Some(5.5), Some(30.0)),
        ("q=town&min_score=0", Some(0.0), None),
    ] {
        let geo = radius.map_or(String::new(), |_| format!("&lat={lat}&lng={lng}"));
        let page = app.ok(&format!("/v1/areas/search?{query}{geo}&limit=50"));
        let want: BTreeSet<&str> = areas(app)
            .filter(|(l, d)| {
                text_matches(
                    l,
                    query.split('&').next().unwrap().trim_start_matches("q="),
                    false,
                ) && min.is_none_or(|m| l["truth_score"].as_f64().unwrap() >= m)
                    && radius.is_none_or(|r| distance_to(lat, lng, d) <= r)
            })
            .map(|(l, _)| l["id"].as_str().unwrap())
            .collect();
        assert_eq!(page["total"].as_u64(), Some(want.len() as u64), "{query}");
        assert!(want.len() <= 50, "{query}: the test sees every match");
        assert_eq!(
            ids(&page).into_iter().collect::<BTreeSet<_>>(),
            want,
            "{query}"
        );
        let has_distance = data(&page).iter().all(|a| a.get("distance_km").is_some());
        assert_eq!(
            has_distance,
            radius.is_some(),
            "{query}: distance_km exactly when geo is given"
        );
    }
}
