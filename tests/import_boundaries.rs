//! `area-scoring import` end to end with boundaries (docs/import.md,
//! "Boundaries"): the same three suburbs (tests/fixtures/boundaries/, its
//! README says how each file was made) as a CSV with WKT and GeoJSON cells
//! in one column, ogr2ogr's WKT column, JSON Lines, a QGIS-style
//! FeatureCollection and GeoJSONSeq (with and without RFC 8142's record
//! separators) all import, a centre
//! left out taken inside its boundary; each refused boundary is named by its
//! line or feature; a crs other than WGS84 and a projected file are refused
//! naming ogr2ogr; a FeatureCollection larger than import's memory bound is
//! read within it; a refused file leaves the served dataset as it was; and
//! an import that changes only a boundary is a new dataset. What the served
//! boundaries look like is tests/area_at.rs's.

// The import helpers this file does not use.
#[allow(dead_code)]
use crate::common::import_files as support;

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use rusqlite::Connection;

use crate::common::bin::{command, text, wait_with_peak_kib};
use crate::common::{fresh_db, scratch_dir};
use support::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/boundaries")
        .join(name)
}

/// Each area's (id, lat, lng), by id.
fn centres(db: &Path) -> Vec<(String, f64, f64)> {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT id, lat, lng FROM areas ORDER BY id")
        .unwrap();
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap();
    rows.map(Result::unwrap).collect()
}

/// Rosebank's square, whose centre every file leaves out.
fn inside_rosebank(lat: f64, lng: f64) -> bool {
    (-26.15..=-26.13).contains(&lat) && (28.03..=28.05).contains(&lng)
}

#[test]
fn the_same_boundaries_import_from_every_format() {
    let dir = scratch_dir("boundaries-formats");
    for name in [
        "suburbs.csv",
        "ogr2ogr-wkt.csv",
        "suburbs.jsonl",
        "qgis-suburbs.geojson",
        "suburbs.geojsons",
        "ogr2ogr-rs.geojsons",
    ] {
        let db = dir.join(format!("{name}.db"));
        let out = import(&db, &fixture(name));
        assert_ok(&out);
        let said = stderr(&out);
        let count = if name == "ogr2ogr-wkt.csv" { 1 } else { 3 };
        assert!(
            said.contains(&format!("with {count} area")),
            "{name}: {said}"
        );
        let found = centres(&db);
        let (id, lat, lng) = &found[found.len() - 1];
        assert_eq!(id, "rosebank", "{name}");
        assert!(inside_rosebank(*lat, *lng), "{name}: {lat} {lng}");
        if count == 3 {
            // Given centres are kept as given.
            assert_eq!(found[0], ("melville".into(), -26.176, 28.008), "{name}");
            assert_eq!(found[1], ("parkhurst".into(), -26.135, 28.025), "{name}");
        }
        let info = cli(&["info", "--db", db.to_str().unwrap()]);
        let info = text(&info.stdout);
        assert!(info.contains(&format!("source:    {name}")), "{info}");
        assert!(info.contains(&format!("areas:     {count}")), "{info}");
    }
}

#[test]
fn a_qgis_collections_extra_properties_are_one_warning_for_the_file() {
    let dir = scratch_dir("boundaries-qgis");
    let out = import(&dir.join("areas.db"), &fixture("qgis-suburbs.geojson"));
    assert_ok(&out);
    let said = stderr(&out);
    assert!(said.contains("\n1 warning "), "{said}");
    assert!(
        said.contains("warning: the features' properties OBJECTID, Shape_Area, Shape_Leng are not columns of an area and were read past"),
        "{said}"
    );
    assert_eq!(said.matches("OBJECTID").count(), 1, "{said}");
}

const AREA: &str = r#""province": "gauteng", "municipality": "M", "safety": 6.5, "safety_weight": 1, "safety_sources": "saps""#;
const SQUARE: &str =
    "[[[28.03, -26.15], [28.05, -26.15], [28.05, -26.13], [28.03, -26.13], [28.03, -26.15]]]";
const BOW_TIE: &str =
    "[[[28.03, -26.15], [28.05, -26.13], [28.05, -26.15], [28.03, -26.13], [28.03, -26.15]]]";
const OPEN: &str =
    "[[[28.03, -26.15], [28.05, -26.15], [28.05, -26.13], [28.03, -26.13], [28.03, -26.14]]]";

fn feature(id: &str, centre: &str, coordinates: &str) -> String {
    format!(
        r#"{{"type": "Feature", "properties": {{"id": "{id}", "name": "{id}", {AREA}{centre}}}, "geometry": {{"type": "Polygon", "coordinates": {coordinates}}}}}"#
    )
}

/// Three good and three refused boundaries in the given form.
fn refused_features() -> Vec<String> {
    vec![
        feature("good", "", SQUARE),
        feature("bow-tie", "", BOW_TIE),
        feature("open", "", OPEN),
        feature("swapped", r#", "lat": 28.04, "lng": -26.14"#, SQUARE),
        feature("far", r#", "lat": -26.3, "lng": 28.04"#, SQUARE),
    ]
}

/// The problems of `refused_features` as numbered from `first`, in `unit`.
fn assert_refused_named(said: &str, unit: &str, first: u64) {
    let at = |n: u64, id: &str| format!("\n  {unit} {} ({id}): ", first + n);
    for (n, id, what) in [
        (1, "bow-tie", "boundary is not valid (OGC)"),
        (2, "open", "boundary's ring 1 of polygon 1 is not closed"),
        (
            3,
            "swapped",
            "the centre (28.04, -26.14) is 8352.7 km outside the boundary; at most 2 km is allowed (are lat and lng swapped?)",
        ),
        (
            4,
            "far",
            "the centre (-26.3, 28.04) is 16.7 km outside the boundary",
        ),
    ] {
        let want = format!("{}{what}", at(n, id));
        assert!(said.contains(&want), "{want} missing from:\n{said}");
    }
    assert!(!said.contains(&at(0, "good")), "{said}");
    assert!(said.contains("nothing was imported and the database is unchanged"));
}

#[test]
fn refused_boundaries_are_named_by_line_or_feature_in_every_format() {
    let dir = scratch_dir("boundaries-refused");
    let db = fresh_db("boundaries-refused-db");
    let before = fs::read(&db).unwrap();
    let features = refused_features();

    let collection = dir.join("refused.geojson");
    let body = features.join(",\n");
    fs::write(
        &collection,
        format!("{{\"type\": \"FeatureCollection\", \"features\": [\n{body}\n]}}\n"),
    )
    .unwrap();
    assert_refused_named(&assert_fails(&import(&db, &collection)), "feature", 1);

    let seq = dir.join("refused.geojsons");
    fs::write(&seq, features.join("\n") + "\n").unwrap();
    assert_refused_named(&assert_fails(&import(&db, &seq)), "line", 1);

    // JSON Lines: the same features as areas with a boundary member.
    let jsonl = dir.join("refused.jsonl");
    let rows: Vec<String> = features
        .iter()
        .map(|f| {
            let f: serde_json::Value = serde_json::from_str(f).unwrap();
            let p = &f["properties"];
            let mut row = serde_json::json!({
                "id": p["id"], "name": p["name"], "province": "gauteng", "municipality": "M",
                "dimensions": {"safety": {"score": 6.5, "weight": 1, "sources": ["saps"]}},
                "boundary": f["geometry"],
            });
            if !p["lat"].is_null() {
                row["lat"] = p["lat"].clone();
                row["lng"] = p["lng"].clone();
            }
            row.to_string()
        })
        .collect();
    fs::write(&jsonl, rows.join("\n") + "\n").unwrap();
    assert_refused_named(&assert_fails(&import(&db, &jsonl)), "line", 1);

    // CSV: the same rings as WKT, the header first.
    let csv = dir.join("refused.csv");
    let wkt = |ring: &str| {
        let r: Vec<Vec<f64>> = serde_json::from_str::<Vec<Vec<Vec<f64>>>>(ring).unwrap()[0].clone();
        let points: Vec<String> = r.iter().map(|p| format!("{} {}", p[0], p[1])).collect();
        format!("\"POLYGON(({}))\"", points.join(", "))
    };
    let mut lines = vec![
        "id,name,province,municipality,lat,lng,safety,safety_weight,safety_sources,boundary"
            .to_string(),
    ];
    for (id, centre, ring) in [
        ("good", ",", SQUARE),
        ("bow-tie", ",", BOW_TIE),
        ("open", ",", OPEN),
        ("swapped", "28.04,-26.14", SQUARE),
        ("far", "-26.3,28.04", SQUARE),
    ] {
        lines.push(format!(
            "{id},{id},gauteng,M,{centre},6.5,1,saps,{}",
            wkt(ring)
        ));
    }
    fs::write(&csv, lines.join("\n") + "\n").unwrap();
    assert_refused_named(&assert_fails(&import(&db, &csv)), "line", 2);

    assert_eq!(
        fs::read(&db).unwrap(),
        before,
        "the served dataset is as it was"
    );
    assert!(
        !db.with_file_name("areas.db.previous").exists(),
        "nothing was kept, since nothing was replaced"
    );
}

#[test]
fn another_crs_and_projected_positions_are_refused_naming_ogr2ogr() {
    let dir = scratch_dir("boundaries-crs");
    let db = dir.join("areas.db");
    let crs = |name: &str| format!(r#"{{"type": "name", "properties": {{"name": "{name}"}}}}"#);
    // ogr2ogr's Web Mercator output of Rosebank's square, roughly.
    let metres = "[[[3120262, -3019496], [3122489, -3019496], [3122489, -3017264], [3120262, -3017264], [3120262, -3019496]]]";
    let collection = |crs_member: &str, ring: &str| {
        format!(
            "{{\"type\": \"FeatureCollection\", \"name\": \"suburbs\", {crs_member}\"features\": [{}]}}",
            feature("rosebank", "", ring)
        )
    };
    let epsg3857 = dir.join("web-mercator.geojson");
    fs::write(
        &epsg3857,
        collection(
            &format!("\"crs\": {}, ", crs("urn:ogc:def:crs:EPSG::3857")),
            metres,
        ),
    )
    .unwrap();
    let said = assert_fails(&import(&db, &epsg3857));
    assert!(said.contains("has 1 problem;"), "{said}");
    assert!(
        said.contains("the file's crs member: boundary's crs is urn:ogc:def:crs:EPSG::3857; only CRS84 or EPSG:4326 is read: reproject with `ogr2ogr -t_srs EPSG:4326`"),
        "{said}"
    );

    // The same from GDAL itself (`ogr2ogr -t_srs EPSG:3857`).
    let said = assert_fails(&import(&db, &fixture("ogr2ogr-web-mercator.geojson")));
    assert!(said.contains("has 1 problem;"), "{said}");
    assert!(
        said.contains("reproject with `ogr2ogr -t_srs EPSG:4326`"),
        "{said}"
    );

    let unnamed = dir.join("projected.geojson");
    fs::write(&unnamed, collection("", metres)).unwrap();
    let said = assert_fails(&import(&db, &unnamed));
    assert!(
        said.contains("feature 1 (rosebank): boundary's positions look like metres (3120262, -3019496), not degrees: reproject to EPSG:4326 with `ogr2ogr -t_srs EPSG:4326`"),
        "{said}"
    );

    // CRS84 and EPSG:4326, at the top or on a feature, are read.
    let wgs84 = dir.join("wgs84.geojson");
    let with_crs = feature("rosebank", "", SQUARE).replacen(
        "{\"type\": \"Feature\",",
        &format!("{{\"type\": \"Feature\", \"crs\": {},", crs("EPSG:4326")),
        1,
    );
    fs::write(
        &wgs84,
        format!(
            "{{\"type\": \"FeatureCollection\", \"crs\": {}, \"features\": [{with_crs}]}}",
            crs("urn:ogc:def:crs:OGC:1.3:CRS84")
        ),
    )
    .unwrap();
    assert_ok(&import(&db, &wgs84));
    assert!(!dir.join("areas.db.previous").exists());
}

#[test]
fn a_file_that_is_no_collection_or_has_both_boundary_columns_is_one_problem() {
    let dir = scratch_dir("boundaries-shape");
    let db = dir.join("areas.db");
    let single = dir.join("one.geojson");
    fs::write(&single, feature("rosebank", "", SQUARE)).unwrap();
    let said = assert_fails(&import(&db, &single));
    assert!(said.contains("has 1 problem;"), "{said}");
    assert!(
        said.contains("the file is a GeoJSON Feature; a .geojson file holds a FeatureCollection"),
        "{said}"
    );

    let both = dir.join("both.csv");
    fs::write(
        &both,
        "id,name,province,municipality,safety,safety_weight,safety_sources,boundary,WKT\n",
    )
    .unwrap();
    let said = assert_fails(&import(&db, &both));
    assert!(
        said.contains("the header has both 'boundary' and 'WKT'"),
        "{said}"
    );
    assert!(!db.exists());
}

/// The import's memory bound, in KiB as /proc gives it (load::BUILD_MEMORY_MIB).
const BOUND_KIB: u64 = area_scoring::data::load::BUILD_MEMORY_MIB * 1024;

/// A FeatureCollection of `features` areas, each a square with its centre
/// left out, padded after each with blank space (which the format skips)
/// to `bytes` in all: a file past the bound that imports quickly.
fn write_big_collection(path: &Path, features: u64, bytes: u64) {
    let mut out = BufWriter::new(File::create(path).unwrap());
    let pad = " ".repeat((bytes / features) as usize);
    write!(
        out,
        "{{\"type\": \"FeatureCollection\", \"name\": \"big\", \"features\": ["
    )
    .unwrap();
    for i in 0..features {
        let (x, y) = (
            28.0 + (i % 100) as f64 * 0.001,
            -26.0 - (i / 100) as f64 * 0.001,
        );
        let ring = format!(
            "[[[{x}, {y}], [{}, {y}], [{}, {}], [{x}, {}], [{x}, {y}]]]",
            x + 0.001,
            x + 0.001,
            y + 0.001,
            y + 0.001
        );
        let comma = if i + 1 < features { "," } else { "" };
        write!(
            out,
            "{}{comma}\n{pad}",
            feature(&format!("area-{i}"), "", &ring)
        )
        .unwrap();
    }
    writeln!(out, "]}}").unwrap();
    out.flush().unwrap();
}

#[test]
fn a_feature_collection_larger_than_the_memory_bound_imports_within_it() {
    const FEATURES: u64 = 10_000;
    const BYTES: u64 = 280 * 1024 * 1024;
    let dir = scratch_dir("boundaries-memory");
    let (db, file) = (dir.join("areas.db"), dir.join("big.geojson"));
    write_big_collection(&file, FEATURES, BYTES);
    assert!(fs::metadata(&file).unwrap().len() >= BYTES);
    let args = [
        "import",
        "--db",
        db.to_str().unwrap(),
        file.to_str().unwrap(),
    ];
    let child = command(&args, &[], Path::new("/"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (status, err, peak) = wait_with_peak_kib(child);
    fs::remove_file(&file).unwrap();
    assert!(status.success(), "import failed: {err}");
    assert!(err.contains(&format!("with {FEATURES} areas")), "{err}");
    assert!(peak > 0, "VmHWM was read");
    assert!(peak <= BOUND_KIB, "peak {peak} KiB, bound {BOUND_KIB} KiB");
}

#[test]
fn an_import_that_changes_only_a_boundary_replaces_the_dataset() {
    let dir = scratch_dir("boundaries-changed");
    let db = dir.join("areas.db");
    let first = fixture("qgis-suburbs.geojson");
    assert_ok(&import(&db, &first));
    let stored = |db: &Path| -> String {
        Connection::open(db)
            .unwrap()
            .query_row(
                "SELECT b.geometry FROM area_boundaries b JOIN areas a USING (area_no) WHERE a.id = 'rosebank'",
                [],
                |r| r.get(0),
            )
            .unwrap()
    };
    let before = stored(&db);
    // The same areas, Rosebank's boundary a little larger to the east.
    let changed = dir.join("suburbs-changed.geojson");
    let text = fs::read_to_string(&first).unwrap();
    assert!(text.contains("[28.05, -26.15], [28.05, -26.13]"));
    fs::write(
        &changed,
        text.replace(
            "[28.05, -26.15], [28.05, -26.13]",
            "[28.051, -26.15], [28.051, -26.13]",
        ),
    )
    .unwrap();
    let out = import(&db, &changed);
    assert_ok(&out);
    let after = stored(&db);
    assert_ne!(after, before, "{}", stderr(&out));
    assert!(after.contains("28.051"), "{after}");
    // The same file again changes nothing.
    let again = import(&db, &changed);
    assert_ok(&again);
    assert!(stderr(&again).contains("same"), "{}", stderr(&again));
    assert_eq!(stored(&db), after);
}
