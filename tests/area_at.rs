//! The area at a point (`GET /v1/areas/at`) and boundaries as answers carry
//! them (`include=boundary`, `geometry=boundary`, `simplify=`), through the
//! real server over the seed's generated cells. What the dataset locates is
//! judged against a brute force in tests/boundary_locate.rs; here, what a
//! client sees of it: the detail form with `located`, the ids of `also`,
//! the errors, the plans, and the same boundary in every answer.

use std::collections::BTreeMap;

use area_scoring::data::boundary::{self, SIMPLIFY_TOLERANCES_M};
use area_scoring::domain::Plan;
use serde_json::Value;

use crate::common::{assert_error, encode, spawn_app};

/// Every seed area's boundary, by id, from the GeoJSON export.
fn exported_boundaries(query: &str) -> BTreeMap<String, Value> {
    let app = spawn_app();
    let reply = app.get(&format!(
        "/v1/areas/export.geojson?geometry=boundary{query}"
    ));
    assert_eq!(reply.status, 200, "{}", reply.text());
    let doc = reply.json();
    doc["features"]
        .as_array()
        .expect("features")
        .iter()
        .map(|f| (f["id"].as_str().unwrap().to_string(), f["geometry"].clone()))
        .collect()
}

/// How many positions a Polygon or MultiPolygon holds.
fn positions(geometry: &Value) -> usize {
    match geometry["type"].as_str() {
        Some("Polygon") => rings(&geometry["coordinates"]),
        Some("MultiPolygon") => geometry["coordinates"]
            .as_array()
            .unwrap()
            .iter()
            .map(rings)
            .sum(),
        other => panic!("not a boundary: {other:?}"),
    }
}

fn rings(polygon: &Value) -> usize {
    polygon
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_array().unwrap().len())
        .sum()
}

#[test]
fn a_point_inside_each_seed_cell_answers_that_cells_place() {
    let app = spawn_app();
    let cells = exported_boundaries("");
    assert_eq!(
        cells.len(),
        app.listed().len(),
        "every seed area has a cell"
    );
    for (id, geometry) in &cells {
        let cell = boundary::from_geojson(geometry)
            .unwrap_or_else(|e| panic!("{id}: the served boundary reads back: {e}"))
            .expect("a boundary");
        let (lat, lng) = cell.centre();
        let found = app.ok(&format!("/v1/areas/at?lat={lat}&lng={lng}"));
        assert_eq!(found["id"], id.as_str(), "({lat}, {lng})");
        assert_eq!(found["located"]["by"], "boundary", "{id}");
        assert_eq!(found["located"]["distance_km"], 0.0, "{id}");
        assert_eq!(found["located"]["also"], serde_json::json!([]), "{id}");
        // The rest is Get Area's detail form, member for member.
        let mut detail = found.clone();
        detail.as_object_mut().unwrap().remove("located");
        assert_eq!(detail, app.ok(&format!("/v1/areas/{}", encode(id))), "{id}");
    }
}

#[test]
fn lesotho_and_the_sea_are_no_area() {
    let app = spawn_app();
    for (place, lat, lng) in [
        ("Maseru, in Lesotho", -29.31, 27.48),
        ("Lesotho's highlands", -29.6, 28.4),
        ("the sea off Cape Agulhas", -35.5, 20.0),
        ("the sea off Durban", -30.0, 32.5),
        ("Gaborone, in Botswana", -24.65, 25.91),
    ] {
        let reply = app.get(&format!("/v1/areas/at?lat={lat}&lng={lng}"));
        let message = assert_error(&reply, 404, "no_area_here", None);
        assert!(message.contains(&lat.to_string()), "{place}: {message}");
    }
}

#[test]
fn a_point_on_a_shared_vertex_is_in_every_cell_that_meets_there() {
    let app = spawn_app();
    let cells = exported_boundaries("");
    // Count how many cells share each exterior vertex.
    let mut meeting: BTreeMap<(u64, u64), Vec<&str>> = BTreeMap::new();
    for (id, geometry) in &cells {
        assert_eq!(
            geometry["type"], "MultiPolygon",
            "a collection's boundaries are multi"
        );
        for p in geometry["coordinates"][0][0].as_array().unwrap() {
            let (lng, lat) = (p[0].as_f64().unwrap(), p[1].as_f64().unwrap());
            let ids = meeting.entry((lng.to_bits(), lat.to_bits())).or_default();
            if !ids.contains(&id.as_str()) {
                ids.push(id);
            }
        }
    }
    let shared: Vec<_> = meeting
        .iter()
        .filter(|(_, ids)| ids.len() >= 3)
        .take(25)
        .collect();
    assert!(shared.len() >= 10, "the seed's cells meet at vertices");
    for ((lng, lat), ids) in shared {
        let (lng, lat) = (f64::from_bits(*lng), f64::from_bits(*lat));
        let found = app.ok(&format!("/v1/areas/at?lat={lat}&lng={lng}"));
        let mut answered: Vec<String> = vec![found["id"].as_str().unwrap().to_string()];
        for also in found["located"]["also"].as_array().unwrap() {
            answered.push(also.as_str().unwrap().to_string());
        }
        let mut sorted = answered.clone();
        sorted.sort();
        let mut expected: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        expected.sort();
        assert_eq!(sorted, expected, "({lat}, {lng}): {answered:?}");
        assert_eq!(found["located"]["by"], "boundary");
    }
}

#[test]
fn bad_points_are_refused_in_the_error_shape() {
    let app = spawn_app();
    for (query, param) in [
        ("", "lat"),
        ("lng=28", "lat"),
        ("lat=-26", "lng"),
        ("lat=91&lng=28", "lat"),
        ("lat=-26&lng=180.5", "lng"),
        ("lat=nan&lng=28", "lat"),
        ("lat=-26&lng=28&radius=0", "radius"),
        ("lat=-26&lng=28&radius=51", "radius"),
        ("lat=-26&lng=28&include=ranking", "include"),
        ("lat=-26&lng=28&include=boundary,boundary", "include"),
        ("lat=-26&lng=28&q=soweto", "q"),
        ("lat=-26&lat=-26&lng=28", "lat"),
    ] {
        let reply = app.get(&format!("/v1/areas/at?{query}"));
        assert_error(&reply, 400, "invalid_parameter", Some(param));
    }
}

#[test]
fn the_area_at_a_point_takes_get_areas_extras_and_plans() {
    let app = spawn_app();
    let (lat, lng) = (-33.9249, 18.4241);
    let target = format!("/v1/areas/at?lat={lat}&lng={lng}&include=nearby,boundary");
    let found = app.ok(&target);
    let id = found["id"].as_str().unwrap();
    let detail = app.ok(&format!("/v1/areas/{id}?include=boundary,nearby"));
    assert_eq!(found["nearby"], detail["nearby"]);
    assert_eq!(found["boundary"], detail["boundary"]);
    assert!(positions(&found["boundary"]) >= 4);
    let seed_cells: BTreeMap<String, String> =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/seed/boundaries.csv"))
            .unwrap()
            .lines()
            .skip(1)
            .filter_map(|l| l.split_once(','))
            .map(|(id, wkt)| (id.to_string(), wkt.trim_matches('"').to_string()))
            .collect();
    let imported = boundary::read_cell(&seed_cells[id]).unwrap().unwrap();
    assert_eq!(
        found["boundary"],
        imported.to_geojson(),
        "the seed's cell, as imported"
    );
    // The free plan may ask; history needs growth, as on Get Area.
    let free = app.get_as(Plan::Free, &target);
    assert_eq!(free.status, 200, "{}", free.text());
    let history = app.get_as(
        Plan::Free,
        &format!("/v1/areas/at?lat={lat}&lng={lng}&include=history"),
    );
    assert_error(&history, 403, "plan_upgrade_required", Some("include"));
    let with_history = app.ok(&format!("/v1/areas/at?lat={lat}&lng={lng}&include=history"));
    assert_eq!(with_history["history"].as_array().unwrap().len(), 30);
}

#[test]
fn at_is_a_reserved_id_and_not_an_area() {
    let app = spawn_app();
    // /v1/areas/at is the route: without a point it is a 400, never 404 area_not_found.
    let reply = app.get("/v1/areas/at");
    assert_error(&reply, 400, "invalid_parameter", Some("lat"));
    assert!(area_scoring::domain::RESERVED_AREA_IDS.contains(&"at"));
}

#[test]
fn every_answer_carries_the_same_boundary_and_simplified_forms_are_smaller() {
    let app = spawn_app();
    let full = exported_boundaries("");
    for id in ["cape-town", "soweto", "danielskuil"] {
        let detail = app.ok(&format!("/v1/areas/{id}?include=boundary"));
        // Get Area gives a Polygon as it came; a collection, as a MultiPolygon of one part.
        let imported = &detail["boundary"];
        let as_multi = match imported["type"].as_str() {
            Some("Polygon") => {
                serde_json::json!({"type": "MultiPolygon", "coordinates": [imported["coordinates"]]})
            }
            _ => imported.clone(),
        };
        assert_eq!(as_multi, full[id], "{id}");
    }
    let page = app.get("/v1/areas.geojson?province=gauteng&limit=100&geometry=boundary");
    assert_eq!(page.status, 200);
    for f in page.json()["features"].as_array().unwrap() {
        assert_eq!(f["geometry"], full[f["id"].as_str().unwrap()]);
    }
    let searched = app.get("/v1/areas/search.geojson?q=soweto&geometry=boundary");
    assert_eq!(searched.json()["features"][0]["geometry"], full["soweto"]);
    let total: usize = full.values().map(positions).sum();
    let mut previous = total;
    for tolerance in SIMPLIFY_TOLERANCES_M {
        let simplified = exported_boundaries(&format!("&simplify={tolerance}"));
        assert_eq!(simplified.len(), full.len());
        let now: usize = simplified.values().map(positions).sum();
        assert!(
            now <= previous,
            "{tolerance} m: {now} positions, {previous} before"
        );
        for (id, geometry) in &simplified {
            let read = boundary::from_geojson(geometry);
            assert!(read.is_ok(), "{id} at {tolerance} m is valid: {read:?}");
        }
        previous = now;
    }
    assert!(
        previous < total,
        "the coarsest form drops positions: {previous} of {total}"
    );
}

#[test]
fn geometry_and_simplify_belong_to_the_geojson_paths() {
    let app = spawn_app();
    for target in [
        "/v1/areas?geometry=boundary",
        "/v1/areas.csv?geometry=boundary",
        "/v1/areas/search?q=soweto&geometry=boundary",
        "/v1/areas/export.ndjson?geometry=boundary",
        "/v1/areas?format=geojson&geometry=boundary",
    ] {
        assert_error(&app.get(target), 400, "invalid_parameter", Some("geometry"));
    }
    for (query, param) in [
        ("simplify=250", "simplify"),
        ("geometry=boundary&simplify=100", "simplify"),
        ("geometry=polygon", "geometry"),
    ] {
        let reply = app.get(&format!("/v1/areas.geojson?{query}"));
        assert_error(&reply, 400, "invalid_parameter", Some(param));
    }
    let points = app.get("/v1/areas.geojson?geometry=point&limit=1").json();
    assert_eq!(points["features"][0]["geometry"]["type"], "Point");
}

/// A ring in a form that ignores its orientation and its first position:
/// its open positions from the least, in the direction whose second
/// position is the less.
fn canonical_ring(ring: &Value) -> Vec<(u64, u64)> {
    let mut open: Vec<(u64, u64)> = ring.as_array().unwrap()[1..]
        .iter()
        .map(|p| {
            (
                p[0].as_f64().unwrap().to_bits(),
                p[1].as_f64().unwrap().to_bits(),
            )
        })
        .collect();
    let least = |v: &[(f64, f64)]| {
        (0..v.len())
            .min_by(|&a, &b| v[a].partial_cmp(&v[b]).unwrap())
            .unwrap()
    };
    let as_f64: Vec<(f64, f64)> = open
        .iter()
        .map(|&(x, y)| (f64::from_bits(x), f64::from_bits(y)))
        .collect();
    let start = least(&as_f64);
    open.rotate_left(start);
    let mut reversed = open.clone();
    reversed[1..].reverse();
    let second = |v: &[(u64, u64)]| (f64::from_bits(v[1].0), f64::from_bits(v[1].1));
    if second(&reversed) < second(&open) {
        reversed
    } else {
        open
    }
}

/// A Polygon's or MultiPolygon's rings, each canonical, polygon by polygon.
fn canonical(geometry: &Value) -> Vec<Vec<Vec<(u64, u64)>>> {
    let polygons: Vec<&Value> = match geometry["type"].as_str() {
        Some("Polygon") => vec![&geometry["coordinates"]],
        Some("MultiPolygon") => geometry["coordinates"].as_array().unwrap().iter().collect(),
        other => panic!("not a boundary: {other:?}"),
    };
    polygons
        .iter()
        .map(|p| p.as_array().unwrap().iter().map(canonical_ring).collect())
        .collect()
}

#[test]
fn a_qgis_feature_collection_comes_back_unchanged_but_for_orientation() {
    use crate::common::import_files::{assert_ok, import};
    let dir = crate::common::scratch_dir("qgis-round-trip");
    let db = dir.join("areas.db");
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/boundaries/qgis-suburbs.geojson");
    assert_ok(&import(&db, &file));
    let sent: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let app = crate::common::TestApp::over(db);
    let page = app.get("/v1/areas.geojson?geometry=boundary").json();
    let collected: BTreeMap<String, Value> = page["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["id"].as_str().unwrap().to_string(), f["geometry"].clone()))
        .collect();
    let mut compared = 0;
    for feature in sent["features"].as_array().unwrap() {
        let id = feature["properties"]["id"].as_str().unwrap();
        let detail = app.ok(&format!("/v1/areas/{id}?include=boundary"));
        let given = &feature["geometry"];
        if given.is_null() {
            assert!(detail["boundary"].is_null(), "{id}");
            assert!(collected[id].is_null(), "{id}");
            continue;
        }
        assert_eq!(
            detail["boundary"]["type"], given["type"],
            "{id}: served as it came"
        );
        assert_eq!(canonical(&detail["boundary"]), canonical(given), "{id}");
        assert_eq!(
            canonical(&collected[id]),
            canonical(given),
            "{id}: in GeoJSON"
        );
        // RFC 7946: exteriors counter-clockwise, holes clockwise.
        for polygon in &collected[id]["coordinates"].as_array().unwrap()[..] {
            for (i, ring) in polygon.as_array().unwrap().iter().enumerate() {
                let p: Vec<(f64, f64)> = ring
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|q| (q[0].as_f64().unwrap(), q[1].as_f64().unwrap()))
                    .collect();
                let twice_area: f64 = p
                    .windows(2)
                    .map(|w| w[0].0 * w[1].1 - w[1].0 * w[0].1)
                    .sum();
                assert_eq!(twice_area > 0.0, i == 0, "{id}: ring {i} is {twice_area}");
            }
        }
        compared += 1;
    }
    assert_eq!(compared, 2, "the fixture's two boundaries");
}
