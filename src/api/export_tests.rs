//! The export's four formats over the seed: every area once, in id order,
//! with its coordinates and dimension scores, whole however it is read.

use super::*;
use crate::api::test_seed::seed_file;
use crate::data::db;

/// The whole body of an export of the seed, read `chunk` bytes at a time.
fn export(format: Format, province: Option<&'static str>, chunk: usize) -> Vec<u8> {
    let (dir, path) = seed_file(&format!("export-{}-{chunk}", format.name()));
    let pool = db::open_pool(&path, db::PoolSize::for_exports(1)).unwrap();
    let total: i64 = pool
        .get()
        .unwrap()
        .query_row(
            "SELECT count(*) FROM areas WHERE ?1 = '' OR province_slug = ?1",
            [province.unwrap_or("")],
            |r| r.get(0),
        )
        .unwrap();
    let mut body = Export::new(
        pool.get().unwrap(),
        (format, crate::api::params::FeatureGeometry::Point),
        province,
        total,
    );
    let mut out = Vec::new();
    let mut buf = vec![0; chunk];
    loop {
        let n = body.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
    }
    std::fs::remove_dir_all(dir).ok();
    out
}

const SEED_AREAS: usize = 938;

#[test]
fn json_holds_every_area_in_id_order_with_the_total() {
    let doc: serde_json::Value =
        serde_json::from_slice(&export(Format::Json, None, 64 * 1024)).unwrap();
    let data = doc["data"].as_array().unwrap();
    assert_eq!(data.len(), SEED_AREAS);
    assert_eq!(doc["total"], SEED_AREAS);
    let ids: Vec<&str> = data.iter().map(|a| a["id"].as_str().unwrap()).collect();
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "ordered by id, each once"
    );
    for area in data {
        assert_eq!(
            area.as_object().unwrap().len(),
            7 + 2 + DIMENSIONS.len(),
            "{area}"
        );
        assert!(area["lat"].is_f64() && area["safety"].is_f64(), "{area}");
    }
}

#[test]
fn ndjson_is_one_object_a_line_and_reads_the_same_in_tiny_pieces() {
    let whole = export(Format::NdJson, None, 64 * 1024);
    assert_eq!(export(Format::NdJson, None, 7), whole);
    let text = String::from_utf8(whole).unwrap();
    assert!(text.ends_with('\n'));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), SEED_AREAS);
    for line in lines {
        let area: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(area["id"].is_string());
    }
}

#[test]
fn csv_has_a_header_and_a_row_an_area_with_every_column() {
    let body = export(Format::Csv, None, 4096);
    let mut reader = csv::Reader::from_reader(&body[..]);
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    // The header is also pinned, letter by letter, by docs/api.md's example.
    let mut want = crate::api::render::LIST_FIELDS.to_vec();
    want.extend(["lat", "lng"]);
    want.extend(DIMENSIONS);
    assert_eq!(header, want);
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), SEED_AREAS);
    assert!(rows.iter().all(|r| r.len() == want.len()));
    assert!(
        String::from_utf8(body).unwrap().contains("\r\n"),
        "CRLF line ends"
    );
}

#[test]
fn geojson_is_a_feature_collection_of_one_province() {
    let doc: serde_json::Value =
        serde_json::from_slice(&export(Format::GeoJson, Some("gauteng"), 64 * 1024)).unwrap();
    assert_eq!(doc["type"], "FeatureCollection");
    let features = doc["features"].as_array().unwrap();
    assert_eq!(doc["total"].as_u64(), Some(features.len() as u64));
    assert!(features.len() > 10 && features.len() < SEED_AREAS);
    for f in features {
        assert_eq!(f["properties"]["province"], "Gauteng");
        let at = f["geometry"]["coordinates"].as_array().unwrap();
        assert!(at[0].as_f64().unwrap() > 20.0, "longitude first: {at:?}");
        assert_eq!(f["id"], f["properties"]["id"]);
    }
}
