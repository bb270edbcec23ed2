//! Compare Areas: areas in the order of ids with their dimension scores,
//! winners (highest score, ties to the first listed), `dimensions`
//! restricting both areas[].dimensions and winner.by_dimension, the 2-to-5
//! distinct ids rule, and 404 naming every unknown id.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::{TestApp, assert_error, assert_invalid, key_set, spawn_app};
use serde_json::Value;

use crate::common::seed::DIMENSIONS;

/// The first of `ids` with the highest score by `score`.
fn expected_winner<'a>(app: &TestApp, ids: &[&'a str], score: impl Fn(&Value) -> f64) -> &'a str {
    let mut best = ids[0];
    for id in &ids[1..] {
        if score(app.detail(id)) > score(app.detail(best)) {
            best = id;
        }
    }
    best
}

fn dim_score(dim: &str) -> impl Fn(&Value) -> f64 + '_ {
    move |d: &Value| d["dimensions"][dim]["score"].as_f64().unwrap()
}

/// Checks one comparison against Get Area for each id.
fn check(app: &TestApp, ids: &[&str], dims: Option<&[&str]>) -> Value {
    let mut target = format!("/v1/areas/compare?ids={}", ids.join(","));
    if let Some(d) = dims {
        target += &format!("&dimensions={}", d.join(","));
    }
    let body = app.ok(&target);
    let wanted: BTreeSet<&str> = dims.unwrap_or(&DIMENSIONS).iter().copied().collect();
    let areas = body["areas"].as_array().expect("areas");
    let served: Vec<&str> = areas.iter().map(|a| a["id"].as_str().unwrap()).collect();
    assert_eq!(served, ids, "{target}: areas in the order of ids");
    for area in areas {
        let detail = app.detail(area["id"].as_str().unwrap());
        let keys = key_set(area);
        assert_eq!(
            keys,
            BTreeSet::from(["dimensions", "id", "name", "truth_score"])
        );
        assert_eq!(
            (&area["name"], &area["truth_score"]),
            (&detail["name"], &detail["truth_score"])
        );
        let got: BTreeMap<&str, f64> = area["dimensions"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str(),
                    v.as_f64().expect("a plain number, not the detail object"),
                )
            })
            .collect();
        let want: BTreeMap<&str, f64> = wanted.iter().map(|d| (*d, dim_score(d)(detail))).collect();
        assert_eq!(got, want, "{target}: dimension scores of {}", area["id"]);
    }
    let overall = expected_winner(app, ids, |d| d["truth_score"].as_f64().unwrap());
    assert_eq!(body["winner"]["overall"], overall, "{target}");
    let by_dim = body["winner"]["by_dimension"]
        .as_object()
        .expect("by_dimension");
    assert_eq!(
        by_dim.keys().map(String::as_str).collect::<BTreeSet<_>>(),
        wanted,
        "{target}"
    );
    for dim in &wanted {
        assert_eq!(
            by_dim[*dim],
            expected_winner(app, ids, dim_score(dim)),
            "{target}: {dim}"
        );
    }
    body
}

#[test]
fn compares_2_to_5_areas_in_the_order_given() {
    let app = spawn_app();
    let listed = app.listed();
    let pick: Vec<&str> = (0..5)
        .map(|i| listed[i * 150 + 3]["id"].as_str().unwrap())
        .collect();
    for n in 2..=5 {
        check(app, &pick[..n], None);
        let reversed: Vec<&str> = pick[..n].iter().rev().copied().collect();
        check(app, &reversed, None);
    }
}

#[test]
fn ties_go_to_the_area_listed_first() {
    let app = spawn_app();
    let listed = app.listed();
    // Two areas with the same truth_score, found rather than assumed.
    let pair = listed
        .iter()
        .enumerate()
        .find_map(|(i, a)| {
            let b = listed[i + 1..]
                .iter()
                .find(|b| b["truth_score"] == a["truth_score"])?;
            Some([a["id"].as_str().unwrap(), b["id"].as_str().unwrap()])
        })
        .expect("two areas share a truth_score");
    let (a, b) = (pair[0], pair[1]);
    assert_eq!(check(app, &[a, b], None)["winner"]["overall"], a);
    assert_eq!(check(app, &[b, a], None)["winner"]["overall"], b);
    // A dimension tie between areas whose truth_scores differ.
    let (c, d) = listed
        .iter()
        .enumerate()
        .find_map(|(i, x)| {
            let sx = dim_score("safety")(app.detail(x["id"].as_str().unwrap()));
            let y = listed[i + 1..].iter().find(|y| {
                y["truth_score"] != x["truth_score"]
                    && dim_score("safety")(app.detail(y["id"].as_str().unwrap())) == sx
            })?;
            Some((x["id"].as_str().unwrap(), y["id"].as_str().unwrap()))
        })
        .expect("two areas share a safety score");
    for order in [[c, d], [d, c]] {
        let body = check(app, &order, Some(&["safety"]));
        assert_eq!(body["winner"]["by_dimension"]["safety"], order[0]);
    }
    // A clear winner listed last still wins.
    let mut by_score: Vec<&Value> = listed.iter().collect();
    by_score.sort_by(|x, y| {
        x["truth_score"]
            .as_f64()
            .unwrap()
            .total_cmp(&y["truth_score"].as_f64().unwrap())
    });
    let (low, mid, high) = (
        &by_score[0]["id"],
        &by_score[400]["id"],
        &by_score[937]["id"],
    );
    let ids = [
        low.as_str().unwrap(),
        mid.as_str().unwrap(),
        high.as_str().unwrap(),
    ];
    assert_eq!(check(app, &ids, None)["winner"]["overall"], *high);
}

#[test]
fn dimensions_restricts_both_the_areas_and_the_winners() {
    let app = spawn_app();
    let listed = app.listed();
    let ids: Vec<&str> = [10, 20, 30]
        .iter()
        .map(|&i| listed[i]["id"].as_str().unwrap())
        .collect();
    check(app, &ids, Some(&["safety", "market"]));
    check(app, &ids, Some(&["sentiment"]));
    let all = check(app, &ids, Some(&DIMENSIONS));
    assert_eq!(
        all,
        check(app, &ids, None),
        "naming all seven is the same as naming none"
    );
    let base = format!("/v1/areas/compare?ids={}", ids.join(","));
    for bad in [
        "weather",
        "Safety",
        "safety,safety",
        "safety,",
        ",safety",
        "",
        "safety,+market",
        "safety%2C%2Cmarket",
    ] {
        assert_invalid(
            &app.get(&format!("{base}&dimensions={bad}")),
            &["dimensions"],
        );
    }
}

#[test]
fn ids_must_be_2_to_5_distinct_items() {
    let app = spawn_app();
    let listed = app.listed();
    let six: Vec<&str> = (0..6).map(|i| listed[i]["id"].as_str().unwrap()).collect();
    let (a, b) = (six[0], six[1]);
    check(app, &six[..5], None);
    let msg = assert_invalid(
        &app.get(&format!("/v1/areas/compare?ids={}", six.join(","))),
        &["ids"],
    );
    assert!(
        msg.contains('2') && msg.contains('5'),
        "says what is allowed: {msg}"
    );
    for bad in [
        a.to_string(),
        format!("{a},{b},{a}"),
        format!("{a},{a}"),
        format!("{a},,{b}"),
        format!("{a},{b},"),
        format!(",{a},{b}"),
        String::new(),
    ] {
        assert_invalid(&app.get(&format!("/v1/areas/compare?ids={bad}")), &["ids"]);
    }
    assert_invalid(&app.get("/v1/areas/compare"), &["ids"]);
    assert_invalid(
        &app.get(&format!("/v1/areas/compare?ids={a},{b}&ids={a},{b}")),
        &["ids"],
    );
    assert_invalid(
        &app.get(&format!("/v1/areas/compare?ids={a},{b}&winner=x")),
        &["winner"],
    );
}

#[test]
fn unknown_ids_are_404_naming_every_unknown_id() {
    let app = spawn_app();
    let known = app.listed()[0]["id"].as_str().unwrap();
    let reply = app.get(&format!("/v1/areas/compare?ids=nope-one,{known},nope-two"));
    let msg = assert_error(&reply, 404, "area_not_found", None);
    assert!(
        msg.contains("nope-one") && msg.contains("nope-two"),
        "{msg}"
    );
    assert!(!msg.contains(known), "only unknown ids are named: {msg}");
    // Ids are taken as given: `+` decodes to a space, which is not folded away.
    let msg = assert_error(
        &app.get(&format!("/v1/areas/compare?ids={known},+{known}")),
        404,
        "area_not_found",
        None,
    );
    assert!(msg.contains(&format!(" {known}")), "{msg}");
    let upper = known.to_uppercase();
    let msg = assert_error(
        &app.get(&format!("/v1/areas/compare?ids={known},{upper}")),
        404,
        "area_not_found",
        None,
    );
    assert!(msg.contains(&upper), "{msg}");
    // Parameters are checked before areas.
    assert_invalid(
        &app.get("/v1/areas/compare?ids=nope-one,nope-two&dimensions=weather"),
        &["dimensions"],
    );
}
