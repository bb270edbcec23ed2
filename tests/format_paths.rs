//! A format's own path (docs/api.md "Representations"): `/v1/areas.csv`,
//! `/v1/areas.geojson`, the same for Search, and Export's `.csv`,
//! `.geojson` and `.ndjson` answer what the JSON path answers with
//! `format=`, byte for byte, whatever Accept says; `format=` is an unknown
//! parameter there; errors stay JSON; Vary leaves Accept out; ETags, 304,
//! HEAD, gzip, plans and the rate limit are the JSON path's. The
//! representations themselves: tests/representations.rs and tests/export.rs.

use crate::common::cache::{assert_cached_privately, assert_head_like_get, etag};
use crate::common::client::{get, send};
use crate::common::rate::rate_headers;
use crate::common::server::start;
use crate::common::{Plan, assert_429, assert_error, assert_invalid, spawn_app};
use area_scoring::app::encoding::GZIP_MIN_BYTES;

const CSV: &str = "text/csv; charset=utf-8";
const GEOJSON: &str = "application/geo+json";
const NDJSON: &str = "application/x-ndjson";

/// Each format path with a query, the JSON path's target that answers the
/// same with `format=`, and the type both answer.
const PATHS: [(&str, &str, &str); 9] = [
    (
        "/v1/areas.csv?sort=truth_score&order=desc&limit=100&offset=37",
        "/v1/areas?sort=truth_score&order=desc&limit=100&offset=37&format=csv",
        CSV,
    ),
    (
        "/v1/areas.geojson?province=western-cape&limit=50",
        "/v1/areas?province=western-cape&limit=50&format=geojson",
        GEOJSON,
    ),
    (
        "/v1/areas/search.csv?lat=-33.9249&lng=18.4241&radius=50&limit=50",
        "/v1/areas/search?lat=-33.9249&lng=18.4241&radius=50&limit=50&format=csv",
        CSV,
    ),
    (
        "/v1/areas/search.geojson?q=cape&limit=50",
        "/v1/areas/search?q=cape&limit=50&format=geojson",
        GEOJSON,
    ),
    (
        "/v1/areas/search.geojson?q=stellenbosh&match=forgiving",
        "/v1/areas/search?q=stellenbosh&match=forgiving&format=geojson",
        GEOJSON,
    ),
    (
        "/v1/areas/export.csv?province=gauteng",
        "/v1/areas/export?province=gauteng&format=csv",
        CSV,
    ),
    (
        "/v1/areas/export.geojson",
        "/v1/areas/export?format=geojson",
        GEOJSON,
    ),
    (
        "/v1/areas/export.ndjson?province=limpopo",
        "/v1/areas/export?province=limpopo&format=ndjson",
        NDJSON,
    ),
    (
        "/v1/areas/export.ndjson",
        "/v1/areas/export?format=ndjson",
        NDJSON,
    ),
];

#[test]
fn a_format_path_answers_what_format_does_at_the_json_path() {
    let app = spawn_app();
    for (path, json_path, content_type) in PATHS {
        let own = app.get(path);
        assert_eq!(own.status, 200, "{path}: {}", own.text());
        assert_eq!(own.header("Content-Type"), Some(content_type), "{path}");
        let asked = app.get(json_path);
        assert_eq!(asked.status, 200, "{json_path}: {}", asked.text());
        assert!(!own.body.is_empty(), "{path}");
        assert_eq!(own.body, asked.body, "{path}: the bytes of {json_path}");
        assert_eq!(
            own.header("X-Total-Count"),
            asked.header("X-Total-Count"),
            "{path}"
        );
        assert_eq!(
            own.header("Content-Disposition"),
            asked.header("Content-Disposition"),
            "{path}"
        );
        assert_cached_privately(&own, path);
        if !path.contains("/export") {
            let link = own.header("Link").expect("a Link header");
            let stem = path.split('?').next().unwrap();
            assert!(
                link.split(", ")
                    .all(|l| l.starts_with(&format!("<{stem}?"))),
                "{path}: every Link stays on the path: {link}"
            );
        }
    }
}

#[test]
fn accept_chooses_nothing_at_a_format_path() {
    let app = spawn_app();
    for (path, _, content_type) in PATHS {
        for accept in [
            "application/json",
            "text/csv",
            GEOJSON,
            NDJSON,
            "text/html,*/*;q=0.8",
        ] {
            let reply = app.get_with(path, &[("Accept", accept)]);
            assert_eq!(reply.status, 200, "{path} Accept {accept}");
            assert_eq!(
                reply.header("Content-Type"),
                Some(content_type),
                "{path} Accept {accept}"
            );
        }
        // Vary names what the body depends on: the key and the coding, not Accept.
        let reply = app.get(path);
        assert_eq!(
            reply.header("Vary"),
            Some("Authorization, Accept-Encoding"),
            "{path}"
        );
    }
    // The JSON path still negotiates, for the clients written before.
    let reply = app.get_with("/v1/areas?limit=2", &[("Accept", "text/csv")]);
    assert_eq!(reply.header("Content-Type"), Some(CSV));
    assert_eq!(
        reply.header("Vary"),
        Some("Authorization, Accept, Accept-Encoding")
    );
}

#[test]
fn format_is_an_unknown_parameter_at_a_format_path() {
    let app = spawn_app();
    let cases: [(&str, &[&str]); 3] = [
        (
            "/v1/areas.csv",
            &["province", "limit", "offset", "sort", "order", "ids"],
        ),
        (
            "/v1/areas/search.geojson",
            &[
                "q",
                "lat",
                "lng",
                "radius",
                "bbox",
                "min_score",
                "province",
                "limit",
                "offset",
                "match",
                "geometry",
                "simplify",
            ],
        ),
        ("/v1/areas/export.ndjson", &["province"]),
    ];
    for (path, allowed) in cases {
        // Even when it names the path's own format: the path sets it.
        for format in ["csv", "geojson", "ndjson", "json", "xml"] {
            let target = format!("{path}?format={format}");
            let reply = app.get(&target);
            let message = assert_error(&reply, 400, "invalid_parameter", Some("format"));
            assert!(
                message.contains("unknown parameter 'format'"),
                "{target}: {message}"
            );
            assert_eq!(
                reply.json()["error"]["allowed"],
                serde_json::json!(allowed),
                "{target}"
            );
        }
        assert_invalid(&app.get(&format!("{path}?colour=red")), &["colour"]);
    }
    // The other parameters are checked as at the JSON path, and the error is JSON.
    for (target, param) in [
        ("/v1/areas.csv?limit=0", "limit"),
        ("/v1/areas.geojson?sort=size", "sort"),
        ("/v1/areas/search.csv?bbox=1,2,3", "bbox"),
        ("/v1/areas/search.geojson", "q"),
        ("/v1/areas/export.csv?province=atlantis", "province"),
    ] {
        let reply = app.get_with(target, &[("Accept", "text/csv")]);
        assert_error(&reply, 400, "invalid_parameter", Some(param));
    }
}

#[test]
fn only_the_formats_an_endpoint_has_have_paths() {
    let app = spawn_app();
    for path in [
        "/v1/areas.json",
        "/v1/areas.ndjson",
        "/v1/areas.CSV",
        "/v1/areas.xml",
    ] {
        assert_error(&app.get(path), 404, "not_found", None);
    }
    // Under /v1/areas such a segment is read as an area id, which no slug can be.
    for path in [
        "/v1/areas/search.json",
        "/v1/areas/search.ndjson",
        "/v1/areas/export.json",
        "/v1/areas/compare.csv",
    ] {
        assert_error(&app.get(path), 404, "area_not_found", None);
    }
}

#[test]
fn a_format_path_has_its_etag_304_and_head() {
    let app = spawn_app();
    for (path, json_path, _) in PATHS {
        let first = app.get(path);
        let tag = etag(&first);
        assert_eq!(
            etag(&app.get(json_path)),
            tag,
            "{path}: the same bytes, the same tag"
        );
        let cached = app.get_with(path, &[("If-None-Match", &tag)]);
        assert_eq!((cached.status, cached.body.len()), (304, 0), "{path}");
        assert_eq!(cached.header("ETag"), Some(tag.as_str()), "{path}");
        let stale = app.get_with(path, &[("If-None-Match", "\"not-this-one\"")]);
        assert_eq!(stale.status, 200, "{path}");
        let head = app.send_with("HEAD", path, &[]);
        assert_head_like_get(&head, &first, path);
    }
}

#[test]
fn a_format_path_comes_gzipped_as_the_json_path_does() {
    let app = spawn_app();
    for (path, _, _) in PATHS {
        let plain = app.get(path);
        if plain.body.len() < GZIP_MIN_BYTES && !path.contains("/export") {
            continue;
        }
        let zipped = app.get_with(path, &[("Accept-Encoding", "gzip")]);
        assert_eq!(zipped.status, 200, "{path}");
        assert_eq!(zipped.header("Content-Encoding"), Some("gzip"), "{path}");
        let mut body = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(zipped.body.as_slice()),
            &mut body,
        )
        .expect("a gzip body");
        assert_eq!(body, plain.body, "{path}: gzip of the identity body");
        let tag = etag(&zipped);
        assert_ne!(tag, etag(&plain), "{path}: gzip has a tag of its own");
        let cached = app.get_with(
            path,
            &[("Accept-Encoding", "gzip"), ("If-None-Match", &tag)],
        );
        assert_eq!(cached.status, 304, "{path}");
    }
}

#[test]
fn a_format_path_needs_a_key_and_the_export_plan() {
    let app = spawn_app();
    for (path, _, _) in PATHS {
        let reply = app.send("GET", path.as_bytes(), &[]);
        assert_error(&reply, 401, "missing_api_key", None);
    }
    for plan in [Plan::Free, Plan::Starter] {
        for path in [
            "/v1/areas/export.csv",
            "/v1/areas/export.ndjson?province=gauteng",
        ] {
            assert_error(&app.get_as(plan, path), 403, "plan_upgrade_required", None);
        }
        assert_eq!(app.get_as(plan, "/v1/areas.csv?limit=1").status, 200);
    }
}

#[test]
fn each_request_to_a_format_path_takes_one_token_and_is_counted() {
    let db = crate::common::fresh_db("format-paths-rate");
    // Four a minute: a token comes back every 15 s, longer than this test.
    crate::common::set_plan_limit(&db, Plan::Growth, Some(4));
    let (_, key) = crate::common::new_key(&db, Plan::Growth);
    let running = start(&db, 2, std::time::Duration::from_secs(10));
    let addr = running.addr();
    let targets = [
        "/v1/areas.csv?limit=1",
        "/v1/areas/search.geojson?q=cape",
        "/v1/areas/export.ndjson?province=limpopo",
    ];
    let ok_today = |me: serde_json::Value| me["usage_today"]["ok"].as_u64().unwrap();
    let before = ok_today(get(addr, "/v1/key", Some(&key)).json());
    for (left, target) in (1..=3).rev().zip(targets) {
        let reply = get(addr, target, Some(&key));
        assert_eq!(reply.status, 200, "{target}");
        assert_eq!(rate_headers(&reply).1, left, "{target} took one token");
    }
    // The three, and the GET /v1/key before them (which spends no token).
    let after = ok_today(get(addr, "/v1/key", Some(&key)).json());
    assert_eq!(
        after - before,
        4,
        "every request is counted in the key's usage"
    );
    let auth = format!("Bearer {key}");
    let last = send(
        addr,
        "GET",
        b"/v1/areas.geojson?limit=1",
        &[("Authorization", auth.as_bytes())],
    );
    assert_eq!(last.status, 200);
    assert_429(&get(addr, "/v1/areas/search.csv?q=cape", Some(&key)));
    running.shutdown();
}
