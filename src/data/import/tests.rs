//! Unit tests of the whole check: duplicate ids, empty files, the report.

use super::*;

const NOW: i64 = 1_772_366_400; // 2026-03-01T12:00:00Z

const HEADER: &str = "id,name,province,municipality,lat,lng,safety,safety_weight,safety_sources";

fn csv(rows: &[&str]) -> Vec<u8> {
    format!("{HEADER}\n{}\n", rows.join("\n")).into_bytes()
}

#[test]
fn good_areas_come_back_sorted_by_id() {
    let bytes = csv(&["b,B,gauteng,M,1,2,5,1,s", "a,A,gauteng,M,1,2,6,1,s"]);
    let areas = parse(from_csv::read, &bytes, NOW).unwrap();
    assert_eq!(
        areas.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        ["a", "b"]
    );
}

#[test]
fn duplicate_ids_name_the_first_line() {
    let bytes = csv(&[
        "a,A,gauteng,M,1,2,5,1,s",
        "b,B,gauteng,M,1,2,5,1,s",
        "a,A2,gauteng,M,1,2,5,1,s",
    ]);
    let problems = parse(from_csv::read, &bytes, NOW).unwrap_err();
    assert_eq!(
        problems,
        [Problem {
            line: 4,
            id: Some("a".into()),
            message: "id 'a' is already used on line 2".into()
        }]
    );
}

#[test]
fn empty_files_are_refused() {
    for bytes in [&b""[..], &csv(&[])[..HEADER.len() + 1], b"\n\n"] {
        let problems = parse(from_csv::read, bytes, NOW).unwrap_err();
        assert_eq!(problems[0].message, "the file holds no areas");
    }
    assert!(parse(from_jsonl::read, b"\n", NOW).is_err());
}

#[test]
fn every_bad_row_is_reported_and_the_list_is_capped() {
    let rows: Vec<String> = (0..150)
        .map(|i| format!("a{i},A,gauteng,M,1,2,11,1,s"))
        .collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let problems = parse(from_csv::read, &csv(&rows), NOW).unwrap_err();
    assert_eq!(problems.len(), 150);
    assert_eq!(problems[149].line, 151);
    let text = report(Path::new("x.csv"), &problems);
    assert!(
        text.starts_with("x.csv has 150 problems on 150 lines; nothing was imported"),
        "{text}"
    );
    assert!(
        text.contains("\n  line 2 (a0): safety score must be from 0 to 10, not 11"),
        "{text}"
    );
    assert!(
        text.contains("line 101 (a99)") && !text.contains("line 102 "),
        "{text}"
    );
    assert!(text.ends_with("\n  ... and 50 more"), "{text}");
}

#[test]
fn extensions_choose_the_reader() {
    assert!(reader_for(Path::new("a.CSV")).is_ok());
    assert!(reader_for(Path::new("dir/a.ndjson")).is_ok());
    for bad in ["a.json", "a", "a.csv.gz"] {
        assert!(
            reader_for(Path::new(bad)).unwrap_err().contains(".jsonl"),
            "{bad}"
        );
    }
}
