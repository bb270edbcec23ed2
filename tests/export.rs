//! Export Areas (`GET /v1/areas/export`): every area ordered by id in JSON,
//! NDJSON, CSV and GeoJSON, each with list-form fields, Get Area's
//! coordinates and dimension scores; as many areas as List Areas counts,
//! also per province; the attachment's name; format and Accept; one ETag
//! per dataset, format and province; growth plan and above; one request
//! against the rate limit. Concurrent exports: tests/wall_clock/exports.rs.

use std::fs;

use crate::common::cache::assert_head_like_get;
use crate::common::client::{Reply, get};
use crate::common::exports::items;
use crate::common::rate::rate_headers;
use crate::common::seed::DIMENSIONS;
use crate::common::server::{start, start_keyed};
use crate::common::{JSON, Plan, assert_429, assert_error, assert_invalid, coordinates, spawn_app};
use serde_json::{Value, json};

const FORMATS: [(&str, &str); 4] = [
    ("json", JSON),
    ("ndjson", "application/x-ndjson"),
    ("csv", "text/csv; charset=utf-8"),
    ("geojson", "application/geo+json"),
];

/// An export that must answer 200 with the format's type; its body is read whole.
fn export(target: &str, format: &str) -> Reply {
    let app = spawn_app();
    let reply = app.get(target);
    assert_eq!(reply.status, 200, "{target}: {}", reply.text());
    let content_type = FORMATS.iter().find(|f| f.0 == format).unwrap().1;
    assert_eq!(reply.header("Content-Type"), Some(content_type), "{target}");
    reply
}

/// The flat item Get Area and List Areas say an area's export row holds.
fn expected_item(listed: &Value, detail: &Value) -> Value {
    let mut item = listed.as_object().unwrap().clone();
    let (lat, lng) = coordinates(detail);
    item.insert("lat".into(), json!(lat));
    item.insert("lng".into(), json!(lng));
    for d in DIMENSIONS {
        let score = detail["dimensions"]
            .get(d)
            .map_or(Value::Null, |x| x["score"].clone());
        item.insert(d.into(), score);
    }
    Value::Object(item)
}

#[test]
fn every_format_holds_every_area_by_id_as_list_and_get_area_give_it() {
    let app = spawn_app();
    let mut want: Vec<Value> = app
        .listed()
        .iter()
        .map(|a| expected_item(a, app.detail(a["id"].as_str().unwrap())))
        .collect();
    want.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    let latest = app
        .listed()
        .iter()
        .filter_map(|a| a["updated_at"].as_str())
        .max()
        .unwrap();
    for (format, _) in FORMATS {
        let reply = export(&format!("/v1/areas/export?format={format}"), format);
        let got = items(&reply, format);
        assert_eq!(got.len(), want.len(), "{format}: every area");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w, "{format}");
        }
        let count = want.len().to_string();
        assert_eq!(
            reply.header("X-Total-Count"),
            Some(count.as_str()),
            "{format}"
        );
        let name = format!("attachment; filename=\"areas-{}.{format}\"", &latest[..10]);
        assert_eq!(reply.header("Content-Disposition"), Some(name.as_str()));
    }
}

#[test]
fn a_province_exports_what_list_areas_counts_for_it() {
    let app = spawn_app();
    for province in ["gauteng", "western-cape", "northern-cape", "free-state"] {
        let listed = app.ok(&format!("/v1/areas?province={province}&limit=1"));
        let name = listed["data"][0]["province"].clone();
        for format in ["json", "csv", "geojson", "ndjson"] {
            let reply = export(
                &format!("/v1/areas/export?province={province}&format={format}"),
                format,
            );
            let got = items(&reply, format);
            assert_eq!(json!(got.len()), listed["total"], "{province} {format}");
            assert!(
                got.iter().all(|a| a["province"] == name),
                "{province} {format}"
            );
            assert!(
                got.windows(2)
                    .all(|w| w[0]["id"].as_str() < w[1]["id"].as_str()),
                "by id"
            );
        }
    }
    for bad in [
        "province=atlantis",
        "province=Gauteng",
        "format=xml",
        "limit=5",
        "province=",
    ] {
        let reply = app.get(&format!("/v1/areas/export?{bad}"));
        assert_invalid(&reply, &["province", "format", "limit"]);
    }
}

#[test]
fn accept_chooses_the_format_unless_format_is_given() {
    let app = spawn_app();
    let cases = [
        ("", "application/x-ndjson", "application/x-ndjson"),
        ("", "text/csv", "text/csv; charset=utf-8"),
        ("", "application/geo+json", "application/geo+json"),
        ("", "*/*", JSON),
        ("", "", JSON),
        (
            "format=csv",
            "application/x-ndjson",
            "text/csv; charset=utf-8",
        ),
        ("format=json", "text/csv", JSON),
    ];
    for (query, accept, want) in cases {
        let headers: Vec<(&str, &str)> = if accept.is_empty() {
            vec![]
        } else {
            vec![("Accept", accept)]
        };
        let reply = app.get_with(&format!("/v1/areas/export?{query}"), &headers);
        assert_eq!(reply.status, 200, "{query} {accept}");
        assert_eq!(reply.header("Content-Type"), Some(want), "{query} {accept}");
    }
}

#[test]
fn one_etag_per_dataset_format_and_province() {
    let (db, key, running) = start_keyed("export-etag", Plan::Growth);
    let addr = running.addr();
    let send = |method: &str, target: &str, tag: Option<&str>| {
        let auth = format!("Bearer {key}");
        let mut headers = vec![("Authorization", auth.as_bytes())];
        headers.extend(tag.map(|t| ("If-None-Match", t.as_bytes())));
        crate::common::client::send(addr, method, target.as_bytes(), &headers)
    };
    let tag_of = |target: &str| {
        send("GET", target, None)
            .header("ETag")
            .expect("an ETag")
            .to_string()
    };
    let targets = [
        "/v1/areas/export",
        "/v1/areas/export?format=csv",
        "/v1/areas/export?format=ndjson",
        "/v1/areas/export?format=geojson",
        "/v1/areas/export?province=gauteng",
        "/v1/areas/export?province=limpopo&format=csv",
    ];
    let tags: Vec<String> = targets.iter().map(|t| tag_of(t)).collect();
    let distinct: std::collections::BTreeSet<&String> = tags.iter().collect();
    assert_eq!(distinct.len(), targets.len(), "{tags:?}");
    for (target, tag) in targets.iter().zip(&tags) {
        assert_eq!(&tag_of(target), tag, "{target}: the same tag again");
        let cached = send("GET", target, Some(tag));
        assert_eq!((cached.status, cached.body.len()), (304, 0), "{target}");
    }
    // A new dataset file: new tags, and the old tag no longer matches.
    let next = db.with_file_name("next.db");
    crate::common::small_db(&next, 25);
    fs::rename(&next, &db).unwrap();
    assert!(running.reload(), "the server takes the new file");
    let fresh = send("GET", targets[0], Some(&tags[0]));
    assert_eq!(fresh.status, 200, "{}", fresh.text());
    assert_ne!(fresh.header("ETag"), Some(tags[0].as_str()));
    assert_eq!(fresh.json()["total"], 25);
    running.shutdown();
}

#[test]
fn head_of_an_export_has_the_headers_of_its_get() {
    let app = spawn_app();
    for (format, _) in FORMATS {
        let target = format!("/v1/areas/export?format={format}&province=limpopo");
        let head = app.send_with("HEAD", &target, &[]);
        assert_head_like_get(&head, &app.get(&target), &target);
    }
}

#[test]
fn free_and_starter_keys_may_not_export() {
    let app = spawn_app();
    for plan in [Plan::Free, Plan::Starter] {
        for target in [
            "/v1/areas/export",
            "/v1/areas/export?format=csv&province=gauteng",
        ] {
            let reply = app.get_as(plan, target);
            assert_error(&reply, 403, "plan_upgrade_required", None);
        }
    }
    assert_eq!(
        app.get_as(Plan::Enterprise, "/v1/areas/export?format=csv")
            .status,
        200
    );
    // Parameters are checked before the plan (docs/api.md "Errors").
    let reply = app.get_as(Plan::Free, "/v1/areas/export?format=xml");
    assert_invalid(&reply, &["format"]);
}

#[test]
fn an_export_counts_once_against_the_rate_limit() {
    let db = crate::common::fresh_db("export-rate");
    // Three a minute: a token comes back every 20 s, longer than this test.
    crate::common::set_plan_limit(&db, Plan::Growth, Some(3));
    let (_, key) = crate::common::new_key(&db, Plan::Growth);
    let running = start(&db, 2, std::time::Duration::from_secs(10));
    let addr = running.addr();
    let before = get(addr, "/v1/areas?limit=1", Some(&key));
    assert_eq!(rate_headers(&before).1, 2);
    let whole = get(addr, "/v1/areas/export?format=geojson", Some(&key));
    assert_eq!(whole.status, 200);
    assert_eq!(rate_headers(&whole).1, 1, "the export took one token");
    let after = get(addr, "/v1/areas?limit=1", Some(&key));
    assert_eq!(
        (after.status, rate_headers(&after).1),
        (200, 0),
        "and only one"
    );
    assert_429(&get(addr, "/v1/areas/export", Some(&key)));
    running.shutdown();
}

#[test]
fn a_dimension_an_area_lacks_is_an_empty_cell() {
    let dir = crate::common::scratch_dir("export-missing");
    let db = dir.join("areas.db");
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("seed/example-import.csv");
    let args = [
        "import",
        "--db",
        db.to_str().unwrap(),
        example.to_str().unwrap(),
    ];
    let out = crate::common::bin::run(&args, &[], &dir);
    assert!(
        out.status.success(),
        "{}",
        crate::common::bin::text(&out.stderr)
    );
    let (_, key) = crate::common::new_key(&db, Plan::Growth);
    let running = start(&db, 2, std::time::Duration::from_secs(10));
    let fetch = |target: &str| {
        let reply = get(running.addr(), target, Some(&key));
        assert_eq!(reply.status, 200, "{target}: {}", reply.text());
        reply
    };
    let listed = fetch("/v1/areas?limit=100").json();
    let mut want: Vec<Value> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            expected_item(
                a,
                &fetch(&format!("/v1/areas/{}", a["id"].as_str().unwrap())).json(),
            )
        })
        .collect();
    want.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    assert!(
        want.iter()
            .any(|a| DIMENSIONS.iter().any(|d| a[d].is_null())),
        "a gap to see"
    );
    for (format, _) in FORMATS {
        let reply = fetch(&format!("/v1/areas/export?format={format}"));
        assert_eq!(items(&reply, format), want, "{format}");
    }
    let csv = fetch("/v1/areas/export?format=csv").text();
    let daniel = csv
        .lines()
        .find(|l| l.starts_with("danielskuil,"))
        .expect("a row");
    assert_eq!(
        daniel.split(',').filter(|c| c.is_empty()).count(),
        2,
        "{daniel}"
    );
    running.shutdown();
}
