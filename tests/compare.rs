//! Compare Areas: areas in the order of ids with their dimension scores,
//! winners (highest score, ties to the lowest id whatever the order) and
//! `ties` (every area of the winning score, in the order of ids),
//! `dimensions` restricting areas[].dimensions, winner.by_dimension and
//! ties.by_dimension, the 2-to-5 distinct ids rule, and 404 naming every
//! unknown id.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::{TestApp, assert_error, assert_invalid, key_set, spawn_app};
use serde_json::{Value, json};

use crate::common::seed::DIMENSIONS;

/// The ids of `ids` with the highest score by `score`, in the order of
/// `ids`, and the lowest of them: the winner.
fn expected_winner<'a>(
    app: &TestApp,
    ids: &[&'a str],
    score: impl Fn(&Value) -> f64,
) -> (&'a str, Vec<&'a str>) {
    let top = ids
        .iter()
        .map(|id| score(app.detail(id)))
        .fold(f64::NEG_INFINITY, f64::max);
    let tied: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| score(app.detail(id)) == top)
        .collect();
    (tied.iter().copied().min().unwrap(), tied)
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
    let winner = &body["winner"];
    assert_eq!(
        key_set(winner),
        BTreeSet::from(["by_dimension", "overall", "ties"])
    );
    let (overall, tied) = expected_winner(app, ids, |d| d["truth_score"].as_f64().unwrap());
    assert_eq!(winner["overall"], overall, "{target}");
    assert_eq!(winner["ties"]["overall"], json!(tied), "{target}");
    let by_dim = winner["by_dimension"].as_object().expect("by_dimension");
    let ties_by_dim = winner["ties"]["by_dimension"].as_object().expect("ties");
    for dims in [by_dim, ties_by_dim] {
        assert_eq!(
            dims.keys().map(String::as_str).collect::<BTreeSet<_>>(),
            wanted,
            "{target}"
        );
    }
    for dim in &wanted {
        let (best, tied) = expected_winner(app, ids, dim_score(dim));
        assert_eq!(by_dim[*dim], best, "{target}: {dim}");
        assert_eq!(ties_by_dim[*dim], json!(tied), "{target}: {dim}");
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
fn the_two_heidelbergs_tie_and_the_lower_id_wins_in_either_order() {
    let app = spawn_app();
    let (gauteng, cape) = ("heidelberg-gauteng", "heidelberg-western-cape");
    let score = |id| app.detail(id)["truth_score"].as_f64().unwrap();
    assert_eq!(
        (score(gauteng), score(cape)),
        (5.45, 5.45),
        "the seed's tie"
    );
    for order in [[gauteng, cape], [cape, gauteng]] {
        let body = check(app, &order, None);
        assert_eq!(body["winner"]["overall"], gauteng, "{order:?}");
        assert_eq!(body["winner"]["ties"]["overall"], json!(order), "{order:?}");
    }
    // A third area of a lower score takes no part in the tie.
    let low = app
        .listed()
        .iter()
        .find(|a| a["truth_score"].as_f64().unwrap() < 5.45)
        .unwrap()["id"]
        .as_str()
        .unwrap();
    let body = check(app, &[cape, low, gauteng], None);
    assert_eq!(body["winner"]["ties"]["overall"], json!([cape, gauteng]));
}

#[test]
fn rondebosch_and_newlands_tie_on_safety_and_say_so() {
    let app = spawn_app();
    let safety = dim_score("safety");
    let (a, b) = ("newlands", "rondebosch");
    assert_eq!(
        safety(app.detail(a)),
        safety(app.detail(b)),
        "the seed's tie"
    );
    for order in [[a, b], [b, a]] {
        let body = check(app, &order, Some(&["safety"]));
        assert_eq!(body["winner"]["by_dimension"]["safety"], a, "{order:?}");
        assert_eq!(
            body["winner"]["ties"]["by_dimension"]["safety"],
            json!(order),
            "{order:?}"
        );
    }
}

#[test]
fn a_clear_winner_listed_last_wins_alone() {
    let app = spawn_app();
    let listed = app.listed();
    let mut by_score: Vec<&Value> = listed.iter().collect();
    by_score.sort_by(|x, y| {
        x["truth_score"]
            .as_f64()
            .unwrap()
            .total_cmp(&y["truth_score"].as_f64().unwrap())
    });
    let ids = [0, 400, 937].map(|i| by_score[i]["id"].as_str().unwrap());
    let body = check(app, &ids, None);
    assert_eq!(body["winner"]["overall"], ids[2]);
    assert_eq!(body["winner"]["ties"]["overall"], json!([ids[2]]));
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
