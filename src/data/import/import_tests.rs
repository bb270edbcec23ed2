//! Unit tests of the whole check: duplicate ids, empty files, the report,
//! and the writing pass reading every row again as the checking pass did.

use super::problems::Problem;
use super::*;

/// Both passes over a file in memory: the areas in the order they would be
/// written, or every problem.
fn parse(format: Format, bytes: &[u8], now: i64) -> Result<Vec<Area>, super::problems::Problems> {
    let csv = super::CsvOptions::default();
    let staged = staging::check(format, bytes, now, &csv, &ANYWHERE).unwrap()?;
    let mut areas = Vec::new();
    let mut buf = Vec::new();
    let mut rows = staged.layout.rereader();
    staged
        .each_in_id_order(|span| {
            areas.push(area_at(&mut rows, bytes, span, now, &mut buf)?);
            Ok(())
        })
        .unwrap();
    assert_eq!(areas.len(), staged.areas);
    Ok(areas)
}

/// Every point: these tests are about the rows, not where they lie (region.rs).
const ANYWHERE: Region = Region {
    min_lng: -180.0,
    min_lat: -90.0,
    max_lng: 180.0,
    max_lat: 90.0,
    name: "the whole earth",
};

const NOW: i64 = 1_772_366_400; // 2026-03-01T12:00:00Z

const HEADER: &str = "id,name,province,municipality,lat,lng,safety,safety_weight,safety_sources";

fn csv(rows: &[&str]) -> Vec<u8> {
    format!("{HEADER}\n{}\n", rows.join("\n")).into_bytes()
}

#[test]
fn good_areas_come_back_sorted_by_id() {
    let bytes = csv(&["b,B,gauteng,M,1,2,5,1,s", "a,A,gauteng,M,1,2,6,1,s"]);
    let areas = parse(Format::Csv, &bytes, NOW).unwrap();
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
    let mut problems = parse(Format::Csv, &bytes, NOW).unwrap_err();
    assert_eq!(
        problems.shown(),
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
        let mut problems = parse(Format::Csv, bytes, NOW).unwrap_err();
        assert_eq!(problems.shown()[0].message, "the file holds no areas");
    }
    assert!(parse(Format::Jsonl, b"\n", NOW).is_err());
}

#[test]
fn every_bad_row_is_reported_and_the_list_is_capped() {
    let rows: Vec<String> = (0..150)
        .map(|i| format!("a{i},A,gauteng,M,1,2,11,1,s"))
        .collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let mut problems = parse(Format::Csv, &csv(&rows), NOW).unwrap_err();
    assert_eq!(problems.total(), 150);
    let shown = problems.shown();
    assert_eq!(shown.len(), 100);
    assert_eq!(shown[99].line, 101);
    let text = problems.report(Path::new("x.csv"));
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
    assert_eq!(format_of(Path::new("a.CSV")).unwrap(), Format::Csv);
    assert_eq!(format_of(Path::new("dir/a.ndjson")).unwrap(), Format::Jsonl);
    for bad in ["a.json", "a", "a.csv.gz"] {
        let why = format_of(Path::new(bad)).unwrap_err();
        assert!(matches!(why, ImportError::UnknownFormat(_)), "{bad}");
        assert!(why.to_string().contains(".jsonl"), "{bad}");
    }
}

#[test]
fn the_writing_pass_reads_each_row_again_as_the_checking_pass_did() {
    // A byte-order mark, CRLF, comments between rows, quoted commas, and
    // rows out of id order: each span must hold exactly its row.
    let text = format!(
        "\u{feff}{HEADER}\r\n# a comment\r\nzulu,\"Zulu, Z\",gauteng,M,1,2,5,1,s\r\n\r\n# another\r\nalpha,\"A \"\"1\"\"\",Gauteng,\"M, N\",3,4,6,1,s;t\r\nmid,Mid,gauteng,M,5,6,7,1,s"
    );
    let areas = parse(Format::Csv, text.as_bytes(), NOW).unwrap();
    let got: Vec<(&str, &str, &str, f64)> = areas
        .iter()
        .map(|a| {
            (
                a.id.as_str(),
                a.name.as_str(),
                a.municipality.as_str(),
                a.lat,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("alpha", "A \"1\"", "M, N", 3.0),
            ("mid", "Mid", "M", 5.0),
            ("zulu", "Zulu, Z", "M", 1.0)
        ]
    );
    assert_eq!(areas[0].dimensions[0].sources, ["s", "t"]);

    let line = |id: &str, lat: i32| {
        format!(
            r#"{{"id":"{id}","name":"N {id}","province":"gauteng","municipality":"M","lat":{lat},"lng":2,"dimensions":{{"safety":{{"score":5,"weight":1,"sources":["s"]}}}}}}"#
        )
    };
    let text = format!(
        "\u{feff}{}\r\n\n  \r\n{}\n{}",
        line("b", 1),
        line("a", 2),
        line("c", 3)
    );
    let areas = parse(Format::Jsonl, text.as_bytes(), NOW).unwrap();
    let got: Vec<(&str, f64)> = areas.iter().map(|a| (a.id.as_str(), a.lat)).collect();
    assert_eq!(got, [("a", 2.0), ("b", 1.0), ("c", 3.0)]);
}

#[test]
fn repeated_ids_and_other_problems_come_in_line_order_and_lines_are_counted_once() {
    let bytes = csv(&[
        "a,A,gauteng,M,1,2,5,1,s",
        "b,B,gauteng,M,1,2,11,1,s",
        "a,A,gauteng,M,1,2,11,1,s",
        "b,B,gauteng,M,1,2,5,1,s",
    ]);
    let problems = parse(Format::Csv, &bytes, NOW).unwrap_err();
    let text = problems.report(Path::new("x.csv"));
    assert_eq!(
        text,
        "x.csv has 4 problems on 3 lines; nothing was imported and the database is unchanged
  line 3 (b): safety score must be from 0 to 10, not 11
  line 4 (a): id 'a' is already used on line 2
  line 4 (a): safety score must be from 0 to 10, not 11
  line 5 (b): id 'b' is already used on line 3"
    );
}

#[test]
fn a_file_bad_on_many_lines_keeps_the_first_problems_and_counts_the_rest() {
    let mut rows: Vec<String> = (0..500)
        .map(|i| format!("a{i},A,gauteng,M,1,2,11,1,s"))
        .collect();
    rows.push("a0,A,gauteng,M,1,2,5,1,s".into());
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let text = parse(Format::Csv, &csv(&rows), NOW)
        .unwrap_err()
        .report(Path::new("x.csv"));
    assert!(
        text.starts_with("x.csv has 501 problems on 501 lines;"),
        "{text}"
    );
    assert!(text.contains("\n  line 2 (a0): safety score"), "{text}");
    assert!(
        text.contains("line 101 (a99)") && !text.contains("line 102 "),
        "{text}"
    );
    assert!(
        !text.contains("already used"),
        "line 502 is past the first 100"
    );
    assert!(text.ends_with("\n  ... and 401 more"), "{text}");
}
