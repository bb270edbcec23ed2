//! List and Search in CSV and GeoJSON: each is the JSON page's areas in the
//! same order, with the same fields and Get Area's coordinates (distance_km
//! only with lat/lng); `format=` beats Accept, Accept is read with q-values
//! and anything else is JSON; errors stay JSON. The headers of each
//! representation: tests/representation_headers.rs.

use std::collections::BTreeSet;

use crate::common::client::Reply;
use crate::common::{
    JSON, TestApp, assert_error, assert_invalid, coordinates, data, key_set, spawn_app,
};

const CSV: &str = "text/csv; charset=utf-8";
const GEOJSON: &str = "application/geo+json";
const HEADER: &str = "id,name,province,province_slug,municipality,truth_score,updated_at,lat,lng";

/// Pages of List and Search; the last two have lat/lng.
const TARGETS: [&str; 6] = [
    "/v1/areas?sort=truth_score&order=desc&limit=100&offset=37",
    "/v1/areas?province=western-cape&limit=50",
    "/v1/areas/search?q=cape&limit=50",
    "/v1/areas/search?bbox=27,-27,29,-25&min_score=5&limit=50&offset=3",
    "/v1/areas/search?lat=-33.9249&lng=18.4241&radius=50&limit=50",
    "/v1/areas/search?q=e&lat=-26.2041&lng=28.0473&radius=40&limit=50",
];

/// GET `target` with `format=` added, which must answer 200 with `content_type`.
fn fetch(app: &TestApp, target: &str, format: &str, content_type: &str) -> Reply {
    let reply = app.get(&format!("{target}&format={format}"));
    assert_eq!(reply.status, 200, "{target}: {}", reply.text());
    assert_eq!(reply.header("Content-Type"), Some(content_type), "{target}");
    reply
}

#[test]
fn csv_is_the_json_page_as_rfc_4180_rows() {
    let app = spawn_app();
    for target in TARGETS {
        let page = app.ok(target);
        let distance = target.contains("lat=");
        let reply = fetch(app, target, "csv", CSV);
        let text = String::from_utf8(reply.body.clone()).expect("UTF-8");
        assert!(
            text.ends_with("\r\n"),
            "{target}: the last record ends in CRLF"
        );
        assert_eq!(
            text.matches('\n').count(),
            text.matches("\r\n").count(),
            "{target}: CRLF only"
        );
        let header = text.split("\r\n").next().unwrap();
        let want = if distance {
            format!("{HEADER},distance_km")
        } else {
            HEADER.into()
        };
        assert_eq!(header, want, "{target}");
        let mut reader = csv::Reader::from_reader(reply.body.as_slice());
        let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("a record")).collect();
        assert_eq!(rows.len(), data(&page).len(), "{target}: a row per area");
        for (row, item) in rows.iter().zip(data(&page)) {
            for (i, field) in ["id", "name", "province", "province_slug", "municipality"]
                .iter()
                .enumerate()
            {
                assert_eq!(row[i], *item[field].as_str().unwrap(), "{target}: {field}");
            }
            let number = |i: usize| {
                row[i]
                    .parse::<f64>()
                    .unwrap_or_else(|_| panic!("{target}: {row:?}"))
            };
            assert_eq!(number(5), item["truth_score"].as_f64().unwrap(), "{target}");
            assert_eq!(&row[6], item["updated_at"].as_str().unwrap(), "{target}");
            let detail = app.detail(item["id"].as_str().unwrap());
            assert_eq!(
                (number(7), number(8)),
                coordinates(detail),
                "{target}: {row:?}"
            );
            if distance {
                assert_eq!(number(9), item["distance_km"].as_f64().unwrap(), "{target}");
            }
        }
    }
}

#[test]
fn geojson_is_a_feature_collection_of_the_json_page() {
    let app = spawn_app();
    for target in TARGETS {
        let page = app.ok(target);
        let collection = fetch(app, target, "geojson", GEOJSON).json();
        let members = key_set(&collection);
        assert_eq!(
            members,
            BTreeSet::from(["features", "limit", "offset", "total", "type"])
        );
        assert_eq!(collection["type"], "FeatureCollection");
        for member in ["total", "limit", "offset"] {
            assert_eq!(collection[member], page[member], "{target}: {member}");
        }
        let features = collection["features"].as_array().expect("features");
        assert_eq!(features.len(), data(&page).len(), "{target}");
        for (feature, item) in features.iter().zip(data(&page)) {
            let keys = key_set(feature);
            assert_eq!(
                keys,
                BTreeSet::from(["geometry", "id", "properties", "type"])
            );
            assert_eq!(feature["type"], "Feature");
            assert_eq!(feature["id"], item["id"], "{target}");
            assert_eq!(
                &feature["properties"], item,
                "{target}: flat list-form properties"
            );
            let (lat, lng) = coordinates(app.detail(item["id"].as_str().unwrap()));
            let point = serde_json::json!({"type": "Point", "coordinates": [lng, lat]});
            assert_eq!(feature["geometry"], point, "{target}");
        }
    }
}

#[test]
fn format_beats_accept_and_accept_is_read_with_q_values() {
    let app = spawn_app();
    let cases: [(&str, &str, &str); 17] = [
        ("", "", JSON),
        ("", "text/csv", CSV),
        ("", "application/geo+json", GEOJSON),
        ("", "*/*", JSON),
        (
            "",
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            JSON,
        ),
        ("", "application/x-ndjson", JSON),
        ("", "text/csv;q=0.5, application/geo+json;q=0.9", GEOJSON),
        ("", "application/geo+json;q=0.2, text/csv", CSV),
        ("", "text/csv;q=0", JSON),
        ("", "text/csv;q=0, */*", JSON),
        ("", "*/*;q=0.1, text/csv", CSV),
        ("", "application/json, text/csv;q=0.5", JSON),
        ("json", "text/csv", JSON),
        ("geojson", "text/csv", GEOJSON),
        ("csv", "application/geo+json", CSV),
        ("csv", "", CSV),
        ("geojson", "application/json", GEOJSON),
    ];
    for base in ["/v1/areas?limit=3", "/v1/areas/search?min_score=5&limit=3"] {
        for (format, accept, want) in cases {
            let target = match format {
                "" => base.to_string(),
                f => format!("{base}&format={f}"),
            };
            let headers: Vec<(&str, &str)> = match accept {
                "" => vec![],
                a => vec![("Accept", a)],
            };
            let reply = app.get_with(&target, &headers);
            assert_eq!(
                reply.status,
                200,
                "{target} Accept {accept:?}: {}",
                reply.text()
            );
            assert_eq!(
                reply.header("Content-Type"),
                Some(want),
                "{target} Accept {accept:?}"
            );
        }
        for bad in ["ndjson", "xml", "CSV", ""] {
            assert_invalid(&app.get(&format!("{base}&format={bad}")), &["format"]);
        }
    }
}

#[test]
fn errors_are_json_whatever_representation_was_asked_for() {
    let app = spawn_app();
    let csv = [("Accept", "text/csv")];
    assert_error(
        &app.get("/v1/areas?format=csv&limit=0"),
        400,
        "invalid_parameter",
        Some("limit"),
    );
    let r = app.get_with("/v1/areas/search?bbox=1,2,3", &csv);
    assert_error(&r, 400, "invalid_parameter", Some("bbox"));
    let r = app.get_with("/v1/areas/search?format=geojson", &[("Accept", GEOJSON)]);
    assert_invalid(&r, &["q", "lat", "lng", "bbox", "min_score"]);
    let r = app.send("GET", b"/v1/areas?format=csv", &[("Accept", b"text/csv")]);
    assert_error(&r, 401, "missing_api_key", None);
    assert_error(
        &app.get_with("/v1/areas/nowhere-at-all", &csv),
        404,
        "area_not_found",
        None,
    );
}
