//! The writers against the RFCs' rules, with values that would break a
//! careless writer: commas, quotes, newlines, non-ASCII names.

use super::*;

fn area(name: &str, distance_km: Option<f64>) -> AreaSummary {
    located(name, distance_km, -28.18873, 23.53951)
}

fn located(name: &str, distance_km: Option<f64>, lat: f64, lng: f64) -> AreaSummary {
    AreaSummary {
        id: "daniels-kuil".into(),
        name: name.into(),
        province: "Northern Cape".into(),
        province_slug: "northern-cape".into(),
        municipality: "Siyanda, \"District\"".into(),
        truth_score: 6.03,
        updated_at: "2026-11-22T00:00:00Z".into(),
        distance_km,
        matched: None,
        lat,
        lng,
    }
}

const PLAIN: Columns = Columns {
    distance: false,
    coordinates: true,
    dimensions: false,
};

#[test]
fn csv_quotes_only_what_needs_it_and_ends_lines_with_crlf() {
    let a = area("Daniëlskuil\nNorth", None);
    let row = Row {
        area: &a,
        dimensions: None,
        shape: Shape::Point,
    };
    let mut out = Vec::new();
    csv_header(&mut out, PLAIN);
    csv_row(&mut out, &row, PLAIN);
    let text = String::from_utf8(out).unwrap();
    assert_eq!(
        text,
        "id,name,province,province_slug,municipality,truth_score,updated_at,lat,lng\r\n\
         daniels-kuil,\"Daniëlskuil\nNorth\",Northern Cape,northern-cape,\"Siyanda, \"\"District\"\"\",6.03,\
         2026-11-22T00:00:00Z,-28.18873,23.53951\r\n"
    );
}

#[test]
fn csv_export_columns_leave_a_missing_dimension_empty() {
    let a = located("Daniëlskuil", None, -28.1, 23.5);
    let dims = [
        Some(3.9),
        None,
        Some(5.0),
        Some(7.25),
        Some(1.0),
        Some(10.0),
        Some(0.0),
    ];
    let row = Row {
        area: &a,
        dimensions: Some(&dims),
        shape: Shape::Point,
    };
    let cols = Columns {
        dimensions: true,
        ..PLAIN
    };
    let mut out = Vec::new();
    csv_header(&mut out, cols);
    csv_row(&mut out, &row, cols);
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.split("\r\n").collect();
    assert!(lines[0].ends_with(
        ",lat,lng,safety,infrastructure,service_delivery,market,amenities,environment,sentiment"
    ));
    assert!(
        lines[1].ends_with(",-28.1,23.5,3.9,,5,7.25,1,10,0"),
        "{}",
        lines[1]
    );
}

#[test]
fn a_feature_is_a_point_at_lng_lat_with_flat_properties() {
    let a = area("Daniëlskuil", Some(12.5));
    let row = Row {
        area: &a,
        dimensions: None,
        shape: Shape::Point,
    };
    let cols = Columns {
        distance: true,
        coordinates: false,
        dimensions: false,
    };
    let mut out = GEOJSON_OPEN.to_vec();
    geojson_feature(&mut out, &row, cols);
    geojson_close(
        &mut out,
        None,
        &[("total", 1), ("limit", 10), ("offset", 0)],
    );
    let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(doc["type"], "FeatureCollection");
    assert_eq!(
        (
            doc["total"].as_i64(),
            doc["limit"].as_i64(),
            doc["offset"].as_i64()
        ),
        (Some(1), Some(10), Some(0))
    );
    let f = &doc["features"][0];
    assert_eq!(f["type"], "Feature");
    assert_eq!(f["id"], "daniels-kuil");
    assert_eq!(
        f["geometry"],
        serde_json::json!({"type": "Point", "coordinates": [23.53951, -28.18873]})
    );
    // In the list form's order, read off the text.
    let text = String::from_utf8(out.clone()).unwrap();
    let properties = &text[text.find("\"properties\"").unwrap()..];
    let at = |k: &str| properties.find(&format!("\"{k}\":")).unwrap();
    let mut order = LIST_FIELDS.to_vec();
    order.push("distance_km");
    assert!(
        order.windows(2).all(|w| at(w[0]) < at(w[1])),
        "{properties}"
    );
    assert_eq!(f["properties"].as_object().unwrap().len(), order.len());
    assert_eq!(f["properties"]["municipality"], "Siyanda, \"District\"");
}

#[test]
fn a_json_object_is_flat_and_null_where_a_dimension_is_missing() {
    let a = located("Daniëlskuil", None, -28.1, 23.5);
    let dims = [None, Some(1.5), None, None, None, None, Some(9.99)];
    let row = Row {
        area: &a,
        dimensions: Some(&dims),
        shape: Shape::Point,
    };
    let mut out = Vec::new();
    json_object(
        &mut out,
        &row,
        Columns {
            dimensions: true,
            ..PLAIN
        },
    );
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["lat"], -28.1);
    assert_eq!(v["safety"], serde_json::Value::Null);
    assert_eq!(v["infrastructure"], 1.5);
    assert_eq!(v["sentiment"], 9.99);
    assert_eq!(v.as_object().unwrap().len(), 7 + 2 + 7);
}

#[test]
fn a_boundary_feature_carries_the_stored_geometry_or_null() {
    let a = located("Daniëlskuil", None, -28.1, 23.5);
    let polygon = r#"{"type":"Polygon","coordinates":[[[23.5,-28.2],[23.6,-28.2],[23.6,-28.1],[23.5,-28.2]]]}"#;
    for (shape, expected) in [
        (
            Shape::Boundary(Some(polygon)),
            serde_json::from_str::<serde_json::Value>(polygon).unwrap(),
        ),
        (Shape::Boundary(None), serde_json::Value::Null),
    ] {
        let row = Row {
            area: &a,
            dimensions: None,
            shape,
        };
        let mut out = Vec::new();
        geojson_feature(&mut out, &row, PLAIN);
        let f: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(f["geometry"], expected);
        assert_eq!(f["properties"]["name"], "Daniëlskuil");
        assert!(f["properties"].get("lat").is_none(), "{f}");
    }
}
