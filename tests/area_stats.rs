//! Area statistics (`/v1/areas/stats`, `.csv`) and include=rank, against a
//! brute force written here from the definitions in docs/api.md, "Area
//! statistics": every area's scores read from the file, each group's sorted
//! whole, type-7 quantiles and the mean in exact integer hundredths, every
//! standing counted area by area. Over the seed (every grouping and measure,
//! every area's rank), over 20,000 generated areas, over a small import whose answers are worked out by
//! hand (ties, a missing dimension, an empty province, one municipality name
//! in two provinces, paging), after an import that changes the scores, bad
//! parameters, CSV, and `upgrade` from layout 8.

use std::collections::BTreeMap;
use std::path::Path;

use area_scoring::domain::{MEASURES, PROVINCES, Plan};
use serde_json::{Value, json};

use crate::common::bin::{Served, run, text};
use crate::common::{TestApp, spawn_app};

/// Every area's (province slug, municipality, scores by measure in hundredths).
type Area = (String, String, BTreeMap<String, i64>);

fn areas_of(db: &Path) -> BTreeMap<String, Area> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let hundredths = |x: f64| (x * 100.0).round() as i64;
    let mut out = BTreeMap::new();
    let mut stmt = conn
        .prepare("SELECT area_no, id, province_slug, municipality, truth_score FROM areas")
        .unwrap();
    let rows: Vec<(i64, String, String, String, f64)> = stmt
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut dims = conn
        .prepare("SELECT dimension, score FROM area_dimensions WHERE area_no = ?1")
        .unwrap();
    for (no, id, slug, municipality, truth) in rows {
        let mut scores = BTreeMap::from([("truth_score".to_string(), hundredths(truth))]);
        for d in dims
            .query_map([no], |r| Ok((r.get::<_, String>(0)?, r.get::<_, f64>(1)?)))
            .unwrap()
        {
            let (name, score) = d.unwrap();
            scores.insert(name, hundredths(score));
        }
        out.insert(id, (slug, municipality, scores));
    }
    out
}

/// `n / d` rounded half away from zero, for non-negative numbers.
fn rounded(n: i64, d: i64) -> i64 {
    (2 * n + d) / (2 * d)
}

/// A group's statistics of one measure as the API writes them.
fn brute_stats(mut values: Vec<i64>) -> Value {
    if values.is_empty() {
        let mut out = json!({"count": 0});
        for k in ["mean", "min", "max", "p10", "p25", "p50", "p75", "p90"] {
            out[k] = Value::Null;
        }
        return out;
    }
    values.sort_unstable();
    let n = values.len() as i64;
    let points = |h: i64| json!(h as f64 / 100.0);
    let quantile = |p: i64| {
        let h = (n - 1) * p;
        let (lo, frac) = ((h / 100) as usize, h % 100);
        let hi = values[(lo + 1).min(values.len() - 1)];
        points(rounded(100 * values[lo] + frac * (hi - values[lo]), 100))
    };
    json!({
        "count": n,
        "mean": points(rounded(values.iter().sum(), n)),
        "min": points(values[0]),
        "max": points(values[values.len() - 1]),
        "p10": quantile(10), "p25": quantile(25), "p50": quantile(50),
        "p75": quantile(75), "p90": quantile(90),
    })
}

/// The measures of the areas `of` picks, as the API's `measures` object.
fn brute_group(areas: &BTreeMap<String, Area>, of: impl Fn(&Area) -> bool) -> Value {
    let mut out = serde_json::Map::new();
    for m in MEASURES {
        let values = areas
            .values()
            .filter(|a| of(a))
            .filter_map(|a| a.2.get(m).copied())
            .collect();
        out.insert(m.to_string(), brute_stats(values));
    }
    Value::Object(out)
}

/// A standing counted over every area of the scope.
fn brute_place(
    areas: &BTreeMap<String, Area>,
    measure: &str,
    score: i64,
    slug: Option<&str>,
) -> Value {
    let scores: Vec<i64> = areas
        .values()
        .filter(|a| slug.is_none_or(|s| a.0 == s))
        .filter_map(|a| a.2.get(measure).copied())
        .collect();
    let (lower, equal) = (
        scores.iter().filter(|s| **s < score).count() as i64,
        scores.iter().filter(|s| **s == score).count() as i64,
    );
    let n = scores.len() as i64;
    let higher = n - lower - equal;
    json!({
        "position": 1 + higher,
        "of": n,
        "percentile": rounded(500 * (2 * lower + equal), n) as f64 / 10.0,
    })
}

fn brute_rank(areas: &BTreeMap<String, Area>, id: &str) -> Value {
    let (slug, _, scores) = &areas[id];
    let mut out = serde_json::Map::new();
    for m in MEASURES {
        if let Some(&score) = scores.get(m) {
            out.insert(
                m.to_string(),
                json!({
                    "national": brute_place(areas, m, score, None),
                    "province": brute_place(areas, m, score, Some(slug)),
                }),
            );
        }
    }
    Value::Object(out)
}

const ALL: &str =
    "truth_score,safety,infrastructure,service_delivery,market,amenities,environment,sentiment";

/// Every municipality group, paged through `limit` at a time.
fn every_municipality(app: &TestApp, limit: usize, province: &str) -> Vec<Value> {
    let mut all = Vec::new();
    loop {
        let page = app.ok(&format!(
            "/v1/areas/stats?group_by=municipality&measures={ALL}&limit={limit}&offset={}{province}",
            all.len()
        ));
        let data = page["data"].as_array().unwrap().clone();
        let total = page["total"].as_u64().unwrap() as usize;
        assert_eq!(page["limit"], json!(limit));
        all.extend(data.iter().cloned());
        if data.is_empty() || all.len() >= total {
            assert_eq!(all.len(), total);
            return all;
        }
    }
}

/// Every grouping and measure of `app` equals the brute force over its file.
fn assert_stats_equal_brute_force(app: &TestApp) -> usize {
    let areas = areas_of(&app.db);
    let mut compared = 0;
    let every = app.ok(&format!("/v1/areas/stats?measures={ALL}"));
    assert_eq!(every["group_by"], Value::Null);
    assert_eq!(
        every["data"],
        json!([{"group": null, "measures": brute_group(&areas, |_| true)}])
    );
    assert!(
        every.get("total").is_none(),
        "only municipality groups are paged"
    );
    let provinces = app.ok(&format!("/v1/areas/stats?group_by=province&measures={ALL}"));
    let want: Vec<Value> = PROVINCES
        .iter()
        .map(|(slug, _)| json!({"group": slug, "measures": brute_group(&areas, |a| a.0 == *slug)}))
        .collect();
    assert_eq!(provinces, json!({"group_by": "province", "data": want}));
    compared += 1 + PROVINCES.len();
    let mut keys: Vec<(String, String)> =
        areas.values().map(|a| (a.1.clone(), a.0.clone())).collect();
    keys.sort_by(|a, b| (a.0.to_lowercase(), &a.0, &a.1).cmp(&(b.0.to_lowercase(), &b.0, &b.1)));
    keys.dedup();
    let want: Vec<Value> = keys
        .iter()
        .map(|(name, slug)| {
            let measures = brute_group(&areas, |a| a.0 == *slug && a.1 == *name);
            json!({"group": name, "province": slug, "measures": measures})
        })
        .collect();
    assert_eq!(every_municipality(app, 1000, ""), want);
    assert_eq!(
        every_municipality(app, 7, ""),
        want,
        "paged seven at a time"
    );
    for (slug, _) in PROVINCES {
        let of_province: Vec<Value> = want
            .iter()
            .filter(|g| g["province"] == *slug)
            .cloned()
            .collect();
        assert_eq!(
            every_municipality(app, 3, &format!("&province={slug}")),
            of_province,
            "{slug}"
        );
        let one = app.ok(&format!("/v1/areas/stats?province={slug}&measures=safety"));
        let measures = brute_group(&areas, |a| a.0 == slug);
        assert_eq!(
            one["data"][0]["measures"]["safety"], measures["safety"],
            "{slug}"
        );
    }
    compared + want.len()
}

#[test]
fn every_statistic_of_the_seed_equals_a_brute_force() {
    let app = spawn_app();
    let groups = assert_stats_equal_brute_force(app);
    assert!(groups > 50, "only {groups} groups compared");
}

/// Twenty thousand generated areas (`init --synthetic`, two days of history
/// to keep it short): many areas a group, so that the quantiles fall between
/// ranks and scores tie by the hundred. Every statistic, and the standing of
/// every 40th area.
#[test]
fn twenty_thousand_synthetic_areas_equal_a_brute_force() {
    let dir = crate::common::scratch_dir("area-stats-synthetic");
    let db = dir.join("areas.db");
    let out = run(
        &[
            "init",
            "--db",
            db.to_str().unwrap(),
            "--synthetic",
            "20000",
            "--history-days",
            "2",
        ],
        &[],
        &dir,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let app = TestApp::over(db);
    let groups = assert_stats_equal_brute_force(&app);
    assert!(groups > 50, "only {groups} groups compared");
    let areas = areas_of(&app.db);
    assert_eq!(areas.len(), 20_000);
    let mut standings = 0;
    for id in areas.keys().step_by(40) {
        let got = app.ok(&format!("/v1/areas/{id}?include=rank"));
        assert_eq!(got["rank"], brute_rank(&areas, id), "{id}");
        standings += 1;
    }
    assert_eq!(standings, 500);
}

#[test]
fn every_seed_area_stands_where_a_brute_force_puts_it() {
    let app = spawn_app();
    let areas = areas_of(&app.db);
    let mut ties = 0;
    for (id, (slug, _, scores)) in &areas {
        let got = app.ok(&format!("/v1/areas/{id}?include=rank"));
        assert_eq!(got["rank"], brute_rank(&areas, id), "{id}");
        let tied = areas.iter().any(|(other, a)| {
            other != id && a.0 == *slug && a.2["truth_score"] == scores["truth_score"]
        });
        ties += usize::from(tied);
    }
    assert!(
        areas.len() > 900 && ties > 50,
        "{} areas, {ties} tied in their province",
        areas.len()
    );
}

#[test]
fn compare_and_the_area_at_a_point_carry_the_rank_on_request() {
    let app = spawn_app();
    let areas = areas_of(&app.db);
    let plain = app.ok("/v1/areas/compare?ids=johannesburg,pretoria&dimensions=safety");
    assert!(
        plain["areas"][0].get("rank").is_none(),
        "unchanged without include"
    );
    let ranked =
        app.ok("/v1/areas/compare?ids=johannesburg,pretoria&dimensions=safety&include=rank");
    for (i, id) in ["johannesburg", "pretoria"].iter().enumerate() {
        let mut want = brute_rank(&areas, id);
        want.as_object_mut()
            .unwrap()
            .retain(|m, _| m == "truth_score" || m == "safety");
        assert_eq!(ranked["areas"][i]["rank"], want, "{id}");
    }
    let mut without_rank = ranked.clone();
    for a in without_rank["areas"].as_array_mut().unwrap() {
        a.as_object_mut().unwrap().remove("rank");
    }
    assert_eq!(
        without_rank, plain,
        "include=rank adds rank and nothing else"
    );
    let at = app.ok("/v1/areas/at?lat=-26.1076&lng=28.0567&include=rank");
    let id = at["id"].as_str().unwrap();
    assert_eq!(at["rank"], brute_rank(&areas, id));
    app.get("/v1/areas/compare?ids=johannesburg,pretoria&include=nearby")
        .assert_error(400, "invalid_parameter");
    // The free plan has both.
    assert_eq!(app.get_as(Plan::Free, "/v1/areas/stats").status, 200);
    assert_eq!(
        app.get_as(Plan::Free, "/v1/areas/johannesburg?include=rank")
            .status,
        200
    );
}

/// Six areas worked out by hand; truth_score is each area's weighted mean.
const SMALL: &str = "id,name,province,municipality,lat,lng,safety,safety_weight,safety_sources,market,market_weight,market_sources
a1,A One,gauteng,Emfuleni,-26.6,27.9,5,1,s,,,
a2,A Two,gauteng,Emfuleni,-26.61,27.9,5,1,s,,,
a3,A Three,gauteng,Emfuleni,-26.62,27.9,7,0.5,s,3,0.5,m
a4,A Four,gauteng,Midvaal,-26.5,28.0,8,1,s,,,
a5,A Five,western-cape,Emfuleni,-33.9,18.4,2,1,s,,,
a6,A Six,western-cape,Cape Town,-33.91,18.41,6.5,0.5,s,9,0.5,m
";

fn small_app() -> TestApp {
    let dir = crate::common::scratch_dir("area-stats-small");
    let file = dir.join("small.csv");
    std::fs::write(&file, SMALL).unwrap();
    let db = dir.join("areas.db");
    let out = run(
        &[
            "import",
            "--db",
            db.to_str().unwrap(),
            file.to_str().unwrap(),
        ],
        &[],
        &dir,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    TestApp::over(db)
}

#[test]
fn a_small_import_has_the_answers_worked_out_by_hand() {
    let app = small_app();
    // truth_score: 2, 5, 5, 5, 7.75, 8. p10: h = 0.5, 2 + 0.5 × 3; p75: h =
    // 3.75, 5 + 0.75 × 2.75 = 7.0625; p90: h = 4.5, 7.875, half away: 7.88.
    let every = app.ok("/v1/areas/stats?measures=truth_score,market");
    assert_eq!(
        every["data"][0]["measures"],
        json!({
            "truth_score": {"count": 6, "mean": 5.46, "min": 2.0, "max": 8.0, "p10": 3.5, "p25": 5.0, "p50": 5.0, "p75": 7.06, "p90": 7.88},
            "market": {"count": 2, "mean": 6.0, "min": 3.0, "max": 9.0, "p10": 3.6, "p25": 4.5, "p50": 6.0, "p75": 7.5, "p90": 8.4},
        })
    );
    let provinces = app.ok("/v1/areas/stats?group_by=province");
    let data = provinces["data"].as_array().unwrap();
    assert_eq!(data.len(), PROVINCES.len(), "every province, empty or not");
    let limpopo = data.iter().find(|g| g["group"] == "limpopo").unwrap();
    assert_eq!(
        limpopo["measures"]["truth_score"],
        json!({"count": 0, "mean": null, "min": null, "max": null, "p10": null, "p25": null, "p50": null, "p75": null, "p90": null})
    );
    let page = app.ok("/v1/areas/stats?group_by=municipality&limit=2&offset=1&measures=safety");
    let groups: Vec<(Value, Value)> = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["group"].clone(), g["province"].clone()))
        .collect();
    assert_eq!(
        groups,
        [
            (json!("Emfuleni"), json!("gauteng")),
            (json!("Emfuleni"), json!("western-cape"))
        ]
    );
    assert_eq!(
        (page["total"].clone(), page["offset"].clone()),
        (json!(4), json!(1))
    );
    assert_eq!(page["data"][1]["measures"]["safety"]["count"], json!(1));
    // a1, a2 and a3 tie at 5: two higher nationally (7.75, 8), one lower.
    let a1 = app.ok("/v1/areas/a1?include=rank");
    assert_eq!(
        a1["rank"]["truth_score"],
        json!({"national": {"position": 3, "of": 6, "percentile": 41.7}, "province": {"position": 2, "of": 4, "percentile": 37.5}})
    );
    assert!(a1["rank"].get("market").is_none(), "a1 has no market score");
    let a3 = app.ok("/v1/areas/a3?include=rank");
    assert_eq!(
        a3["rank"]["market"]["national"],
        json!({"position": 2, "of": 2, "percentile": 25.0})
    );
    assert_eq!(
        a3["rank"]["market"]["province"],
        json!({"position": 1, "of": 1, "percentile": 50.0})
    );
    assert_stats_equal_brute_force(&app);
    let areas = areas_of(&app.db);
    for id in areas.keys() {
        assert_eq!(
            app.ok(&format!("/v1/areas/{id}?include=rank"))["rank"],
            brute_rank(&areas, id),
            "{id}"
        );
    }
}

#[test]
fn an_import_that_changes_scores_changes_the_statistics_and_standings() {
    let app = small_app();
    let dir = app.db.parent().unwrap();
    let file = dir.join("changed.csv");
    // a4 falls from 8 to 1: it is now last, and a1 moves up a place.
    std::fs::write(
        &file,
        SMALL.replace(
            "gauteng,Midvaal,-26.5,28.0,8,",
            "gauteng,Midvaal,-26.5,28.0,1,",
        ),
    )
    .unwrap();
    let out = run(
        &[
            "import",
            "--db",
            app.db.to_str().unwrap(),
            file.to_str().unwrap(),
        ],
        &[],
        dir,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let changed = crate::common::wait::within(std::time::Duration::from_secs(10), || {
        let every = app.ok("/v1/areas/stats");
        (every["data"][0]["measures"]["truth_score"]["max"] == json!(7.75)).then_some(every)
    });
    assert!(
        changed.is_some(),
        "the reloaded statistics follow the import"
    );
    let areas = areas_of(&app.db);
    assert_stats_equal_brute_force(&app);
    for id in areas.keys() {
        assert_eq!(
            app.ok(&format!("/v1/areas/{id}?include=rank"))["rank"],
            brute_rank(&areas, id),
            "{id}"
        );
    }
    let a1 = app.ok("/v1/areas/a1?include=rank");
    assert_eq!(a1["rank"]["truth_score"]["national"]["position"], json!(2));
}

#[test]
fn bad_parameters_are_refused_in_the_error_shape() {
    let app = spawn_app();
    for (target, param) in [
        ("/v1/areas/stats?measures=crime", "measures"),
        ("/v1/areas/stats?measures=", "measures"),
        ("/v1/areas/stats?measures=safety,safety", "measures"),
        ("/v1/areas/stats?group_by=ward", "group_by"),
        ("/v1/areas/stats?province=atlantis", "province"),
        ("/v1/areas/stats?group_by=province&limit=5", "limit"),
        ("/v1/areas/stats?offset=1", "offset"),
        ("/v1/areas/stats?group_by=municipality&limit=1001", "limit"),
        ("/v1/areas/stats?group_by=municipality&limit=0", "limit"),
        ("/v1/areas/stats.csv?format=json", "format"),
        ("/v1/areas/johannesburg?include=rank,rank", "include"),
    ] {
        let reply = app.get(target);
        reply.assert_error(400, "invalid_parameter");
        assert_eq!(reply.json()["error"]["param"], param, "{target}");
    }
    let unknown = app.get("/v1/areas/stats?measures=crime").json();
    assert_eq!(
        unknown["error"]["allowed"],
        json!(MEASURES),
        "names the valid measures"
    );
    let list = app.get("/v1/areas?province=atlantis").json();
    let stats = app.get("/v1/areas/stats?province=atlantis").json();
    assert_eq!(
        stats["error"]["message"], list["error"]["message"],
        "List's province error"
    );
}

/// The CSV's rows, by (group, province, measure): the JSON's numbers.
#[test]
fn csv_holds_the_numbers_json_does() {
    let app = spawn_app();
    for query in [
        "",
        "group_by=province&",
        "group_by=municipality&province=gauteng&limit=4&",
    ] {
        let json = app.ok(&format!("/v1/areas/stats?{query}measures={ALL}"));
        let reply = app.get(&format!("/v1/areas/stats.csv?{query}measures={ALL}"));
        assert_eq!(reply.status, 200);
        assert_eq!(
            reply.header("Content-Type"),
            Some("text/csv; charset=utf-8")
        );
        let mut rows = csv::Reader::from_reader(reply.body.as_slice());
        let header: Vec<String> = rows.headers().unwrap().iter().map(String::from).collect();
        assert_eq!(
            header,
            [
                "group", "province", "measure", "count", "mean", "min", "max", "p10", "p25", "p50",
                "p75", "p90"
            ]
        );
        let mut seen = 0;
        let groups = json["data"].as_array().unwrap();
        for (row, (group, measure)) in rows.records().zip(
            groups
                .iter()
                .flat_map(|g| MEASURES.iter().map(move |m| (g, *m))),
        ) {
            let row = row.unwrap();
            assert_eq!(&row[0], group["group"].as_str().unwrap_or(""));
            assert_eq!(&row[1], group["province"].as_str().unwrap_or(""));
            assert_eq!(&row[2], measure);
            let stats = &group["measures"][measure];
            for (i, name) in header.iter().enumerate().skip(3) {
                let cell: Option<f64> = (!row[i].is_empty()).then(|| row[i].parse().unwrap());
                assert_eq!(cell, stats[name].as_f64(), "{query} {measure} {name}");
            }
            seen += 1;
        }
        assert_eq!(seen, groups.len() * MEASURES.len(), "{query}");
        if query.contains("municipality") {
            assert!(reply.header("X-Total-Count").is_some() && reply.header("Link").is_some());
        }
    }
}

#[test]
fn an_upgrade_from_layout_8_gives_the_same_statistics() {
    let today = crate::common::fresh_db("area-stats-today");
    let older = crate::common::scratch_dir("area-stats-layout-8").join("areas.db");
    std::fs::copy(&today, &older).unwrap();
    crate::common::sql(
        &older,
        "DROP TABLE group_stats; DROP TABLE stats_groups; DROP TABLE score_counts; PRAGMA user_version = 8;",
    );
    let path = older.to_str().unwrap();
    let dir = older.parent().unwrap();
    let refused = run(&["serve", "--db", path, "--addr", "127.0.0.1:0"], &[], dir);
    assert_eq!(refused.status.code(), Some(1), "a layout-8 file is refused");
    assert!(
        text(&refused.stderr).contains(&format!("area-scoring upgrade {path}")),
        "{}",
        text(&refused.stderr)
    );
    crate::common::bin::ok(&["upgrade", path]);
    let (_, key) = crate::common::new_key(&today, Plan::Free);
    let (_, older_key) = crate::common::new_key(&older, Plan::Free);
    let (now, then) = (Served::spawn(&today, &[]), Served::spawn(&older, &[]));
    for target in [
        format!("/v1/areas/stats?measures={ALL}"),
        format!("/v1/areas/stats?group_by=province&measures={ALL}"),
        format!("/v1/areas/stats?group_by=municipality&limit=1000&measures={ALL}"),
        "/v1/areas/cape-town?include=rank".to_string(),
    ] {
        let (a, b) = (now.get(&target, &key), then.get(&target, &older_key));
        assert_eq!((a.status, b.status), (200, 200), "{target}");
        assert_eq!(a.body, b.body, "{target}");
    }
}
