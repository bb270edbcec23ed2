//! End-to-end tests of `area-scoring import`: the built binary run on
//! temporary files, the database it writes read back with rusqlite, and the
//! real server answering from it over HTTP, before and after a re-import.

use std::fs;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

use area_scoring::config::{self, Command as Cli};
use area_scoring::{auth, db, domain::Plan, server};
use rusqlite::Connection;
use serde_json::Value;

/// A new empty directory for one test, unique per process and call.
fn scratch(name: &str) -> PathBuf {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("import-{name}-{}-{n}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("seed")
        .join(name)
}

/// Runs the binary; AREA_DB is removed so that only the arguments count.
fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_area-scoring"))
        .args(args)
        .env_remove("AREA_DB")
        .output()
        .expect("run area-scoring")
}

fn import(db: &Path, file: &Path) -> Output {
    cli(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        file.to_str().unwrap(),
    ])
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn assert_ok(out: &Output) {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(out));
}

fn assert_fails(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(out));
    stderr(out)
}

/// Every stored row of the area tables, as text, for comparing two databases.
fn dump(db: &Path) -> Vec<String> {
    let conn = Connection::open(db).unwrap();
    let mut rows = Vec::new();
    for sql in [
        "SELECT area_no, id, name, province_slug, province, municipality, lat, lng, truth_score, updated_at FROM areas ORDER BY area_no",
        "SELECT area_no, dimension, score, weight, '' FROM area_dimensions ORDER BY 1, 2",
        "SELECT area_no, dimension, position, source, '' FROM dimension_sources ORDER BY 1, 2, 3",
        "SELECT area_no, day, truth_score, '', '' FROM history ORDER BY 1, 2",
    ] {
        let mut stmt = conn.prepare(sql).unwrap();
        let n = stmt.column_count();
        let found = stmt
            .query_map([], |r| {
                (0..n)
                    .map(|i| {
                        r.get::<_, rusqlite::types::Value>(i)
                            .map(|v| format!("{v:?}"))
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .unwrap();
        rows.extend(found.map(|r| r.unwrap().join("|")));
    }
    rows
}

fn query_f64(conn: &Connection, sql: &str, id: &str) -> f64 {
    conn.query_row(sql, [id], |r| r.get(0)).unwrap()
}

#[test]
fn both_example_files_import_into_new_databases_alike() {
    let dir = scratch("examples");
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
    let keys: i64 = conn
        .query_row("SELECT count(*) FROM api_keys", [], |r| r.get(0))
        .unwrap();
    assert_eq!(keys, 0);
    check_invariants(&conn);
}

/// What the API promises of every area: truth_score is the weighted sum of
/// its dimensions to 2 decimals, the last history point equals it, history is
/// one point per day ending on updated_at's date, updated_at is UTC with a Z.
fn check_invariants(conn: &Connection) {
    let mut stmt = conn
        .prepare("SELECT id, truth_score, updated_at FROM areas")
        .unwrap();
    let areas: Vec<(String, f64, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(!areas.is_empty());
    for (id, truth, updated_at) in areas {
        let area = "(SELECT area_no FROM areas WHERE id = ?1)";
        let weighted = query_f64(
            conn,
            &format!("SELECT sum(score * weight) FROM area_dimensions WHERE area_no = {area}"),
            &id,
        );
        assert!(
            (truth - weighted).abs() <= 0.005 + 1e-9,
            "{id}: {truth} vs {weighted}"
        );
        let last = query_f64(
            conn,
            &format!(
                "SELECT truth_score FROM history WHERE area_no = {area} ORDER BY day DESC LIMIT 1"
            ),
            &id,
        );
        assert_eq!(last, truth, "{id}");
        let (first, end, count): (i64, i64, i64) = conn
            .query_row(
                &format!("SELECT min(day), max(day), count(*) FROM history WHERE area_no = {area}"),
                [&id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(count, end - first + 1, "{id}: one point per day");
        assert!(
            updated_at.starts_with(&area_scoring::dates::format_date(end)),
            "{id}: {updated_at}"
        );
        assert!(
            updated_at.ends_with('Z') && updated_at.len() == 20,
            "{id}: {updated_at}"
        );
    }
}

/// GET `path` with a bearer key over a raw HTTP/1.0 connection: (status, body).
fn get(addr: SocketAddr, path: &str, key: &str) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: localhost\r\nAuthorization: Bearer {key}\r\n\r\n"
    )
    .unwrap();
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).unwrap();
    let reply = String::from_utf8(reply).unwrap();
    let (head, body) = reply.split_once("\r\n\r\n").expect("a complete response");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

fn start_server(db: &Path) -> server::Running {
    let args: Vec<String> = [
        "serve",
        "--addr",
        "127.0.0.1:0",
        "--workers",
        "2",
        "--db",
        db.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec();
    let Ok(Cli::Serve(config)) = config::parse(&args, &|_| None) else {
        panic!("serve arguments refused");
    };
    server::start(&config).expect("the server starts")
}

#[test]
fn the_server_serves_the_import_and_reloads_the_next_one() {
    let dir = scratch("server");
    let db = dir.join("areas.db");
    assert_ok(&import(&db, &example("example-import.csv")));
    let (_id, key) = auth::create(&db::open_writable(&db).unwrap(), Plan::Growth, "test").unwrap();
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
    let points: Vec<(String, f64)> = history["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["date"].as_str().unwrap().to_string(),
                p["truth_score"].as_f64().unwrap(),
            )
        })
        .collect();
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
fn bad_rows_are_each_reported_by_line_and_change_nothing() {
    let dir = scratch("bad");
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
fn api_keys_survive_an_import_over_a_seeded_database() {
    let dir = scratch("keys");
    let db = dir.join("areas.db");
    let db_arg = db.to_str().unwrap();
    assert_ok(&cli(&["init", "--db", db_arg]));
    let created = cli(&[
        "keys", "create", "--db", db_arg, "--plan", "starter", "--label", "ops",
    ]);
    assert_ok(&created);
    let key = String::from_utf8(created.stdout)
        .unwrap()
        .trim()
        .to_string();
    let keys_before = cli(&["keys", "list", "--db", db_arg]).stdout;

    let out = import(&db, &example("example-import.csv"));
    assert_ok(&out);
    assert!(
        stderr(&out).contains("imported 7 areas") && stderr(&out).contains("API keys kept: 1"),
        "{}",
        stderr(&out)
    );
    assert_eq!(cli(&["keys", "list", "--db", db_arg]).stdout, keys_before);
    let conn = db::open_writable(&db).unwrap();
    let stored: Vec<u8> = conn
        .query_row("SELECT key_hash FROM api_keys", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored, auth::hash(&key));
    let areas: i64 = conn
        .query_row("SELECT count(*) FROM areas", [], |r| r.get(0))
        .unwrap();
    assert_eq!(areas, 7, "the seed's areas are replaced, not added to");
    check_invariants(&conn);
}

#[test]
fn unknown_formats_missing_files_and_foreign_targets_are_clear_errors() {
    let dir = scratch("errors");
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
}
