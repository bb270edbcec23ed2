//! JSON Lines reading: rows, problems and their lines.

use super::*;

const GOOD: &str = r#"{"id":"sea-point","name":"Sea Point","province":"western-cape","municipality":"City of Cape Town","lat":-33.91,"lng":18.38,"dimensions":{"safety":{"score":6.5,"weight":1,"sources":["saps"]}},"history":[{"date":"2026-01-01","truth_score":6.4}]}"#;

#[test]
fn reads_an_area_per_line_and_skips_blank_lines() {
    let text = format!("\u{feff}{GOOD}\r\n\n  \n{GOOD}\n");
    let rows = read(text.as_bytes());
    assert_eq!(rows.iter().map(|r| r.line).collect::<Vec<_>>(), [1, 4]);
    assert!(rows[0].problems.is_empty(), "{:?}", rows[0].problems);
    let d = rows[0].draft.as_ref().unwrap();
    assert_eq!(
        (d.id.as_deref(), d.lat, d.lng),
        (Some("sea-point"), Some(-33.91), Some(18.38))
    );
    assert_eq!(d.dimensions[0].weight, Some(1.0));
    assert_eq!(d.history[0].date, "2026-01-01");
}

#[test]
fn every_type_problem_of_an_object_is_reported() {
    let line = r#"{"id":"a","name":7,"provnce":"gauteng","lat":"1","dimensions":{"safety":{"score":"6","sources":"x","extra":1}},"history":[{"date":"2026-01-01"},3]}"#;
    let rows = read(line.as_bytes());
    let text = rows[0].problems.join("\n");
    for expected in [
        "unknown field 'provnce'",
        "name must be a string",
        "province is missing",
        "municipality is missing",
        "lat must be a number",
        "lng is missing",
        "dimensions.safety.score must be a number",
        "dimensions.safety.weight is missing",
        "dimensions.safety.sources must be an array of strings",
        "unknown field 'dimensions.safety.extra'",
        "history[0].truth_score is missing",
        "history[1] must be an object",
    ] {
        assert!(text.contains(expected), "{expected} missing from:\n{text}");
    }
}

#[test]
fn a_field_given_twice_is_reported_wherever_it_is() {
    let line = GOOD
        .replace(r#""id":"sea-point","#, r#""id":"sea-point","id":"other","#)
        .replace(r#""score":6.5,"#, r#""score":6.5,"score":9,"#)
        .replace(
            r#""truth_score":6.4}"#,
            r#""truth_score":6.4,"date":"2026-01-02"}"#,
        );
    let rows = read(format!("\n{line}\n").as_bytes());
    assert_eq!(rows[0].line, 2);
    assert_eq!(
        rows[0].problems,
        [
            "field 'id' is given twice; give each field once",
            "field 'dimensions.safety.score' is given twice; give each field once",
            "field 'history[0].date' is given twice; give each field once",
        ]
    );
    let d = rows[0].draft.as_ref().unwrap();
    assert_eq!(
        (d.id.as_deref(), d.dimensions[0].score),
        (Some("sea-point"), Some(6.5))
    );
}

#[test]
fn lines_that_are_not_objects_are_reported_on_their_line() {
    let rows = read(b"{\"id\": \n[1,2]\n\xff\n");
    assert_eq!(rows.iter().map(|r| r.line).collect::<Vec<_>>(), [1, 2, 3]);
    assert!(rows[0].problems[0].starts_with("not valid JSON"));
    assert!(rows[1].problems[0].contains("expected a JSON object"));
    assert!(rows.iter().all(|r| r.draft.is_none()));
}

#[test]
fn a_line_past_the_cap_is_its_own_problem_and_the_lines_after_keep_their_numbers() {
    let long = "x".repeat(ROW_BYTES_MAX as usize + 1);
    let text = format!("{GOOD}\n{long}\r\n\n{GOOD}");
    let rows = read(text.as_bytes());
    assert_eq!(rows.iter().map(|r| r.line).collect::<Vec<_>>(), [1, 2, 4]);
    assert_eq!(
        rows[1].problems,
        [format!(
            "this row is {} bytes, more than the 16777216 bytes (16 MiB) a row may hold",
            ROW_BYTES_MAX + 1
        )]
    );
    assert!(rows[2].problems.is_empty(), "{:?}", rows[2].problems);
}

#[test]
fn many_unknown_fields_are_named_up_to_twenty_then_counted() {
    let fields: Vec<String> = (0..25).map(|i| format!(r#""k{i}":0"#)).collect();
    let line = GOOD.replacen('{', &format!("{{{},", fields.join(",")), 1);
    let rows = read(line.as_bytes());
    let unknown = rows[0]
        .problems
        .iter()
        .filter(|p| p.starts_with("unknown field"));
    assert_eq!(unknown.count(), NAMED_MAX);
    assert!(
        rows[0]
            .problems
            .contains(&"and 5 more unknown fields".to_string())
    );
}

#[test]
fn a_list_past_its_cap_is_one_problem() {
    let names = vec![r#""a""#; LIST_ITEMS_MAX + 1].join(",");
    let line = GOOD.replacen('{', &format!(r#"{{"other_names":[{names}],"#), 1);
    let rows = read(line.as_bytes());
    assert_eq!(
        rows[0].problems,
        ["other_names holds more than 10000 items, the most a list may hold"]
    );
}
