//! `area-scoring import` end to end on the rules of docs/import.md that tie
//! the values to the API: truth_score rounded half away from zero in decimal
//! (3.515 gives 3.52 although the doubles sum to 3.5149999999999997), scores
//! with float noise rounded and counted, repeated JSON fields refused, and
//! provinces given by slug or display name; and files as Excel and Google
//! Sheets write them (tests/fixtures/import/): CRLF line ends, a byte-order
//! mark, rows of empty cells, `;` separators and decimal commas, Windows-1252.

// The import helpers this file does not use.
#[allow(dead_code)]
use crate::common::import_files as support;

use std::fs;

use rusqlite::Connection;

use crate::common::scratch_dir;
use support::*;

const HEADER: &str = "id,name,province,municipality,lat,lng,updated_at,safety,safety_weight,safety_sources,market,market_weight,market_sources,history";

/// A file of tests/fixtures/import/, as a spreadsheet wrote it.
fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(name)
}

fn stored_truth(db: &std::path::Path, id: &str) -> f64 {
    let conn = Connection::open(db).unwrap();
    check_invariants(&conn);
    query_f64(&conn, "SELECT truth_score FROM areas WHERE id = ?1", id)
}

#[test]
fn a_weighted_sum_of_3_515_is_stored_as_3_52_and_the_history_may_say_so() {
    let dir = scratch_dir("import-rounding");
    let db = dir.join("areas.db");
    let csv = dir.join("halfway.csv");
    let row = "halfway,Halfway,gauteng,M,-25.7,28.2,,3.57,0.5,s,3.46,0.5,d,2026-10-01:3.4;2026-11-01:3.52";
    fs::write(&csv, format!("{HEADER}\n{row}\n")).unwrap();
    assert_ok(&import(&db, &csv));
    assert_eq!(stored_truth(&db, "halfway"), 3.52);

    let jsonl = dir.join("halfway.jsonl");
    let line = r#"{"id":"halfway","name":"Halfway","province":"gauteng","municipality":"M","lat":-25.7,"lng":28.2,"truth_score":3.52,"dimensions":{"safety":{"score":3.57,"weight":0.5,"sources":["s"]},"market":{"score":3.46,"weight":0.5,"sources":["d"]}},"history":[{"date":"2026-11-01","truth_score":3.52}]}"#;
    fs::write(&jsonl, format!("{line}\n")).unwrap();
    assert_ok(&import(&db, &jsonl));
    assert_eq!(stored_truth(&db, "halfway"), 3.52);
}

#[test]
fn scores_with_more_than_2_decimals_are_rounded_and_counted() {
    let dir = scratch_dir("import-rounded");
    let db = dir.join("areas.db");
    let csv = dir.join("noisy.csv");
    let row = "noisy,Noisy,gauteng,M,-25.123456789,28.2,2026-11-02,4.8999999999999995,0.3333,s,7.005,0.6667,d,2026-10-01:6.1000000000000005";
    fs::write(&csv, format!("{HEADER}\n{row}\n")).unwrap();
    let out = import(&db, &csv);
    assert_ok(&out);
    assert!(
        stderr(&out).contains("; rounded 3 scores to 2 decimals"),
        "{}",
        stderr(&out)
    );
    let conn = Connection::open(&db).unwrap();
    let dims: Vec<(f64, f64)> = conn
        .prepare("SELECT score, weight FROM area_dimensions ORDER BY dimension DESC")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(dims, [(4.9, 0.3333), (7.01, 0.6667)]);
    let lat = query_f64(&conn, "SELECT lat FROM areas WHERE id = ?1", "noisy");
    assert_eq!(lat, -25.123456789, "coordinates are kept as given");
    // 4.9 × 0.3333 + 7.01 × 0.6667 = 6.30684...
    assert_eq!(stored_truth(&db, "noisy"), 6.31);
}

#[test]
fn a_json_field_given_twice_is_refused_with_its_line() {
    let dir = scratch_dir("import-repeated");
    let db = dir.join("areas.db");
    let jsonl = dir.join("repeated.jsonl");
    let good = r#"{"id":"good","name":"Good","province":"gauteng","municipality":"M","lat":-25.7,"lng":28.2,"dimensions":{"safety":{"score":6,"weight":1,"sources":["s"]}}}"#;
    let twice = r#"{"id":"twice","name":"Twice","province":"gauteng","municipality":"M","lat":-25.7,"lat":25.7,"lng":28.2,"dimensions":{"safety":{"score":6,"weight":1,"sources":["s"]},"safety":{"score":9,"weight":1,"sources":["s"]}},"history":[{"date":"2026-10-01","truth_score":6,"truth_score":7}]}"#;
    fs::write(&jsonl, format!("{good}\n{twice}\n")).unwrap();
    let text = assert_fails(&import(&db, &jsonl));
    for field in ["lat", "dimensions.safety", "history[0].truth_score"] {
        let want = format!("line 2 (twice): field '{field}' is given twice");
        assert!(text.contains(&want), "{want}: {text}");
    }
    assert!(!text.contains("line 1 "), "{text}");
    assert!(!db.exists(), "nothing was imported");
}

#[test]
fn a_province_is_its_slug_or_its_display_name_in_both_formats() {
    let dir = scratch_dir("import-provinces");
    let db = dir.join("areas.db");
    let csv = dir.join("provinces.csv");
    let rows = [
        "by-slug,By Slug,western-cape,M,-33.9,18.4,2026-11-01,6,0.5,s,7,0.5,d,",
        "by-name,By Name,Western Cape,M,-33.9,18.4,2026-11-01,6,0.5,s,7,0.5,d,",
    ];
    fs::write(&csv, format!("{HEADER}\n{}\n", rows.join("\n"))).unwrap();
    assert_ok(&import(&db, &csv));
    let provinces = |db: &std::path::Path| -> Vec<(String, String)> {
        Connection::open(db)
            .unwrap()
            .prepare("SELECT province_slug, province FROM areas ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let western = ("western-cape".to_string(), "Western Cape".to_string());
    assert_eq!(provinces(&db), [western.clone(), western]);

    let jsonl = dir.join("provinces.jsonl");
    let line = |id: &str, province: &str| {
        format!(
            r#"{{"id":"{id}","name":"N","province":"{province}","municipality":"M","lat":-29.9,"lng":31.0,"dimensions":{{"safety":{{"score":6,"weight":1,"sources":["s"]}}}}}}"#
        )
    };
    let lines = [line("a", "KwaZulu-Natal"), line("b", "kwazulu-natal")];
    fs::write(&jsonl, lines.join("\n")).unwrap();
    assert_ok(&import(&db, &jsonl));
    let kzn = ("kwazulu-natal".to_string(), "KwaZulu-Natal".to_string());
    assert_eq!(provinces(&db), [kzn.clone(), kzn]);

    fs::write(&jsonl, line("c", "Kwazulu Natl")).unwrap();
    let text = assert_fails(&import(&db, &jsonl));
    assert!(
        text.contains("line 1 (c): province 'Kwazulu Natl' is not one of eastern-cape")
            && text.contains("; did you mean kwazulu-natal?"),
        "{text}"
    );
}

#[test]
fn provinces_typed_in_a_spreadsheet_are_read_as_their_slugs() {
    let dir = scratch_dir("import-provinces-typed");
    let db = dir.join("areas.db");
    let csv = dir.join("typed.csv");
    let typed = ["Kwazulu-Natal", "GAUTENG", "north west", "KZN", "MP", "LP"];
    let rows: Vec<String> = typed
        .iter()
        .enumerate()
        .map(|(i, p)| format!("a{i},A,{p},M,-26.2,28.0,2026-11-01,6,0.5,s,7,0.5,d,"))
        .collect();
    fs::write(&csv, format!("{HEADER}\n{}\n", rows.join("\n"))).unwrap();
    assert_ok(&import(&db, &csv));
    let slugs: Vec<String> = Connection::open(&db)
        .unwrap()
        .prepare("SELECT province_slug FROM areas ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let want = [
        "kwazulu-natal",
        "gauteng",
        "north-west",
        "kwazulu-natal",
        "mpumalanga",
        "limpopo",
    ];
    assert_eq!(slugs, want);
}

#[test]
fn a_crlf_files_lines_are_its_lines_in_an_editor() {
    let dir = scratch_dir("import-crlf");
    let db = dir.join("areas.db");
    // Line 1 the header; line 2's history holds a quoted line break, so
    // hatfield is on line 4 and the repeated sea-point on line 5.
    let text = assert_fails(&import(&db, &fixture("excel-crlf-duplicate.csv")));
    assert!(
        text.contains("has 1 problem on 1 line;")
            && text.contains("line 5 (sea-point): id 'sea-point' is already used on line 2"),
        "{text}"
    );
}

#[test]
fn rows_excel_leaves_empty_and_an_unnamed_last_column_are_read_past() {
    let dir = scratch_dir("import-empty-rows");
    let db = dir.join("areas.db");
    let out = import(&db, &fixture("excel-empty-rows.csv"));
    assert_ok(&out);
    assert!(
        stderr(&out).contains("with 2 areas")
            && stderr(&out).contains("; skipped 3 rows of empty cells"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn ignore_column_drops_a_spreadsheets_own_columns() {
    let dir = scratch_dir("import-ignore-column");
    let db = dir.join("areas.db");
    let file = fixture("sheets-notes-columns.csv");
    let path = file.to_str().unwrap();
    let text = assert_fails(&import(&db, &file));
    assert!(
        text.contains("line 1: unknown column 'notes'")
            && text.contains("line 1: unknown column 'checked by'")
            && text.contains("--ignore-column 'notes' reads past it"),
        "{text}"
    );
    let db_arg = db.to_str().unwrap();
    let args = ["import", "--db", db_arg, "--ignore-column", "notes"];
    let text = assert_fails(&cli(&[
        &args[..],
        &[
            "--ignore-column=checked by",
            "--ignore-column",
            "note",
            path,
        ],
    ]
    .concat()));
    assert!(
        text.contains("--ignore-column 'note': the header has no such column")
            && !text.contains("unknown column"),
        "{text}"
    );
    let out = cli(&[&args[..], &["--ignore-column=checked by", path]].concat());
    assert_ok(&out);
    assert!(stderr(&out).contains("with 2 areas"), "{}", stderr(&out));

    let jsonl = dir.join("one.jsonl");
    fs::write(&jsonl, "{}\n").unwrap();
    let text = assert_fails(&cli(&[&args[..], &[jsonl.to_str().unwrap()]].concat()));
    assert!(text.contains("are for CSV files"), "{text}");
}

#[test]
fn a_windows_1252_file_is_one_line_saying_how_to_save_it_as_utf8() {
    let dir = scratch_dir("import-windows-1252");
    let db = dir.join("areas.db");
    let text = assert_fails(&import(&db, &fixture("excel-windows-1252.csv")));
    assert!(
        text.contains("has 1 problem on 1 line;")
            && text.contains("line 2: the file is not UTF-8: it looks like Windows-1252")
            && text.contains("'Daniëlskuil'")
            && text.contains("in Excel: Save As → CSV UTF-8"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(!db.exists());
}

/// (lat, updated_at, truth_score) of `id` as stored.
fn stored(db: &std::path::Path, id: &str) -> (f64, String, f64) {
    let conn = Connection::open(db).unwrap();
    check_invariants(&conn);
    let sql = "SELECT lat, updated_at, truth_score FROM areas WHERE id = ?1";
    conn.query_row(sql, [id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
}

#[test]
fn a_south_african_excel_export_with_semicolons_and_decimal_commas_imports() {
    let dir = scratch_dir("import-za-excel");
    let db = dir.join("areas.db");
    let out = import(&db, &fixture("excel-za-semicolon.csv"));
    assert_ok(&out);
    assert!(stderr(&out).contains("with 3 areas"), "{}", stderr(&out));
    // 6,5 × 0,6 + 8,25 × 0,4 = 7,2; updated_at written 2026/11/20.
    let want = (-33.9167, "2026-11-20T00:00:00Z".to_string(), 7.2);
    assert_eq!(stored(&db, "sea-point"), want);
    assert_eq!(stored(&db, "hatfield").1, "2026-11-01T00:00:00Z");

    // Said explicitly, the same file reads alike.
    let (file, db_arg) = (
        fixture("excel-za-semicolon.csv"),
        db.to_str().unwrap().to_string(),
    );
    let args = [
        "import",
        "--db",
        &db_arg,
        "--delimiter",
        ";",
        "--decimal-comma",
    ];
    assert_ok(&cli(&[&args[..], &[file.to_str().unwrap()]].concat()));
    assert_eq!(stored(&db, "sea-point"), want);
}

#[test]
fn a_google_sheets_en_za_export_with_quoted_decimal_commas_imports() {
    let dir = scratch_dir("import-za-sheets");
    let db = dir.join("areas.db");
    assert_ok(&import(&db, &fixture("sheets-en-za.csv")));
    let want = (-26.12355, "2026-11-20T00:00:00Z".to_string(), 5.5);
    assert_eq!(stored(&db, "soweto"), want);
}

#[test]
fn a_file_mixing_decimals_or_separators_gets_one_line_saying_so() {
    let dir = scratch_dir("import-za-mixed");
    let db = dir.join("areas.db");
    let text = assert_fails(&import(&db, &fixture("excel-za-mixed-decimals.csv")));
    assert!(
        text.contains("has 1 problem;")
            && text.contains(
                "the file writes decimals both ways: line 2 has lat '-33,9167' with a decimal comma, \
                 line 3 has lat '-25.7479' with a decimal point"
            ),
        "{text}"
    );
    let text = assert_fails(&import(&db, &fixture("mixed-separators.csv")));
    assert!(
        text.contains("has 1 problem on 1 line;")
            && text.contains(
                "line 3: this row is separated by ',' but the header by ';' (and 1 more line)"
            ),
        "{text}"
    );
    // --decimal-comma names each decimal point instead.
    let file = fixture("excel-za-mixed-decimals.csv");
    let db_arg = db.to_str().unwrap();
    let out = cli(&[
        "import",
        "--db",
        db_arg,
        "--decimal-comma",
        file.to_str().unwrap(),
    ]);
    let text = assert_fails(&out);
    assert!(
        text.contains(
            "line 3 (hatfield): lat '-25.7479' has a decimal point, but --decimal-comma says"
        ),
        "{text}"
    );
    assert!(!db.exists());
}

#[test]
fn a_utf16_file_is_one_line_naming_it_by_its_mark() {
    let dir = scratch_dir("import-utf16");
    let db = dir.join("areas.db");
    let text = assert_fails(&import(&db, &fixture("excel-unicode-text.csv")));
    assert!(
        text.contains("has 1 problem;")
            && text.contains("the file is not UTF-8: it is UTF-16")
            && text.contains("Save As → CSV UTF-8")
            && text.contains("iconv -f UTF-16 -t UTF-8")
            && !text.contains("WINDOWS-1252"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 2, "{text}");
}
