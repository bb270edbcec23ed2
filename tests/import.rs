//! End-to-end tests of `area-scoring import`: the built binary run on
//! temporary files, the database it writes read back with rusqlite, and the
//! real server answering from it over HTTP, before and after a re-import.

// The import helpers this file does not use.
#[allow(dead_code)]
use crate::common::import_files as support;

use std::fs;
use std::path::Path;

use area_scoring::{data::db, domain::Plan};
use rusqlite::Connection;

use crate::common::{points, scratch_dir};
use support::*;

#[test]
fn both_example_files_import_into_new_databases_alike() {
    let dir = scratch_dir("import-examples");
    let (from_csv, from_jsonl) = (dir.join("csv.db"), dir.join("jsonl.db"));
    let out = import(&from_csv, &example("example-import.csv"));
    assert_ok(&out);
    assert!(stderr(&out).contains("with 7 areas"), "{}", stderr(&out));
    assert_ok(&import(&from_jsonl, &example("example-import.jsonl")));
    assert_eq!(dump(&from_csv), dump(&from_jsonl));

    let conn = Connection::open(&from_csv).unwrap();
    let (name, province, dims): (String, String, i64) = conn
        .query_row(
            "SELECT name, province, (SELECT count(*) FROM area_dimensions d WHERE d.area_no = a.area_no)
             FROM areas a WHERE id = 'danielskuil'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(
        (name.as_str(), province.as_str(), dims),
        ("Daniëlskuil", "Northern Cape", 5)
    );
    check_invariants(&conn);
}

#[test]
fn the_server_serves_the_import_and_reloads_the_next_one() {
    let dir = scratch_dir("import-server");
    let db = dir.join("areas.db");
    assert_ok(&import(&db, &example("example-import.csv")));
    let (_id, key) = crate::common::new_key(&db, Plan::Growth);
    let running = start_server(&db);
    let addr = running.addr();

    let (status, durban) = get(addr, "/v1/areas/durban", &key);
    assert_eq!(status, 200, "{durban}");
    assert_eq!(durban["truth_score"], 6.06);
    assert_eq!(durban["province"], "KwaZulu-Natal");
    assert_eq!(durban["updated_at"], "2026-11-01T00:00:00Z");
    assert_eq!(durban["coordinates"]["lat"], -29.8579);
    assert_eq!(durban["dimensions"]["amenities"]["weight"], 0.15);
    assert_eq!(
        durban["dimensions"]["amenities"]["sources"],
        serde_json::json!(["facility-register", "retail-locations"])
    );
    // October's point holds until updated_at's date, where truth_score ends the series.
    let (status, history) = get(addr, "/v1/areas/bloemfontein/history?period=7d", &key);
    assert_eq!(status, 200, "{history}");
    let points = points(&history);
    assert_eq!(points.len(), 7);
    assert_eq!(points[5], ("2026-11-01".to_string(), 5.62));
    assert_eq!(points[6], ("2026-11-02".to_string(), 5.67));

    // A second import replaces the file under the running server, keeping the key.
    let next = dir.join("next.jsonl");
    let line = fs::read_to_string(example("example-import.jsonl"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .replace("\"bloemfontein\"", "\"mangaung\"");
    fs::write(&next, format!("{line}\n")).unwrap();
    assert_ok(&import(&db, &next));
    assert!(running.reload(), "the server takes the new file");
    assert_eq!(get(addr, "/v1/areas/mangaung", &key).0, 200);
    assert_eq!(get(addr, "/v1/areas/durban", &key).0, 404);
    let (_, list) = get(addr, "/v1/areas", &key);
    assert_eq!(list["total"], 1);
    running.shutdown();
}

/// A CSV with bad rows on lines 3, 5 and 6 around good ones on 2 and 4.
const BAD_CSV: &str = "\
id,name,province,municipality,lat,lng,updated_at,safety,safety_weight,safety_sources,market,market_weight,market_sources,history
good-one,Good One,gauteng,City of Tshwane,-25.75,28.19,2026-11-01,6,0.5,survey,7,0.5,deeds,
Bad Id,Bad,gauteng,City of Tshwane,-25.75,28.19,2026-11-01,6,0.5,survey,7,0.5,deeds,
good-two,Good Two,gauteng,City of Tshwane,-25.75,28.19,2026-11-01,6,0.5,survey,7,0.5,deeds,
weights,Weights,gauteng,City of Tshwane,-25.75,28.19,2026-11-01,6,0.5,survey,7,0.6,deeds,
dates,Dates,free-state,Mangaung,-29.1,26.2,2026-11-01,6,0.5,survey,7,0.5,deeds,2026-02-30:6;2026-10-01:6;2026-10-01:6.1
";

const BAD_JSONL: &str = r#"{"id":"good","name":"Good","province":"gauteng","municipality":"M","lat":-25.7,"lng":28.2,"updated_at":"2026-11-01","dimensions":{"safety":{"score":6,"weight":1,"sources":["s"]}}}
{"id":"good","name":"Again","province":"gauteng","municipality":"M","lat":-25.7,"lng":28.2,"updated_at":"2026-11-01","dimensions":{"safety":{"score":6,"weight":1,"sources":["s"]}}}
{"id":"broken",

{"id":"scores","name":"Scores","province":"limpopo","municipality":"M","lat":-23.9,"lng":29.4,"dimensions":{"safety":{"score":10.5,"weight":1,"sources":[]}}}
"#;

#[test]
fn other_names_are_imported_searched_and_held_to_the_rules() {
    let dir = scratch_dir("import-other-names");
    let db = dir.join("areas.db");
    assert_ok(&import(&db, &example("example-import.csv")));
    let (_id, key) = crate::common::new_key(&db, Plan::Growth);
    let running = start_server(&db);
    let (status, durban) = get(running.addr(), "/v1/areas/durban", &key);
    assert_eq!(status, 200, "{durban}");
    assert_eq!(
        durban["other_names"],
        serde_json::json!(["Port Natal", "ITheku"])
    );
    let (_, found) = get(running.addr(), "/v1/areas/search?q=port%20natal", &key);
    assert_eq!(found["data"][0]["id"], "durban", "{found}");
    assert_eq!(found["data"][0]["match"]["other_name"], "Port Natal");

    let before = fs::read(&db).unwrap();
    let area = |names: &str| {
        format!(
            "id,name,province,municipality,lat,lng,safety,safety_weight,safety_sources,other_names\n\
             sea-point,Sea Point,western-cape,City of Cape Town,-33.91,18.38,6.5,1,saps,{names}\n"
        )
    };
    let many = (0..21)
        .map(|i| format!("Name {i}"))
        .collect::<Vec<_>>()
        .join(";");
    let long = "x".repeat(201);
    for (names, says) in [
        (
            many.as_str(),
            "other_names holds 21 names; at most 20 are allowed",
        ),
        (
            long.as_str(),
            "other_names[0] is longer than 200 characters",
        ),
        ("Fine;\"-- ;\"", "other_names[1] holds no letter or digit"),
    ] {
        let csv = dir.join("names.csv");
        fs::write(&csv, area(names)).unwrap();
        let text = assert_fails(&import(&db, &csv));
        assert!(text.contains(says), "{says}: {text}");
        assert_eq!(fs::read(&db).unwrap(), before, "nothing replaced");
    }
    let jsonl = dir.join("names.jsonl");
    let line = r#"{"id":"a","name":"A","province":"gauteng","municipality":"M","lat":-26.2,"lng":28.0,"dimensions":{"safety":{"score":6,"weight":1,"sources":["s"]}}"#;
    for (names, says) in [
        (
            r#""other_names":["Tab\tName"]"#,
            "other_names[0] holds a control character",
        ),
        (
            r#""other_names":"PE""#,
            "other_names must be an array of strings",
        ),
    ] {
        fs::write(&jsonl, format!("{line},{names}}}\n")).unwrap();
        let text = assert_fails(&import(&db, &jsonl));
        assert!(text.contains(says), "{says}: {text}");
    }
    // A name that folds to the area's name, or to one before it, is dropped.
    fs::write(
        &jsonl,
        format!("{line},\"other_names\":[\"a\",\"Old A\",\"OLD-a\"]}}\n"),
    )
    .unwrap();
    assert_ok(&import(&db, &jsonl));
    let conn = Connection::open(&db).unwrap();
    let kept: Vec<String> = conn
        .prepare("SELECT name FROM area_other_names ORDER BY position")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(kept, ["Old A"]);
}

#[test]
fn bad_rows_are_each_reported_by_line_and_change_nothing() {
    let dir = scratch_dir("import-bad");
    let db = dir.join("areas.db");
    assert_ok(&import(&db, &example("example-import.jsonl")));
    let before = fs::read(&db).unwrap();
    let listing = |dir: &Path| {
        let mut names: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        names
    };
    let files_before = listing(&dir);

    let csv = dir.join("bad.csv");
    fs::write(&csv, BAD_CSV).unwrap();
    let text = assert_fails(&import(&db, &csv));
    assert!(
        text.contains(
            "has 4 problems on 3 lines; nothing was imported and the database is unchanged"
        ),
        "{text}"
    );
    assert!(
        text.contains("line 3 (Bad Id): id 'Bad Id' is not a slug"),
        "{text}"
    );
    assert!(
        text.contains("line 5 (weights): the dimension weights sum to 1.1"),
        "{text}"
    );
    assert!(
        text.contains("line 6 (dates): history date '2026-02-30' is not a real date"),
        "{text}"
    );
    assert!(
        text.contains("line 6 (dates): history has 2026-10-01 twice"),
        "{text}"
    );
    assert!(
        !text.contains("line 2 ") && !text.contains("line 4 "),
        "{text}"
    );

    let jsonl = dir.join("bad.jsonl");
    fs::write(&jsonl, BAD_JSONL).unwrap();
    let text = assert_fails(&import(&db, &jsonl));
    assert!(
        text.contains("line 2 (good): id 'good' is already used on line 1"),
        "{text}"
    );
    assert!(text.contains("line 3: not valid JSON"), "{text}");
    assert!(
        text.contains("line 5 (scores): safety score must be from 0 to 10, not 10.5"),
        "{text}"
    );
    assert!(
        text.contains("line 5 (scores): safety needs at least one source identifier"),
        "{text}"
    );

    assert_eq!(
        fs::read(&db).unwrap(),
        before,
        "the database is byte-for-byte unchanged"
    );
    let mut expected = files_before;
    expected.extend(["bad.csv".into(), "bad.jsonl".into()]);
    expected.sort();
    assert_eq!(listing(&dir), expected, "no temporary file is left behind");
}

#[test]
fn an_import_leaves_the_keys_file_as_it_was() {
    let dir = scratch_dir("import-keys");
    let db = dir.join("areas.db");
    let db_arg = db.to_str().unwrap();
    assert_ok(&cli(&["init", "--db", db_arg]));
    let created = cli(&[
        "keys",
        "create",
        "--db",
        db_arg,
        "--new-keys-file",
        "--plan",
        "starter",
        "--label",
        "ops",
    ]);
    assert_ok(&created);
    let keys_file = crate::common::keys_path(&db);
    let keys_before = fs::read(&keys_file).unwrap();
    let listed_before = cli(&["keys", "list", "--db", db_arg]).stdout;

    // Seven areas in place of the seed's 938: allowed, as it is meant.
    let example = example("example-import.csv");
    let out = cli(&[
        "import",
        "--allow-shrink",
        "--db",
        db_arg,
        example.to_str().unwrap(),
    ]);
    assert_ok(&out);
    assert!(
        stderr(&out).contains("imported 7 areas"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        fs::read(&keys_file).unwrap(),
        keys_before,
        "not a byte changed"
    );
    assert_eq!(cli(&["keys", "list", "--db", db_arg]).stdout, listed_before);
    let conn = db::open_writable(&db).unwrap();
    let key_tables: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE name IN ('api_keys', 'plans')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(key_tables, 0, "the dataset holds areas only");
    let areas: i64 = conn
        .query_row("SELECT count(*) FROM areas", [], |r| r.get(0))
        .unwrap();
    assert_eq!(areas, 7, "the seed's areas are replaced, not added to");
    check_invariants(&conn);
}

#[test]
fn unknown_formats_missing_files_and_foreign_targets_are_clear_errors() {
    let dir = scratch_dir("import-errors");
    let db = dir.join("areas.db");
    let txt = dir.join("areas.txt");
    fs::write(&txt, "id\n").unwrap();
    let text = assert_fails(&import(&db, &txt));
    assert!(
        text.contains("cannot tell the format of")
            && text.contains(".csv")
            && text.contains(".jsonl"),
        "{text}"
    );
    let text = assert_fails(&import(&db, &dir.join("missing.csv")));
    assert!(
        text.contains("cannot read") && text.contains("missing.csv"),
        "{text}"
    );
    let empty = dir.join("empty.csv");
    fs::write(&empty, "").unwrap();
    assert!(assert_fails(&import(&db, &empty)).contains("the file holds no areas"));
    assert!(!db.exists(), "a failed import creates no database");

    let foreign = dir.join("notes.db");
    fs::write(&foreign, "not a database").unwrap();
    let text = assert_fails(&import(&foreign, &example("example-import.csv")));
    assert!(text.contains("refusing to replace"), "{text}");
    assert_eq!(fs::read_to_string(&foreign).unwrap(), "not a database");
    let text = assert_fails(&import(&dir, &example("example-import.csv")));
    assert!(text.contains("is a directory"), "{text}");
}

/// A file of good rows with, as row `bad` (its line), one of the cap's
/// size plus one byte, in CSV or JSON Lines.
fn with_a_row_past_the_cap(path: &Path, bad: u32) {
    use std::io::Write;
    let csv = path.extension().is_some_and(|e| e == "csv");
    let header = "id,name,province,municipality,lat,lng,safety,safety_weight,safety_sources\n";
    let row = |i: u32| match csv {
        true => format!("area-{i},Area {i},gauteng,M,-26.2,28.0,6.5,1,saps\n"),
        false => {
            format!(
                r#"{{"id":"area-{i}","name":"Area {i}","province":"gauteng","municipality":"M","lat":-26.2,"lng":28.0,"dimensions":{{"safety":{{"score":6.5,"weight":1,"sources":["saps"]}}}}}}"#
            ) + "\n"
        }
    };
    let first = if csv { 2 } else { 1 };
    let mut out = std::io::BufWriter::new(fs::File::create(path).unwrap());
    if csv {
        out.write_all(header.as_bytes()).unwrap();
    }
    let cap = area_scoring::data::import::ROW_BYTES_MAX as usize;
    for line in first..bad + 3 {
        match line == bad {
            // The line break is not part of a JSON Lines row, and is of a CSV one.
            true => {
                let len = if csv { cap } else { cap + 1 };
                out.write_all(&vec![b'x'; len]).unwrap();
                out.write_all(b"\n").unwrap();
            }
            false => out.write_all(row(line).as_bytes()).unwrap(),
        }
    }
    out.flush().unwrap();
}

#[test]
fn a_row_past_the_cap_in_a_good_file_is_that_rows_problem_alone() {
    let dir = scratch_dir("import-row-cap");
    let db = dir.join("areas.db");
    for name in ["rows.csv", "rows.jsonl"] {
        let file = dir.join(name);
        with_a_row_past_the_cap(&file, 4);
        let text = assert_fails(&import(&db, &file));
        assert!(text.contains("has 1 problem on 1 line"), "{text}");
        assert!(
            text.contains("\n  line 4: this row is 16777217 bytes, more than the 16777216 bytes (16 MiB) a row may hold"),
            "{text}"
        );
        assert!(!db.exists(), "nothing was written");
        fs::remove_file(&file).unwrap();
    }
}

#[test]
fn init_and_import_into_an_empty_folder_make_no_keys_file() {
    let dir = scratch_dir("import-no-keys");
    let (initialised, imported) = (dir.join("a/areas.db"), dir.join("b/areas.db"));
    for db in [&initialised, &imported] {
        fs::create_dir_all(db.parent().unwrap()).unwrap();
    }
    assert_ok(&cli(&["init", "--db", initialised.to_str().unwrap()]));
    assert_ok(&import(&imported, &example("example-import.jsonl")));
    for db in [&initialised, &imported] {
        assert!(db.is_file());
        let mut files: Vec<_> = fs::read_dir(db.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        files.sort();
        // The lock every replacement takes stays, empty; nothing else is made.
        assert_eq!(
            files,
            ["areas.db", "areas.db.lock"],
            "beside {}",
            db.display()
        );
        assert!(!crate::common::keys_path(db).exists());
    }
    // The first key makes the keys file.
    let db_arg = imported.to_str().unwrap();
    assert_ok(&cli(&[
        "keys",
        "create",
        "--db",
        db_arg,
        "--new-keys-file",
        "--plan",
        "free",
    ]));
    assert!(crate::common::keys_path(&imported).is_file());
}

/// The seed's areas as an import file, each with one dimension; every
/// `move_every`-th area (0: none) put in another province.
fn seed_as_csv(db: &Path, file: &Path, move_every: usize) {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT id, name, province_slug, municipality, lat, lng FROM areas ORDER BY id")
        .unwrap();
    let mut csv = String::from(
        "id,name,province,municipality,lat,lng,updated_at,safety,safety_weight,safety_sources\n",
    );
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, f64>(4)?,
                r.get::<_, f64>(5)?,
            ))
        })
        .unwrap();
    for (i, row) in rows.enumerate() {
        let (id, name, mut province, municipality, lat, lng) = row.unwrap();
        if move_every > 0 && i % move_every == 0 {
            province = match province.as_str() {
                "gauteng" => "limpopo".into(),
                _ => "gauteng".into(),
            };
        }
        let quoted = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        csv.push_str(&format!(
            "{id},{},{province},{},{lat},{lng},2026-11-20T08:00:00Z,6.5,1,saps\n",
            quoted(&name),
            quoted(&municipality)
        ));
    }
    fs::write(file, csv).unwrap();
}

/// Every file beside `db` whose name starts with its name, but its lock.
fn dataset_files(db: &Path) -> Vec<String> {
    let name = db.file_name().unwrap().to_str().unwrap().to_string();
    let mut files: Vec<String> = fs::read_dir(db.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&name) && !n.ends_with(".lock"))
        .collect();
    files.sort();
    files
}

#[test]
fn a_file_that_would_remove_most_served_areas_is_refused_unless_allowed() {
    let dir = scratch_dir("import-shrink");
    let db = dir.join("areas.db");
    assert_ok(&cli(&["init", "--db", db.to_str().unwrap()]));
    let seed = fs::read(&db).unwrap();
    let wrong = one_area(&dir, "wrong-sheet");

    let text = assert_fails(&import(&db, &wrong));
    assert!(
        text.contains("refusing to import") && text.contains("remove 938 of the 938 areas"),
        "{text}"
    );
    assert!(
        text.contains("--allow-shrink"),
        "says how to go ahead: {text}"
    );
    assert!(text.contains("and 933 more"), "names five ids: {text}");
    assert!(text.contains("Nothing was written"), "{text}");
    assert_eq!(fs::read(&db).unwrap(), seed, "the served file is untouched");
    assert_eq!(
        dataset_files(&db),
        ["areas.db"],
        "nothing kept, nothing left"
    );

    let allowed = cli(&[
        "import",
        "--allow-shrink",
        "--db",
        db.to_str().unwrap(),
        wrong.to_str().unwrap(),
    ]);
    assert_ok(&allowed);
    assert!(
        stderr(&allowed).contains("imported 1 area from"),
        "{}",
        stderr(&allowed)
    );
    let conn = Connection::open(&db).unwrap();
    let ids: i64 = conn
        .query_row("SELECT count(*) FROM areas", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ids, 1);
    assert_eq!(fs::read(dir.join("areas.db.previous")).unwrap(), seed);
}

#[test]
fn a_file_that_moves_many_areas_to_another_province_is_refused_unless_allowed() {
    let dir = scratch_dir("import-moved");
    let db = dir.join("areas.db");
    assert_ok(&cli(&["init", "--db", db.to_str().unwrap()]));
    let seed = fs::read(&db).unwrap();
    // One area in three moved: 313 of 938, past the 20% allowed.
    let moved = dir.join("moved.csv");
    seed_as_csv(&db, &moved, 3);
    let text = assert_fails(&import(&db, &moved));
    assert!(
        text.contains("move 313 of the 938 areas it serves to another province"),
        "{text}"
    );
    assert!(!text.contains("remove"), "no area removed: {text}");
    assert_eq!(fs::read(&db).unwrap(), seed);
    assert_ok(&cli(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        "--allow-shrink",
        moved.to_str().unwrap(),
    ]));
    // The same areas rescored, none moved: an ordinary import.
    let rescored = dir.join("rescored.csv");
    seed_as_csv(&db, &rescored, 0);
    assert_ok(&import(&db, &rescored));
}

#[test]
fn importing_the_file_the_dataset_came_from_again_changes_nothing() {
    let dir = scratch_dir("import-same");
    let db = dir.join("areas.db");
    assert_ok(&cli(&["init", "--db", db.to_str().unwrap()]));
    let file = dir.join("mine.csv");
    seed_as_csv(&db, &file, 0);
    assert_ok(&import(&db, &file));
    // The bytes and modification time of the dataset and the kept one.
    let state = || -> Vec<_> {
        ["areas.db", "areas.db.previous"]
            .map(|f| {
                let path = dir.join(f);
                let modified = fs::metadata(&path).unwrap().modified().unwrap();
                (fs::read(&path).unwrap(), modified)
            })
            .into()
    };
    let before = state();
    let files = dataset_files(&db);

    let again = import(&db, &file);
    assert_ok(&again);
    let text = stderr(&again);
    assert!(
        text.contains("holds the same 938 areas") && text.contains("left as it was"),
        "{text}"
    );
    let after = state();
    assert!(
        before == after,
        "the dataset and the kept one are untouched"
    );
    assert_eq!(dataset_files(&db), files, "no dataset kept, nothing left");
}
