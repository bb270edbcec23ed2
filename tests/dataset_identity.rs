//! A dataset's identity against the real binary (docs/operations.md,
//! "Which data is live"): an import records its file's name, SHA-256 and
//! area count, which /healthz, the reload log and `info` show; the same
//! bytes imported again change nothing; a refused reload makes /healthz
//! "degraded" (still 200) and counts in /metrics until a good file comes;
//! a file made before datasets recorded their identity serves with it null.

use std::collections::BTreeMap;
use std::fs;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::common::bin::*;
use crate::common::client::*;
use crate::common::wait::within;
use crate::common::*;

fn health(addr: SocketAddr) -> Value {
    let reply = get(addr, "/healthz", None);
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json()
}

/// Waits up to 5 s for /healthz to satisfy `done`; its last body.
fn health_until(addr: SocketAddr, done: impl Fn(&Value) -> bool) -> Value {
    within(Duration::from_secs(5), || Some(health(addr)).filter(&done))
        .unwrap_or_else(|| panic!("/healthz never got there: {}", health(addr)))
}

/// The samples of /metrics without labels, and area_build_info's, by name.
fn metrics(addr: SocketAddr) -> BTreeMap<String, String> {
    let reply = get(addr, "/metrics", None);
    assert_eq!(reply.status, 200);
    reply
        .text()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.rsplit_once(' '))
        .map(|(series, value)| (series.to_string(), value.to_string()))
        .collect()
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn run_ok(args: &[&str]) -> std::process::Output {
    let out = run(args, &[], Path::new("/"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        text(&out.stderr)
    );
    out
}

/// A CSV of two areas without updated_at: an import dates them now.
const UNDATED: &str = "id,name,province,municipality,lat,lng,safety,safety_weight,safety_sources\n\
    za-one,One,gauteng,City of Johannesburg,-26.2,28.04,6.5,1,saps\n\
    za-two,Two,gauteng,City of Johannesburg,-26.1,28.05,7.5,1,saps\n";

#[test]
fn an_import_is_shown_by_healthz_and_the_log_and_the_same_bytes_again_change_nothing() {
    let (db, _key, server) = Served::spawn_keyed("identity-import", Plan::Starter, &[]);
    let started = health(server.addr);
    assert_eq!(started["dataset"]["source"]["file"], "seed");
    assert_eq!(started["dataset"]["areas"], 938);
    assert!(
        server.logged("from seed (sha256 "),
        "the start names the data"
    );
    let file = db.with_file_name("scores.csv");
    fs::write(&file, UNDATED).unwrap();
    let sha = sha256_hex(UNDATED.as_bytes());
    let (db_arg, file_arg) = (db.to_str().unwrap(), file.to_str().unwrap());
    run_ok(&["import", "--db", db_arg, "--allow-shrink", file_arg]);
    let imported = health_until(server.addr, |h| h["areas"] == 2);
    assert_eq!(imported["status"], "ok");
    let dataset = &imported["dataset"];
    assert_eq!(
        dataset["source"],
        json!({"file": "scores.csv", "sha256": sha})
    );
    assert_eq!(dataset["areas"], 2);
    let build = format!("area-scoring {}", env!("CARGO_PKG_VERSION"));
    assert_eq!(dataset["build"], build.as_str());
    let made_at = dataset["made_at"].as_str().expect("made_at").to_string();
    assert!(made_at.len() == 20 && made_at.ends_with('Z'), "{made_at}");
    assert!(dataset["loaded_at"].as_str().unwrap() >= made_at.as_str());
    let logged = format!("from scores.csv (sha256 {}", &sha[..12]);
    assert!(server.logged(&logged), "the reload names the file and hash");
    // A second later the rows would be dated anew; the same bytes are not.
    std::thread::sleep(Duration::from_millis(1100));
    let again = run_ok(&["import", "--db", db_arg, "--allow-shrink", file_arg]);
    assert!(
        text(&again.stderr).contains("left as it was"),
        "{}",
        text(&again.stderr)
    );
    let info = run_ok(&["info", "--format", "json", db_arg]);
    let info: Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(
        info["made_at"],
        made_at.as_str(),
        "the dataset is the first import's"
    );
    assert!(!db.with_file_name("areas.db.previous.2").exists());
}

#[test]
fn a_refused_reload_is_degraded_and_counted_until_a_good_file_comes() {
    let (db, _key, server) = Served::spawn_keyed("identity-degraded", Plan::Starter, &[]);
    let before = metrics(server.addr);
    assert_eq!(before["area_reload_failures_total"], "0");
    assert_eq!(before["area_dataset_areas"], "938");
    assert_eq!(before["area_keys_loaded"], "1");
    assert!(before.contains_key("area_usage_backlog"));
    let version = format!(
        "area_build_info{{version=\"{}\"}}",
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(before[&version], "1");
    let start: i64 = before["area_start_time_seconds"].parse().unwrap();
    let loaded: i64 = before["area_dataset_loaded_timestamp_seconds"]
        .parse()
        .unwrap();
    assert!(loaded >= start && start > 1_700_000_000, "{start} {loaded}");

    let staged = db.with_file_name("staged.db");
    fs::write(&staged, b"not a database".repeat(100)).unwrap();
    fs::rename(&staged, &db).unwrap();
    let degraded = health_until(server.addr, |h| h["status"] == "degraded");
    assert!(
        degraded["reason"]
            .as_str()
            .unwrap()
            .starts_with("the last reload was refused at "),
        "{degraded}"
    );
    assert!(
        !degraded["reason"].as_str().unwrap().contains("/"),
        "no path"
    );
    assert!(server.logged("reload refused"), "the log says why");
    assert_eq!(degraded["areas"], 938, "the previous data serves on");
    assert_eq!(degraded["dataset"]["source"]["file"], "seed");
    assert_eq!(metrics(server.addr)["area_reload_failures_total"], "1");

    fs::copy(fresh_db("identity-degraded-good"), &staged).unwrap();
    fs::rename(&staged, &db).unwrap();
    let ok = health_until(server.addr, |h| h["status"] == "ok");
    assert!(ok.get("reason").is_none(), "{ok}");
    let after = metrics(server.addr);
    assert_eq!(after["area_reload_failures_total"], "1", "a counter");
    let reloaded: i64 = after["area_dataset_loaded_timestamp_seconds"]
        .parse()
        .unwrap();
    assert!(reloaded >= loaded);
}

#[test]
fn putting_the_served_file_back_after_a_refused_one_ends_degraded() {
    let (db, _key, server) = Served::spawn_keyed("identity-put-back", Plan::Starter, &[]);
    let kept = db.with_file_name("served.db");
    fs::hard_link(&db, &kept).unwrap();
    let staged = db.with_file_name("staged.db");
    fs::write(&staged, b"not a database".repeat(100)).unwrap();
    fs::rename(&staged, &db).unwrap();
    health_until(server.addr, |h| h["status"] == "degraded");
    // The very file served, renamed back: nothing to reload, and all is well.
    fs::rename(&kept, &db).unwrap();
    let ok = health_until(server.addr, |h| h["status"] == "ok");
    assert!(ok.get("reason").is_none(), "{ok}");
    assert!(server.logged("is the served dataset again"));
}

#[test]
fn info_prints_a_datasets_identity_and_refuses_another_file() {
    let db = fresh_db("identity-info");
    let out = run_ok(&["info", db.to_str().unwrap()]);
    let shown = text(&out.stdout);
    let seed = [
        fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("seed/za-areas.csv")).unwrap(),
        fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("seed/other-names.csv")).unwrap(),
        fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("seed/renames.csv")).unwrap(),
    ]
    .concat();
    for line in [
        "source:    seed".to_string(),
        format!("sha256:    {}", sha256_hex(&seed)),
        "areas:     938".to_string(),
        format!("build:     area-scoring {}", env!("CARGO_PKG_VERSION")),
    ] {
        assert!(shown.contains(&line), "{line} in {shown}");
    }
    let json = run_ok(&["info", "--db", db.to_str().unwrap(), "--format", "json"]);
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["dataset"], db.to_str().unwrap());
    assert_eq!(json["areas"], 938);

    let csv = db.with_file_name("areas.csv");
    fs::write(&csv, UNDATED).unwrap();
    let out = run(&["info", csv.to_str().unwrap()], &[], Path::new("/"));
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).is_empty());
    let said = text(&out.stderr);
    assert!(said.contains("areas.csv is not a database"), "{said}");
    let out = run(
        &["info", "--format", "yaml", db.to_str().unwrap()],
        &[],
        Path::new("/"),
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

#[test]
fn a_dataset_made_before_identities_serves_with_its_identity_null() {
    let db = fresh_db("identity-none");
    sql(&db, "DROP TABLE dataset_info");
    let (_, key) = new_key(&db, Plan::Starter);
    let server = Served::spawn(&db, &[]);
    assert_eq!(get(server.addr, "/v1/areas/soweto", Some(&key)).status, 200);
    let h = health(server.addr);
    assert_eq!(h["status"], "ok");
    assert_eq!(h["areas"], 938);
    let dataset = h["dataset"].as_object().unwrap();
    for field in ["made_at", "build", "areas"] {
        assert_eq!(dataset[field], Value::Null, "{field}");
    }
    assert_eq!(dataset["source"], json!({"file": null, "sha256": null}));
    assert!(dataset["loaded_at"].is_string());
    assert!(server.logged("identity unknown"));
    let out = run_ok(&["info", db.to_str().unwrap()]);
    assert!(text(&out.stdout).contains("made at:   unknown"));
}
