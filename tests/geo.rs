//! Geo: search by circle against a brute-force haversine (Earth radius
//! 6371.0088 km) over every area, the exact edge of the circle, the bounds of
//! lat, lng and radius, circles combined with q and min_score, and nearby
//! (at most 5, within 25 km, nearest first, never the area itself).

use crate::common::calc::{
    by_relevance, distance_to, has_two_decimals_at_most, haversine_km, text_matches,
};
use crate::common::{
    TestApp, assert_invalid, assert_nearest_first, coordinates, data, ids, keys, spawn_app,
};
use serde_json::Value;

#[test]
fn nearby_is_the_nearest_five_other_areas_within_25_km() {
    let app = spawn_app();
    let details = app.details();
    let mut seen_full = false;
    for here in details {
        let (lat, lng) = coordinates(here);
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
            assert!(has_two_decimals_at_most(d), "{d}");
            let (to_lat, to_lng) = coordinates(other);
            let exact = haversine_km(lat, lng, to_lat, to_lng);
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
        // The list form of the area plus distance_km, at most two decimals.
        let mut list_form = item.clone();
        let d = list_form.as_object_mut().unwrap().remove("distance_km");
        let d = d.and_then(|d| d.as_f64()).expect("distance_km with geo");
        assert!(has_two_decimals_at_most(d), "{target}: {d}");
        assert_eq!(
            Some(&list_form),
            app.listed().iter().find(|a| a["id"] == item["id"])
        );
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
    let at = |i: usize| coordinates(&details[i]);
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
fn every_given_criterion_must_hold() {
    let app = spawn_app();
    let cape_town = app.detail("cape-town");
    let (lat, lng) = coordinates(cape_town);
    for (query, min, radius) in [
        ("q=cape&min_score=7", Some(7.0), None),
        ("q=cape&radius=20", None, Some(20.0)),
        ("q=cape&radius=30&min_score=5.5", Some(5.5), Some(30.0)),
        ("q=town&min_score=0", Some(0.0), None),
    ] {
        let geo = radius.map_or(String::new(), |_| format!("&lat={lat}&lng={lng}"));
        let page = app.ok(&format!(
            "/v1/areas/search?{query}{geo}&match=exact&limit=50"
        ));
        let q = query.split('&').next().unwrap().trim_start_matches("q=");
        let matching = areas(app).filter(|(l, d)| {
            text_matches(l, q, false)
                && min.is_none_or(|m| l["truth_score"].as_f64().unwrap() >= m)
                && radius.is_none_or(|r| distance_to(lat, lng, d) <= r)
        });
        let want = by_relevance(matching.map(|(l, _)| l).collect(), q);
        assert_eq!(page["total"].as_u64(), Some(want.len() as u64), "{query}");
        assert!(want.len() <= 50, "{query}: the test sees every match");
        assert_eq!(ids(&page), want, "{query}");
        let short = app.ok(&format!(
            "/v1/areas/search?{query}{geo}&match=exact&limit=3"
        ));
        assert_eq!(ids(&short), want[..want.len().min(3)], "{query} limit=3");
        assert_eq!(short["total"], page["total"], "{query} limit=3");
        let has_distance = data(&page).iter().all(|a| a.get("distance_km").is_some());
        assert_eq!(
            has_distance,
            radius.is_some(),
            "{query}: distance_km exactly when geo is given"
        );
    }
}

#[test]
fn the_edge_of_the_circle_is_exact_haversine_with_the_mean_earth_radius() {
    let app = spawn_app();
    let details = app.details();
    let mut checked = 0;
    for centre in details.iter().step_by(60) {
        let (lat, lng) = coordinates(centre);
        // The nearest other area between 1 and 49 km away: first on its page.
        let nearest = details
            .iter()
            .filter(|o| o["id"] != centre["id"])
            .map(|o| (distance_to(lat, lng, o), o))
            .filter(|(d, _)| (1.0..49.0).contains(d))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let Some((d, other)) = nearest else { continue };
        if details
            .iter()
            .any(|o| o["id"] != other["id"] && (distance_to(lat, lng, o) - d).abs() < 1e-5)
        {
            continue;
        }
        // A tenth of a millimetre either side of the exact distance. A radius
        // of 6371 km instead of 6371.0088 moves a 1 km distance by 1.4 mm.
        for (radius, inside) in [(d + 1e-7, true), (d - 1e-7, false)] {
            let page = app.ok(&format!(
                "/v1/areas/search?lat={lat}&lng={lng}&radius={radius:.10}&limit=50"
            ));
            let found = ids(&page).contains(&other["id"].as_str().unwrap());
            assert_eq!(
                found, inside,
                "{} at {d} km from {}, radius {radius:.10}",
                other["id"], centre["id"]
            );
        }
        checked += 1;
    }
    assert!(checked >= 5, "enough edges checked: {checked}");
}
