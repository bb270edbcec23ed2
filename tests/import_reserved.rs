//! `area-scoring import` refuses the area ids that are paths of the API
//! (`export`, `search`, `compare`: /v1/areas/{id} would never reach them),
//! each reported with its line, in CSV and JSON Lines, changing nothing; ids
//! that only begin with those words import and are served as areas.

// The import helpers this file does not use.
#[allow(dead_code)]
use crate::common::import_files as support;

use std::fs;

use crate::common::scratch_dir;
use area_scoring::domain::Plan;
use support::*;

const HEADER: &str = "id,name,province,municipality,lat,lng,updated_at,safety,safety_weight,safety_sources,market,market_weight,market_sources,history";

fn csv_row(id: &str) -> String {
    format!(
        "{id},Place {id},gauteng,City of Tshwane,-25.75,28.19,2026-11-01,6,0.5,survey,7,0.5,deeds,"
    )
}

fn jsonl_row(id: &str) -> String {
    format!(
        r#"{{"id":"{id}","name":"Place {id}","province":"gauteng","municipality":"M","lat":-25.7,"lng":28.2,"updated_at":"2026-11-01","dimensions":{{"safety":{{"score":6,"weight":1,"sources":["s"]}}}}}}"#
    )
}

#[test]
fn the_reserved_ids_are_refused_each_with_its_line() {
    let dir = scratch_dir("import-reserved");
    let db = dir.join("areas.db");
    let ids = ["good-one", "export", "search", "compare", "export-zone"];
    let csv = dir.join("reserved.csv");
    let rows: Vec<String> = ids.iter().map(|id| csv_row(id)).collect();
    fs::write(&csv, format!("{HEADER}\n{}\n", rows.join("\n"))).unwrap();
    let text = assert_fails(&import(&db, &csv));
    for (line, id) in [(3, "export"), (4, "search"), (5, "compare")] {
        let want = format!("line {line} ({id}): id '{id}' is reserved");
        assert!(text.contains(&want), "{want}: {text}");
    }
    assert!(
        !text.contains("line 2 ") && !text.contains("line 6 "),
        "{text}"
    );
    assert!(!db.exists(), "nothing was imported");

    let jsonl = dir.join("reserved.jsonl");
    let rows: Vec<String> = ["compare", "fine", "search"]
        .iter()
        .map(|id| jsonl_row(id))
        .collect();
    fs::write(&jsonl, rows.join("\n") + "\n").unwrap();
    let text = assert_fails(&import(&db, &jsonl));
    for (line, id) in [(1, "compare"), (3, "search")] {
        let want = format!("line {line} ({id}): id '{id}' is reserved");
        assert!(text.contains(&want), "{want}: {text}");
    }
    assert!(!text.contains("line 2 "), "{text}");
    assert!(!db.exists(), "nothing was imported");
}

#[test]
fn ids_that_only_begin_with_a_reserved_word_are_areas() {
    let dir = scratch_dir("import-near-reserved");
    let db = dir.join("areas.db");
    let ids = ["export-zone", "searches", "compared", "exports"];
    let csv = dir.join("near.csv");
    let rows: Vec<String> = ids.iter().map(|id| csv_row(id)).collect();
    fs::write(&csv, format!("{HEADER}\n{}\n", rows.join("\n"))).unwrap();
    assert_ok(&import(&db, &csv));
    let (_, key) = crate::common::new_key(&db, Plan::Growth);
    let running = start_server(&db);
    for id in ids {
        let (status, body) = get(running.addr(), &format!("/v1/areas/{id}"), &key);
        assert_eq!(
            (status, &body["id"]),
            (200, &serde_json::json!(id)),
            "{body}"
        );
    }
    let (status, export) = get(running.addr(), "/v1/areas/export", &key);
    assert_eq!(
        (status, &export["total"]),
        (200, &serde_json::json!(4)),
        "{export}"
    );
    running.shutdown();
}
