//! Search Areas by text and by score: text search against a brute-force
//! prefix match over name, municipality and province (name matches first),
//! q's length and letter rules, q holding query-syntax characters (always
//! plain text, never a 500), min_score alone, limit, and the body's shape.
//! Geo search is in tests/geo.rs.

use std::collections::BTreeSet;

use crate::common::calc::{by_relevance, text_matches};
use crate::common::{TestApp, assert_invalid, data, encode, ids, key_set, spawn_app};
use serde_json::Value;

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
    for bad in ["-0.01", "10.01", "abc", "nan", "inf", "1.01e1"] {
        assert_invalid(
            &app.get(&format!("/v1/areas/search?min_score={bad}")),
            &["min_score"],
        );
    }
}

#[test]
fn limit_is_1_to_50_defaults_to_10_and_the_body_is_data_total_limit_offset() {
    let app = spawn_app();
    for (query, len) in [("", 10), ("&limit=1", 1), ("&limit=50", 50)] {
        let page = app.ok(&format!("/v1/areas/search?min_score=0{query}"));
        let keys = key_set(&page);
        assert_eq!(keys, BTreeSet::from(["data", "limit", "offset", "total"]));
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
    let page = app.ok(&format!(
        "/v1/areas/search?q={}&match=exact&limit=50",
        encode(q)
    ));
    for item in data(&page) {
        // The list form of the area, as List Areas gives it, and how it matched.
        let mut item = item.clone();
        let matched = item.as_object_mut().unwrap().remove("match");
        let listed = app.listed().iter().find(|a| a["id"] == item["id"]);
        assert_eq!(Some(&item), listed, "q={q:?}");
        assert_eq!(matched.expect("a match")["tier"], "exact", "q={q:?}");
    }
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

/// Relevance is exact: name matches first, then shorter names (in
/// characters), then id. A filter that keeps every area (min_score=0) takes
/// the filtered path and must give the same page, and a short page is the
/// start of a long one.
#[test]
fn text_search_ranks_name_matches_then_shorter_names_then_id() {
    let app = spawn_app();
    for q in [
        "cape",
        "town",
        "port",
        "west coast",
        "n",
        "eden",
        "mandela",
        "kwa",
    ] {
        let matching = app.listed().iter().filter(|a| text_matches(a, q, false));
        let want = by_relevance(matching.collect(), q);
        let target = |extra: &str| format!("/v1/areas/search?q={}&match=exact{extra}", encode(q));
        let plain = app.ok(&target("&limit=50"));
        assert_eq!(ids(&plain), want[..want.len().min(50)], "q={q:?}");
        assert_eq!(plain["total"].as_u64(), Some(want.len() as u64), "q={q:?}");
        let filtered = app.ok(&target("&limit=50&min_score=0"));
        assert_eq!(filtered, plain, "q={q:?}: min_score=0 changes nothing");
        for k in [1, 3, 20] {
            let short = app.ok(&target(&format!("&limit={k}")));
            assert_eq!(ids(&short), want[..want.len().min(k)], "q={q:?} limit={k}");
            assert_eq!(short["total"], plain["total"], "q={q:?} limit={k}");
        }
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
