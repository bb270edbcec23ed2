//! Forgiving search end to end on the seed (docs/api.md, "Search Areas"): the
//! names people type find their place first; exact names still come
//! first; strings that name no place find nothing; every tier's members,
//! order and total equal brute force (tests/common/forgiving.rs) for random
//! misspellings of the seed's names, and paging meets each match once.

use crate::common::forgiving::{Field, fields, order_key};
use crate::common::rng::Rng;
use crate::common::{TestApp, assert_error, data, encode, ids, spawn_app};
use serde_json::Value;

fn search(app: &TestApp, q: &str, extra: &str) -> Value {
    app.ok(&format!("/v1/areas/search?q={}{extra}", encode(q)))
}

/// The seed's areas with their texts as forgiving search reads them, and
/// the list form's name length (the search rank's first key).
fn seed(app: &TestApp) -> Vec<(String, usize, Vec<Field>)> {
    app.details()
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap().to_string();
            let others: Vec<String> = d["other_names"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap().to_string())
                .collect();
            let main = [s("name"), s("municipality"), s("province")];
            let f = fields([&main[0], &main[1], &main[2]], &others);
            (s("id"), main[0].chars().count(), f)
        })
        .collect()
}

/// Every match of q in order, by brute force.
fn expected(areas: &[(String, usize, Vec<Field>)], q: &str) -> Vec<String> {
    let words: Vec<String> = q
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect();
    let mut found: Vec<_> = areas
        .iter()
        .filter_map(|(id, len, f)| order_key(f, &words).map(|k| (k, *len, id.clone())))
        .collect();
    found.sort();
    found.into_iter().map(|(_, _, id)| id).collect()
}

#[test]
fn the_names_people_type_find_their_place_first() {
    let app = spawn_app();
    for (q, id, tier) in [
        ("johanesburg", "johannesburg", "other_name"),
        ("sowetto", "soweto", "one_typo"),
        ("stellenbosh", "stellenbosch", "one_typo"),
        ("pietermarizburg", "pietermaritzburg", "one_typo"),
        ("capetown", "cape-town", "one_typo"),
        ("mosselbay", "mossel-bay", "one_typo"),
        ("richardsbay", "richards-bay", "one_typo"),
        ("vanderbijl park", "vanderbijlpark", "one_typo"),
        ("port elizabeth", "gqeberha", "other_name"),
        ("nelspruit", "mbombela", "other_name"),
        ("pietersburg", "polokwane", "other_name"),
        ("witbank", "emalahleni", "other_name"),
        ("uitenhage", "kariega", "other_name"),
        ("paarl", "paarl", "exact"),
        ("george", "george", "exact"),
        ("johannesbrug", "johannesburg", "one_typo"),
    ] {
        let page = search(app, q, "&limit=3");
        let first = &data(&page)[0];
        assert_eq!(first["id"], id, "q={q:?}: {page}");
        assert_eq!(first["match"]["tier"], tier, "q={q:?}: {page}");
    }
    let page = search(app, "port elizabeth", "");
    let renamed = &data(&page)[0];
    assert_eq!(renamed["match"]["other_name"], "Port Elizabeth");
    assert_eq!(
        renamed["match"]["words"],
        serde_json::json!(["port", "elizabeth"])
    );
    let page = search(app, "stellenbosh", "");
    let typo = &data(&page)[0];
    assert_eq!(typo["match"]["words"], serde_json::json!(["stellenbosch"]));
    assert_eq!(typo["match"]["other_name"], Value::Null);
}

#[test]
fn a_string_that_names_no_place_finds_nothing() {
    let app = spawn_app();
    for q in [
        "xqzv",
        "qwertyuiop",
        "zzzzzz",
        "blorfington",
        "kwxjq pzv",
        "1234567",
    ] {
        assert_eq!(search(app, q, "")["total"], 0, "q={q:?}");
    }
}

#[test]
fn exact_matching_is_asked_for_and_anything_else_is_400() {
    let app = spawn_app();
    assert_eq!(search(app, "johanesburg", "&match=exact")["total"], 0);
    assert!(search(app, "johanesburg", "&match=forgiving")["total"].as_u64() > Some(0));
    for bad in ["fuzzy", "", "EXACT"] {
        let reply = app.get(&format!("/v1/areas/search?q=cape&match={}", encode(bad)));
        assert_error(&reply, 400, "invalid_parameter", Some("match"));
    }
}

#[test]
fn csv_keeps_its_columns_and_geojson_carries_the_match() {
    let app = spawn_app();
    let csv = app.get("/v1/areas/search?q=nelspruit&format=csv");
    let text = csv.text();
    assert_eq!(
        text.lines().next(),
        Some("id,name,province,province_slug,municipality,truth_score,updated_at,lat,lng")
    );
    assert!(text.contains("mbombela,Mbombela"), "{text}");
    let geo: Value = app
        .get("/v1/areas/search?q=nelspruit&format=geojson")
        .json();
    let props = &geo["features"][0]["properties"];
    assert_eq!(props["match"]["tier"], "other_name", "{geo}");
    assert_eq!(props["match"]["other_name"], "Nelspruit");
    // No q, no match.
    let near = app.ok("/v1/areas/search?lat=-25.47&lng=30.97&radius=5");
    assert!(
        data(&near).iter().all(|a| a.get("match").is_none()),
        "{near}"
    );
}

/// Words of a seed text with up to two random edits, joined or split.
fn misspelt(rng: &mut Rng, areas: &[(String, usize, Vec<Field>)]) -> String {
    let (_, _, f) = &areas[rng.below(areas.len())];
    let field = &f[rng.below(f.len())];
    let mut words: Vec<String> = field.words.iter().take(2).cloned().collect();
    if words.is_empty() {
        return "x".into();
    }
    for _ in 0..rng.below(3) {
        let i = rng.below(words.len());
        let mut b = words[i].clone().into_bytes();
        let at = rng.below(b.len().max(1));
        match rng.below(4) {
            0 => b.insert(at, b"aeiost"[rng.below(6)]),
            1 if b.len() > 1 => drop(b.remove(at)),
            2 if at + 1 < b.len() => b.swap(at, at + 1),
            _ if !b.is_empty() => b[at] = b"aeiost"[rng.below(6)],
            _ => {}
        }
        words[i] = String::from_utf8(b).unwrap_or_default();
    }
    if words.len() == 2 && rng.below(3) == 0 {
        words = vec![words.concat()];
    }
    words.join(" ")
}

#[test]
fn every_tier_equals_brute_force_and_paging_meets_each_match_once() {
    let app = spawn_app();
    let areas = seed(app);
    let mut rng = Rng(29);
    let mut several_pages = 0;
    for _ in 0..60 {
        let q = misspelt(&mut rng, &areas);
        if q.trim().is_empty() {
            continue;
        }
        let want = expected(&areas, &q);
        let mut got = Vec::new();
        let limit = 7;
        let mut offset = 0;
        loop {
            let page = search(app, &q, &format!("&limit={limit}&offset={offset}"));
            assert_eq!(page["total"].as_u64(), Some(want.len() as u64), "q={q:?}");
            let page_ids = ids(&page);
            got.extend(page_ids.iter().map(|s| s.to_string()));
            offset += limit;
            if page_ids.len() < limit {
                break;
            }
        }
        several_pages += usize::from(offset > 2 * limit);
        assert_eq!(got, want, "q={q:?}");
    }
    assert!(
        several_pages >= 5,
        "some searches span several pages: {several_pages}"
    );
}

/// A file written before neighbouring words were joined (schema 4), once
/// `area-scoring upgrade` has rewritten it, finds for each split word what
/// today's file finds, as the last word too.
#[test]
fn a_file_before_the_joined_words_splits_words_as_today_once_upgraded() {
    let app = spawn_app();
    let db = crate::common::fresh_db("schema-4");
    let (_, key) = crate::common::new_key(&db, area_scoring::domain::Plan::Free);
    crate::common::sql(
        &db,
        "DROP TABLE joined_fts; DROP TABLE other_joined_fts; PRAGMA user_version = 4;",
    );
    crate::common::bin::ok(&["upgrade", db.to_str().unwrap()]);
    let older = crate::common::bin::Served::spawn(&db, &[]);
    for q in [
        "capetown",
        "mosselbay",
        "richardsbay",
        "capeto",
        "portelizabeth",
        "capetown west",
    ] {
        let target = format!("/v1/areas/search?q={}&limit=50", encode(q));
        let reply = older.get(&target, &key);
        assert_eq!(reply.status, 200, "q={q:?}");
        let got: Value = serde_json::from_slice(&reply.body).unwrap();
        let want = search(app, q, "&limit=50");
        assert_eq!(got["total"], want["total"], "q={q:?}");
        assert_eq!(data(&got), data(&want), "q={q:?}");
        if q != "capetown west" {
            assert!(want["total"].as_u64() > Some(0), "q={q:?} finds its place");
        }
    }
}

/// A word with a letter that FTS5 folds and search's own fold leaves
/// (Latin Extended Additional, as in "Hạ Long") finds what strict matching
/// finds, though the vocabulary holds the word only in its folded form;
/// "bay" also starts an other name, so the forgiving tiers are read.
#[test]
fn a_letter_only_the_index_folds_still_finds_its_area() {
    let dir = crate::common::scratch_dir("forgiving-index-fold");
    let (db, csv) = (dir.join("areas.db"), dir.join("areas.csv"));
    std::fs::write(
        &csv,
        "id,name,province,municipality,lat,lng,safety,safety_weight,safety_sources,other_names\n\
         ha-long,Hạlong Bay,gauteng,City of Johannesburg,-26.2,28.04,6.5,1,saps,Bayview\n",
    )
    .unwrap();
    crate::common::bin::ok(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        csv.to_str().unwrap(),
    ]);
    let (_, key) = crate::common::new_key(&db, area_scoring::domain::Plan::Free);
    let served = crate::common::bin::Served::spawn(&db, &[]);
    for (q, matching) in [
        ("hạlong bay", ""),
        ("hạlong bay", "&match=exact"),
        ("Hạlong", ""),
        ("hạlong bayvi", ""),
    ] {
        let target = format!("/v1/areas/search?q={}{matching}", encode(q));
        let reply = served.get(&target, &key);
        assert_eq!(reply.status, 200, "q={q:?}{matching}");
        let found: Value = serde_json::from_slice(&reply.body).unwrap();
        assert_eq!(ids(&found), ["ha-long"], "q={q:?}{matching}: {found}");
    }
}
