//! A feature read as an area's row: its properties by the CSV columns'
//! names, its geometry the boundary, properties that are no column noted
//! once, and each problem of the feature its row's.

use super::*;

const SQUARE: &str = r#"{"type": "Polygon", "coordinates": [[[28.0, -26.3], [28.1, -26.3], [28.1, -26.2], [28.0, -26.2], [28.0, -26.3]]]}"#;

fn feature(properties: &str, geometry: &str) -> String {
    format!(r#"{{"type": "Feature", "properties": {{{properties}}}, "geometry": {geometry}}}"#)
}

const AREA: &str = r#""id": "a", "name": "A", "province": "gauteng", "municipality": "M", "safety": 6.5, "safety_weight": 1, "safety_sources": "saps""#;

fn read(text: &str) -> (Row, IgnoredProperties) {
    let mut ignored = IgnoredProperties::default();
    let row = feature_row(3, text.as_bytes(), &Decimals::default(), &mut ignored);
    (row, ignored)
}

#[test]
fn properties_are_the_csv_columns_and_the_geometry_the_boundary() {
    let text = feature(
        &format!(r#"{AREA}, "OBJECTID": 7, "Shape_Area": 0.01, "lat": null"#),
        SQUARE,
    );
    let (row, ignored) = read(&text);
    assert_eq!(row.problems, Vec::<String>::new());
    let draft = row.draft.unwrap();
    assert_eq!(draft.id.as_deref(), Some("a"));
    assert_eq!(draft.dimensions[0].score, Some(6.5));
    assert_eq!(draft.dimensions[0].sources, ["saps"]);
    assert_eq!(draft.lat, None, "lat may be left out beside a geometry");
    assert!(draft.boundary.is_some());
    let warning = ignored.warning().unwrap();
    assert!(warning.contains("OBJECTID, Shape_Area"), "{warning}");
}

#[test]
fn without_a_geometry_lat_and_lng_are_required() {
    for geometry in ["null", r#"{"type": "Polygon", "coordinates": []}"#] {
        let (row, _) = read(&feature(AREA, geometry));
        assert_eq!(
            row.problems,
            ["lat is missing", "lng is missing"],
            "{geometry}"
        );
        assert!(row.draft.unwrap().boundary.is_none());
    }
}

#[test]
fn each_problem_of_a_feature_is_its_rows() {
    let open = r#"{"type": "Polygon", "coordinates": [[[28.0, -26.3], [28.1, -26.3], [28.1, -26.2], [28.0, -26.2], [28.0, -26.25]]]}"#;
    let (row, _) = read(&feature(AREA, open));
    assert_eq!(row.line, 3);
    assert_eq!(row.problems.len(), 1, "{:?}", row.problems);
    assert!(
        row.problems[0].contains("is not closed"),
        "{:?}",
        row.problems
    );

    let crs = r#"{"type": "Feature", "crs": {"type": "name", "properties": {"name": "EPSG:3857"}}, "properties": {}, "geometry": null}"#;
    let (row, _) = read(crs);
    assert!(
        row.problems
            .iter()
            .any(|p| p.contains("ogr2ogr -t_srs EPSG:4326")),
        "{:?}",
        row.problems
    );

    let (row, _) = read(&feature(&format!(r#"{AREA}, "name": ["A"]"#), SQUARE));
    assert!(
        row.problems.iter().any(|p| p.contains("given twice")),
        "{:?}",
        row.problems
    );
    let (row, _) = read(&feature(r#""history": [1]"#, SQUARE));
    assert!(
        row.problems
            .iter()
            .any(|p| p.contains("property 'history' must be a string or a number"))
    );

    let (row, _) = read(r#"{"type": "FeatureCollection", "features": []}"#);
    assert!(
        row.problems[0].contains("not a Feature"),
        "{:?}",
        row.problems
    );
    let (row, _) = read("[1]");
    assert!(row.draft.is_none());
}

#[test]
fn a_geojsonseq_line_may_open_with_a_record_separator() {
    let text = format!("\u{1e}{}", feature(AREA, SQUARE));
    let (row, _) = read(&text);
    assert_eq!(row.problems, Vec::<String>::new());
    let again = row_at(text.as_bytes());
    assert_eq!(again.draft.unwrap().id.as_deref(), Some("a"));
}

#[test]
fn ignored_properties_are_named_up_to_a_cap() {
    let mut ignored = IgnoredProperties::default();
    for i in 0..IGNORED_NAMED_MAX + 5 {
        ignored.note(&format!("p{i}"));
        ignored.note("p0");
    }
    let warning = ignored.warning().unwrap();
    assert_eq!(warning.matches(", p").count(), IGNORED_NAMED_MAX - 1);
    assert!(warning.contains("and others"), "{warning}");
    assert_eq!(IgnoredProperties::default().warning(), None);
}

#[test]
fn the_features_own_id_stands_in_for_a_missing_id_property() {
    let properties = AREA.replacen(r#""id": "a", "#, "", 1);
    let text = format!(
        r#"{{"type": "Feature", "id": "b", "properties": {{{properties}}}, "geometry": {SQUARE}}}"#
    );
    let (row, _) = read(&text);
    assert_eq!(row.problems, Vec::<String>::new());
    assert_eq!(row.draft.unwrap().id.as_deref(), Some("b"));
    // The property wins when both are given.
    let text = format!(
        r#"{{"type": "Feature", "id": "b", "properties": {{{AREA}}}, "geometry": {SQUARE}}}"#
    );
    assert_eq!(read(&text).0.draft.unwrap().id.as_deref(), Some("a"));
}
