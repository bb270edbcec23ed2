//! Unit tests of the CSV reader: columns, cells, line numbers.

use super::*;
use crate::data::import::LIST_ITEMS_MAX;

const HEADER: &str =
    "id,name,province,municipality,lat,lng,safety,safety_weight,safety_sources,history";

fn one(text: &str) -> Row {
    let mut rows = read(text.as_bytes());
    assert_eq!(rows.len(), 1, "{rows:?}");
    rows.remove(0)
}

#[test]
fn reads_a_row_with_quotes_comments_and_history() {
    let text = format!(
        "# made-up scores\n{HEADER}\nsea-point,\"Sea Point, Cape Town\",western-cape,City of Cape Town,-33.91,18.38,6.5,1,saps; survey ,2026-01-01:6.4; 2026-01-02:6.5\n"
    );
    let row = one(&text);
    assert!(row.problems.is_empty(), "{:?}", row.problems);
    assert_eq!(row.line, 3);
    let d = row.draft.unwrap();
    assert_eq!(d.name.as_deref(), Some("Sea Point, Cape Town"));
    assert_eq!((d.lat, d.lng), (Some(-33.91), Some(18.38)));
    assert_eq!(d.dimensions.len(), 1);
    assert_eq!(d.dimensions[0].sources, ["saps", "survey"]);
    assert_eq!(d.history.len(), 2);
    assert_eq!(
        (d.history[1].date.as_str(), d.history[1].score),
        ("2026-01-02", Some(6.5))
    );
}

#[test]
fn a_bad_header_is_reported_alone() {
    let rows = read(b"id,name,provnce,lat,lng,safety,safety_weight,market,id\nx,y,z,1,2,3,4,5,6\n");
    assert_eq!(rows.len(), 1);
    let text = rows[0].problems.join("\n");
    for expected in [
        "unknown column 'provnce'",
        "'id' appears twice",
        "lacks the column 'province'",
        "lacks the column 'municipality'",
        "safety needs all three columns",
        "market needs all three columns",
    ] {
        assert!(text.contains(expected), "{expected} missing from:\n{text}");
    }
}

#[test]
fn cells_that_cannot_be_read_are_each_reported() {
    let text = format!("{HEADER}\n,A,gauteng,M,north,1e2,6.5,,,2026-01-01\n");
    let row = one(&text);
    let problems = row.problems.join("\n");
    for expected in [
        "id is missing",
        "lat 'north' is not a number",
        "lng '1e2'",
        "safety_weight is missing",
        "history item '2026-01-01'",
    ] {
        assert!(
            problems.contains(expected),
            "{expected} missing from:\n{problems}"
        );
    }
}

#[test]
fn an_area_may_leave_a_dimension_out_and_rows_keep_their_lines() {
    let text = format!("{HEADER}\na,A,gauteng,M,1,2,,,,\n\"b\nc\",B,gauteng,M,1,2,5,1,s,\nd,D\n");
    let rows = read(text.as_bytes());
    assert_eq!(rows.iter().map(|r| r.line).collect::<Vec<_>>(), [2, 3, 5]);
    assert!(rows[0].draft.as_ref().unwrap().dimensions.is_empty());
    assert!(rows[2].problems[0].contains("2 fields, but the header has 10"));
}

#[test]
fn an_empty_file_has_no_rows_and_a_header_alone_none_either() {
    assert!(read(b"").is_empty());
    assert!(read(format!("{HEADER}\n").as_bytes()).is_empty());
}

#[test]
fn a_row_past_a_cap_or_an_open_quote_is_its_own_problem() {
    let long = "x".repeat(ROW_BYTES_MAX as usize);
    let many = ",".repeat(FIELDS_MAX);
    let text = format!("{HEADER}\n# a comment\n{long}\na,A,gauteng,M,1,2,5,1,s,\n{many}\nb,\"B\n");
    let rows = read(text.as_bytes());
    assert_eq!(
        rows.iter().map(|r| r.line).collect::<Vec<_>>(),
        [3, 4, 5, 6]
    );
    assert!(
        rows[0].problems[0].contains("16777217 bytes"),
        "{:?}",
        rows[0].problems
    );
    assert!(rows[1].problems.is_empty(), "{:?}", rows[1].problems);
    assert_eq!(
        rows[2].problems,
        ["1025 fields, more than the 1024 a row may have"]
    );
    assert!(rows[3].problems[0].contains("not closed before the end of the file"));
}

#[test]
fn a_list_cell_past_its_cap_is_one_problem() {
    let history = ";".repeat(LIST_ITEMS_MAX);
    let row = one(&format!("{HEADER}\na,A,gauteng,M,1,2,5,1,s,{history}\n"));
    assert_eq!(
        row.problems,
        ["history holds more than 10000 items, the most a list may hold"]
    );
}

#[test]
fn rows_of_separators_are_skipped_and_counted() {
    let text = format!("{HEADER}\r\n,,,,,,,,,\r\na,A,gauteng,M,1,2,5,1,s,\r\n , ,,\r\n");
    let mut rows = Vec::new();
    let header = each_row(text.as_bytes(), &CsvOptions::default(), |row, _| {
        rows.push(row)
    })
    .unwrap()
    .unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].line, 3);
    assert_eq!(header.empty_rows, 2);
    assert_eq!(header.notes(), ["skipped 2 rows of empty cells"]);
}

#[test]
fn empty_columns_after_the_last_name_are_read_past() {
    let text = format!(
        "{HEADER},,\na,A,gauteng,M,1,2,5,1,s,,,\nb,B,gauteng,M,1,2,5,1,s,\nc,C,gauteng,M,1,2,5,1,s,,x,\n"
    );
    let rows = read(text.as_bytes());
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows[0].problems.is_empty(), "{:?}", rows[0].problems);
    assert!(rows[1].problems.is_empty(), "{:?}", rows[1].problems);
    assert_eq!(
        rows[2].problems,
        ["field 11 holds 'x', but its column has no name in the header"]
    );
    let rows = read(b"id,,name\n");
    assert!(rows[0].problems[0].contains("column 2 of the header has no name"));
}

#[test]
fn a_file_not_in_utf8_is_one_problem_naming_its_encoding() {
    let mut bytes = format!("{HEADER}\n").into_bytes();
    bytes.extend_from_slice(
        b"a,Dani\xeblskuil,gauteng,M,1,2,5,1,s,\nb,\x93B\x94,gauteng,M,1,2,5,1,s,\n",
    );
    let rows = read(&bytes);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].line, 2);
    let problem = &rows[0].problems[0];
    assert!(
        problem.starts_with("the file is not UTF-8: it looks like Windows-1252")
            && problem.contains("byte 0xEB reads as 'Daniëlskuil'")
            && problem.contains("Save As → CSV UTF-8"),
        "{problem}"
    );
    let rows = read(b"\xff\xfei\0d\0\n\0");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(
        rows[0].problems[0].contains("it is UTF-16"),
        "{:?}",
        rows[0].problems
    );
    let mut bytes = format!("{HEADER}\n").into_bytes();
    bytes.extend_from_slice(b"a,\x81,gauteng,M,1,2,5,1,s,\n");
    let rows = read(&bytes);
    assert!(
        rows[0].problems[0].contains("byte 0x81 is no UTF-8"),
        "{:?}",
        rows[0].problems
    );
}

#[test]
fn semicolons_and_decimal_commas_are_read_when_the_file_uses_them_throughout() {
    let header = HEADER.replace(',', ";");
    let text = format!("{header}\r\na;A;gauteng;M;-26,5;28;5,5;1;s;\"2026/01/01:5,5\"\r\n");
    let row = one(&text);
    assert!(row.problems.is_empty(), "{:?}", row.problems);
    let d = row.draft.unwrap();
    assert_eq!(
        (d.lat, d.lng, d.dimensions[0].score),
        (Some(-26.5), Some(28.0), Some(5.5))
    );
    assert_eq!(d.history[0].date, "2026-01-01");
    let rows = read(b"id;name,province\n");
    assert!(
        rows[0].problems[0].contains("both ';' and ','"),
        "{:?}",
        rows[0].problems
    );
}

#[test]
fn a_boundary_column_holds_wkt_or_geojson_per_cell_and_makes_the_centre_optional() {
    let text = "id,name,province,municipality,safety,safety_weight,safety_sources,boundary\n\
        a,A,gauteng,M,6,1,saps,\"POLYGON((28 -26.3, 28.1 -26.3, 28.1 -26.2, 28 -26.2, 28 -26.3))\"\n\
        b,B,gauteng,M,6,1,saps,\"{\"\"type\"\": \"\"Polygon\"\", \"\"coordinates\"\": [[[28, -26.3], [28.1, -26.3], [28.1, -26.2], [28, -26.2], [28, -26.3]]]}\"\n\
        c,C,gauteng,M,6,1,saps,\n\
        d,D,gauteng,M,6,1,saps,POINT(28 -26)\n";
    let rows = read(text.as_bytes());
    assert_eq!(rows.len(), 4, "{rows:?}");
    for row in &rows[..2] {
        assert!(row.problems.is_empty(), "{:?}", row.problems);
        assert!(row.draft.as_ref().unwrap().boundary.is_some());
    }
    // Without a boundary, lat and lng are required as ever.
    assert_eq!(rows[2].problems, ["lat is missing", "lng is missing"]);
    // A boundary that is refused is the row's problem alone.
    assert_eq!(rows[3].line, 5);
    assert_eq!(
        rows[3].problems,
        ["boundary is a Point; it must be a Polygon or a MultiPolygon"]
    );
}

#[test]
fn ogr2ogrs_wkt_column_is_the_boundary_and_both_names_are_refused() {
    let text = "WKT,id,name,province,municipality,safety,safety_weight,safety_sources\n\
        \"POLYGON((28 -26.3, 28.1 -26.3, 28.1 -26.2, 28 -26.2, 28 -26.3))\",a,A,gauteng,M,6,1,saps\n";
    let row = one(text);
    assert!(row.problems.is_empty(), "{:?}", row.problems);
    assert!(row.draft.unwrap().boundary.is_some());

    let rows = read(
        b"id,name,province,municipality,lat,lng,safety,safety_weight,safety_sources,boundary,WKT\n",
    );
    let text = rows[0].problems.join("\n");
    assert!(text.contains("both 'boundary' and 'WKT'"), "{text}");
    // Without a boundary column, lat and lng are required columns.
    let rows = read(b"id,name,province,municipality,safety,safety_weight,safety_sources\n");
    let text = rows[0].problems.join("\n");
    assert!(text.contains("lacks the column 'lat'"), "{text}");
}
