//! Each rule of a boundary (mod.rs, `BoundaryError`) on WKT and GeoJSON input.

use serde_json::json;

use super::*;

/// A square around Soweto's centre, written clockwise (against RFC 7946).
const SQUARE_CW: &str = "POLYGON((27.8 -26.3, 27.8 -26.2, 27.9 -26.2, 27.9 -26.3, 27.8 -26.3))";

fn square(x: f64, y: f64, side: f64) -> Vec<[f64; 2]> {
    vec![
        [x, y],
        [x + side, y],
        [x + side, y + side],
        [x, y + side],
        [x, y],
    ]
}

fn geojson_polygon(rings: &[Vec<[f64; 2]>]) -> serde_json::Value {
    json!({"type": "Polygon", "coordinates": rings})
}

fn error_of(value: serde_json::Value) -> BoundaryError {
    from_geojson(&value).expect_err("refused")
}

#[test]
fn a_cell_tells_wkt_from_geojson_and_none_from_either() {
    let from_text = read_cell(SQUARE_CW).unwrap().unwrap();
    let geojson = geojson_polygon(&[square(27.8, -26.3, 0.1)]).to_string();
    let from_json = read_cell(&geojson).unwrap().unwrap();
    assert_eq!(from_text.shape(), from_json.shape());
    for none in [
        "",
        "  ",
        "null",
        "NULL",
        "POLYGON EMPTY",
        "MULTIPOLYGON EMPTY",
    ] {
        assert_eq!(read_cell(none), Ok(None), "{none:?}");
    }
    assert_eq!(from_geojson(&serde_json::Value::Null), Ok(None));
    assert!(matches!(
        read_cell("POLYGON((1 2"),
        Err(BoundaryError::Unreadable(_))
    ));
    assert!(matches!(
        read_cell("{\"type\": "),
        Err(BoundaryError::Unreadable(_))
    ));
}

#[test]
fn rings_are_kept_in_rfc_7946_orientation_whatever_the_input_winding() {
    use geo::Winding;
    let hole = vec![
        [27.82, -26.28],
        [27.82, -26.22],
        [27.88, -26.22],
        [27.88, -26.28],
        [27.82, -26.28],
    ];
    let mut shell = square(27.8, -26.3, 0.1);
    shell.reverse();
    let b = from_geojson(&geojson_polygon(&[shell, hole]))
        .unwrap()
        .unwrap();
    let polygon = &b.shape().0[0];
    assert!(polygon.exterior().is_ccw(), "exterior counter-clockwise");
    assert!(polygon.interiors()[0].is_cw(), "hole clockwise");
    assert!(!b.holds(-26.25, 27.85), "inside the hole is outside");
    assert!(b.holds(-26.29, 27.81));
}

#[test]
fn a_polygon_and_a_multipolygon_are_served_as_they_came() {
    let polygon = read_cell(SQUARE_CW).unwrap().unwrap().to_geojson();
    assert_eq!(polygon["type"], "Polygon");
    let ring = polygon["coordinates"][0].as_array().unwrap();
    assert_eq!(ring.len(), 5);
    assert_eq!(ring[0], ring[4]);
    let multi = "MULTIPOLYGON(((27.8 -26.3, 27.9 -26.3, 27.9 -26.2, 27.8 -26.2, 27.8 -26.3)))";
    assert_eq!(
        read_cell(multi).unwrap().unwrap().to_geojson()["type"],
        "MultiPolygon"
    );
}

#[test]
fn z_values_are_dropped() {
    let b = from_wkt(
        "POLYGON Z((27.8 -26.3 5, 27.9 -26.3 5, 27.9 -26.2 5, 27.8 -26.2 5, 27.8 -26.3 5))",
    );
    let b = b.unwrap().unwrap();
    let with_z = json!({"type": "Polygon", "coordinates": [[[27.8, -26.3, 5.0], [27.9, -26.3, 5.0],
        [27.9, -26.2, 5.0], [27.8, -26.2, 5.0], [27.8, -26.3, 5.0]]]});
    assert_eq!(from_geojson(&with_z).unwrap().unwrap().shape(), b.shape());
    assert_eq!(
        b.to_geojson()["coordinates"][0][0]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn only_polygons_and_multipolygons_are_boundaries() {
    assert_eq!(
        read_cell("POINT(27.8 -26.3)"),
        Err(BoundaryError::NotAPolygon("Point".into()))
    );
    let collection = json!({"type": "GeometryCollection", "geometries": []});
    assert_eq!(
        error_of(collection),
        BoundaryError::NotAPolygon("GeometryCollection".into())
    );
    assert!(matches!(
        read_cell("GEOMETRYCOLLECTION(POINT(1 2))"),
        Err(BoundaryError::NotAPolygon(k)) if k == "GeometryCollection"
    ));
}

#[test]
fn a_ring_must_be_closed_and_hold_four_positions() {
    let open = vec![[27.8, -26.3], [27.9, -26.3], [27.9, -26.2], [27.8, -26.2]];
    assert_eq!(
        error_of(geojson_polygon(&[open])),
        BoundaryError::OpenRing {
            polygon: 1,
            ring: 1
        }
    );
    let short = vec![[27.8, -26.3], [27.9, -26.3], [27.8, -26.3]];
    let hole_short = [square(27.8, -26.3, 0.1), short];
    assert_eq!(
        error_of(geojson_polygon(&hole_short)),
        BoundaryError::ShortRing {
            polygon: 1,
            ring: 2,
            positions: 3
        }
    );
    let second = json!({"type": "MultiPolygon", "coordinates": [[square(20.0, -30.0, 1.0)],
        [[[22.0, -30.0], [23.0, -30.0], [23.0, -29.0], [22.0, -29.5]]]]});
    assert_eq!(
        error_of(second),
        BoundaryError::OpenRing {
            polygon: 2,
            ring: 1
        }
    );
}

#[test]
fn positions_out_of_range_and_projected_ones_are_told_apart() {
    let utm = square(500_000.0, 7_100_000.0, 1_000.0);
    let e = error_of(geojson_polygon(&[utm]));
    assert!(matches!(e, BoundaryError::Projected { .. }), "{e:?}");
    assert!(e.to_string().contains("ogr2ogr -t_srs EPSG:4326"));
    let e = error_of(geojson_polygon(&[square(179.5, -26.3, 1.0)]));
    assert_eq!(e, BoundaryError::OutOfRange { x: 180.5, y: -26.3 });
    let short_position = json!({"type": "Polygon", "coordinates": [[[27.8], [27.9, -26.3],
        [27.9, -26.2], [27.8]]]});
    let e = from_geojson(&short_position).unwrap_err();
    assert!(
        matches!(&e, BoundaryError::Unreadable(m) if m.contains("[lng, lat]")),
        "{e:?}"
    );
}

#[test]
fn a_crs_other_than_wgs84_is_refused_naming_ogr2ogr() {
    let mut g = geojson_polygon(&[square(27.8, -26.3, 0.1)]);
    g["crs"] = json!({"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::2048"}});
    let e = error_of(g.clone());
    assert_eq!(
        e,
        BoundaryError::OtherCrs("urn:ogc:def:crs:EPSG::2048".into())
    );
    assert!(e.to_string().contains("ogr2ogr -t_srs EPSG:4326"));
    g["crs"] = json!({"type": "name", "properties": {"name": "urn:ogc:def:crs:OGC:1.3:CRS84"}});
    assert!(from_geojson(&g).unwrap().is_some());
}

#[test]
fn a_polygon_across_the_antimeridian_is_refused() {
    let wide = vec![
        [-179.5, -20.0],
        [179.5, -20.0],
        [179.5, -19.0],
        [-179.5, -19.0],
        [-179.5, -20.0],
    ];
    assert_eq!(
        error_of(geojson_polygon(&[wide])),
        BoundaryError::Antimeridian { polygon: 1 }
    );
}

#[test]
fn ogc_validity_refuses_crossings_stray_holes_and_overlapping_parts() {
    let bow = "POLYGON((0 0, 1 1, 1 0, 0 1, 0 0))";
    assert!(
        matches!(read_cell(bow), Err(BoundaryError::Invalid(_))),
        "{:?}",
        read_cell(bow)
    );
    let outside = [square(20.0, -30.0, 1.0), square(25.0, -30.0, 0.5)];
    assert!(matches!(
        error_of(geojson_polygon(&outside)),
        BoundaryError::Invalid(_)
    ));
    let overlapping = json!({"type": "MultiPolygon", "coordinates": [[square(20.0, -30.0, 1.0)],
        [square(20.5, -30.0, 1.0)]]});
    assert!(matches!(error_of(overlapping), BoundaryError::Invalid(_)));
    let spike = "POLYGON((0 0, 2 0, 2 2, 2 3, 2 2, 0 2, 0 0))";
    assert!(
        matches!(read_cell(spike), Err(BoundaryError::Invalid(_))),
        "a spike back along an edge"
    );
    let figure_eight = "POLYGON((0 0, 2 0, 1 1, 2 2, 0 2, 1 1, 0 0))";
    assert!(
        matches!(read_cell(figure_eight), Err(BoundaryError::Invalid(_))),
        "a ring through one vertex twice"
    );
    let hole_on_edge = [square(20.0, -30.0, 1.0), square(20.0, -29.8, 0.5)];
    assert!(matches!(
        error_of(geojson_polygon(&hole_on_edge)),
        BoundaryError::Invalid(_)
    ));
    let nested_holes = [
        square(20.0, -30.0, 1.0),
        square(20.1, -29.9, 0.8),
        square(20.2, -29.8, 0.2),
    ];
    assert!(matches!(
        error_of(geojson_polygon(&nested_holes)),
        BoundaryError::Invalid(_)
    ));
}

#[test]
fn what_ogc_allows_passes() {
    let repeated = "POLYGON((0 0, 1 0, 1 0, 1 1, 0 1, 0 0))";
    assert!(
        read_cell(repeated).unwrap().is_some(),
        "a repeated position"
    );
    let hole_at_a_point = "POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (0 2, 2 1, 2 3, 0 2))";
    assert!(
        read_cell(hole_at_a_point).unwrap().is_some(),
        "a hole touching the shell at one point"
    );
    let island_in_hole = json!({"type": "MultiPolygon", "coordinates": [
        [square(20.0, -30.0, 1.0), square(20.2, -29.8, 0.6)], [square(20.4, -29.6, 0.2)]]});
    assert!(
        from_geojson(&island_in_hole).unwrap().is_some(),
        "an island inside a hole"
    );
    let touching = json!({"type": "MultiPolygon", "coordinates": [[square(20.0, -30.0, 1.0)],
        [square(21.0, -29.0, 1.0)]]});
    assert!(
        from_geojson(&touching).unwrap().is_some(),
        "parts touching at a corner"
    );
}

/// Random rings of a few positions, most of them crossing themselves: the
/// sweep judges each as georust's own `Validation` does.
#[test]
fn validity_agrees_with_georusts_on_random_rings() {
    use geo::Validation;
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % 10_000) as f64 / 1_000.0
    };
    let (mut valid, mut invalid) = (0, 0);
    for _ in 0..3_000 {
        let n = 3 + (next() as usize % 6);
        let mut ring: Vec<[f64; 2]> = (0..n).map(|_| [next(), next()]).collect();
        ring.push(ring[0]);
        let shape = MultiPolygon::new(vec![to_polygon(&[ring])]);
        let ours = validity::first_problem(&shape).is_none();
        assert_eq!(ours, shape.is_valid(), "{shape:?}");
        if ours { valid += 1 } else { invalid += 1 }
    }
    assert!(
        valid > 300 && invalid > 300,
        "both kinds are tried: {valid} valid, {invalid} not"
    );
}

#[test]
fn vertices_are_capped_per_area() {
    let n = VERTICES_PER_AREA_MAX;
    let mut ring: Vec<[f64; 2]> = (0..n)
        .map(|i| {
            let t = i as f64 / n as f64 * std::f64::consts::TAU;
            [25.0 + t.cos(), -29.0 + t.sin()]
        })
        .collect();
    ring.push(ring[0]);
    assert_eq!(
        error_of(geojson_polygon(&[ring.clone()])),
        BoundaryError::TooManyVertices(n + 1)
    );
    ring.drain(1..2);
    assert_eq!(
        from_geojson(&geojson_polygon(&[ring]))
            .unwrap()
            .unwrap()
            .vertices(),
        n
    );
}

#[test]
fn a_centre_inside_or_near_passes_and_one_far_outside_is_refused() {
    let b = read_cell(SQUARE_CW).unwrap().unwrap();
    let (lat, lng) = b.centre();
    assert!(b.holds(lat, lng), "the computed centre lies inside");
    assert_eq!(b.check_centre(-26.25, 27.85), Ok(()));
    // 0.005 degrees of longitude east of the edge: about 0.5 km at this latitude.
    assert_eq!(b.check_centre(-26.25, 27.905), Ok(()));
    // The same point with lat and lng swapped.
    let e = b.check_centre(27.85, -26.25).unwrap_err();
    assert!(
        matches!(e, BoundaryError::CentreOutside { km, .. } if km > 1000.0),
        "{e:?}"
    );
    assert!(e.to_string().contains("swapped"));
}

#[test]
fn points_on_edges_and_vertices_are_held() {
    let b = read_cell(SQUARE_CW).unwrap().unwrap();
    assert!(b.holds(-26.3, 27.8), "a vertex");
    assert!(b.holds(-26.25, 27.9), "an edge");
    assert!(!b.holds(-26.25, 27.9001));
    assert_eq!(b.distance_km(-26.25, 27.85), 0.0);
}

/// seed/boundaries.csv (tools/seed_boundaries.py) as an import reads it: every
/// seed place has a valid cell near its centre, and Lesotho and the sea are
/// in none.
#[test]
fn the_seed_cells_pass_every_rule_and_leave_lesotho_and_the_sea_out() {
    let mut centres = std::collections::HashMap::new();
    let mut seed = csv::Reader::from_reader(include_str!("../../../seed/za-areas.csv").as_bytes());
    for row in seed.records() {
        let row = row.unwrap();
        let (lat, lng) = (
            row[5].parse::<f64>().unwrap(),
            row[6].parse::<f64>().unwrap(),
        );
        centres.insert(row[0].to_string(), (lat, lng));
    }
    let mut cells = Vec::new();
    let mut file =
        csv::Reader::from_reader(include_str!("../../../seed/boundaries.csv").as_bytes());
    for row in file.records() {
        let row = row.unwrap();
        let b = read_cell(&row[1])
            .unwrap_or_else(|e| panic!("{}: {e}", &row[0]))
            .unwrap();
        let (lat, lng) = centres[&row[0]];
        assert_eq!(b.check_centre(lat, lng), Ok(()), "{}", &row[0]);
        cells.push((row[0].to_string(), b));
    }
    assert_eq!(cells.len(), centres.len(), "a cell for every seed place");
    let holding = |lat: f64, lng: f64| -> Vec<&str> {
        cells
            .iter()
            .filter(|(_, b)| b.holds(lat, lng))
            .map(|(id, _)| id.as_str())
            .collect()
    };
    assert_eq!(
        holding(-29.3167, 27.4833),
        Vec::<&str>::new(),
        "Maseru, in Lesotho"
    );
    assert_eq!(
        holding(-35.5, 20.0),
        Vec::<&str>::new(),
        "the sea south of Cape Agulhas"
    );
    assert_eq!(holding(-26.26781, 27.85849), vec!["soweto"]);
}
