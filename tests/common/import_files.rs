//! Helpers for tests/import.rs: the example files, running `import`,
//! reading a database back and the API's invariants over it, and the server
//! and client of tests/common in the shape these tests read them.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use rusqlite::Connection;
use serde_json::Value;

use crate::common::bin::{run, text};
use crate::common::{client, server};

pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("seed")
        .join(name)
}

/// Runs the binary with only the arguments counting (no AREA_DB).
pub fn cli(args: &[&str]) -> Output {
    run(args, &[], Path::new("/"))
}

pub fn import(db: &Path, file: &Path) -> Output {
    cli(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        file.to_str().unwrap(),
    ])
}

/// A one-area CSV file in `dir`, named after its area.
pub fn one_area(dir: &Path, id: &str) -> PathBuf {
    let file = dir.join(format!("{id}.csv"));
    std::fs::write(
        &file,
        format!(
            "id,name,province,municipality,lat,lng,safety,safety_weight,safety_sources\n\
             {id},{id},gauteng,City of Johannesburg,-26.2,28.04,6.5,1,saps\n"
        ),
    )
    .unwrap();
    file
}

pub fn stderr(out: &Output) -> String {
    text(&out.stderr)
}

pub fn assert_ok(out: &Output) {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(out));
}

pub fn assert_fails(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(out));
    stderr(out)
}

/// Every stored row of the area tables, as text, for comparing two databases.
pub fn dump(db: &Path) -> Vec<String> {
    let conn = Connection::open(db).unwrap();
    let mut rows = Vec::new();
    for sql in [
        "SELECT area_no, id, name, province_slug, province, municipality, lat, lng, truth_score, updated_at FROM areas ORDER BY area_no",
        "SELECT area_no, dimension, score, weight, '' FROM area_dimensions ORDER BY 1, 2",
        "SELECT area_no, dimension, position, source, '' FROM dimension_sources ORDER BY 1, 2, 3",
        "SELECT area_no, day, truth_score, '', '' FROM history ORDER BY 1, 2",
        "SELECT area_no, position, name, '', '' FROM area_other_names ORDER BY 1, 2",
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

pub fn query_f64(conn: &Connection, sql: &str, id: &str) -> f64 {
    conn.query_row(sql, [id], |r| r.get(0)).unwrap()
}

/// What the API promises of every area: truth_score is the weighted sum of
/// its dimensions to 2 decimals, the last history point equals it, history is
/// one point per day ending on updated_at's date, updated_at is UTC with a Z.
pub fn check_invariants(conn: &Connection) {
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

/// GET `path` with a bearer key: (status, body as JSON, or null when the
/// body is not JSON).
pub fn get(addr: SocketAddr, path: &str, key: &str) -> (u16, Value) {
    let reply = client::get(addr, path, Some(key));
    let body = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
    (reply.status, body)
}

/// The server in-process over `db` on a free port, with two workers.
pub fn start_server(db: &Path) -> area_scoring::server::Running {
    server::start(db, 2, Duration::from_secs(10))
}
