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
