//! docs/openapi.json is the document `area-scoring openapi` prints, byte
//! for byte, and the one GET /v1/openapi.json serves; every `$ref` in it
//! resolves.

use std::path::Path;

use serde_json::Value;

use super::doc::{doc, resolve};
use crate::common::bin::run;
use crate::common::server::TestServer;

const FIX: &str = "run `make openapi` to write docs/openapi.json again";

fn committed() -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/openapi.json");
    std::fs::read(path).expect("docs/openapi.json is readable")
}

#[test]
fn docs_openapi_json_is_what_the_binary_prints() {
    let out = run(&["openapi"], &[], Path::new("/"));
    assert!(out.status.success(), "openapi succeeds");
    assert!(
        out.stdout == committed(),
        "docs/openapi.json differs from `area-scoring openapi`: {FIX}"
    );
}

#[test]
fn the_server_serves_the_binary_s_document() {
    let server = TestServer::start(false);
    let reply = server.get("/v1/openapi.json");
    assert_eq!(reply.status, 200);
    assert!(
        reply.body == committed(),
        "the served document is docs/openapi.json"
    );
}

fn refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                out.push(r);
            }
            m.values().for_each(|x| refs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

#[test]
fn every_reference_resolves_and_every_operation_id_is_distinct() {
    let mut found = Vec::new();
    refs(doc(), &mut found);
    assert!(found.len() > 100, "{}", found.len());
    for r in found {
        resolve(&serde_json::json!({ "$ref": r }));
    }
    let mut ids = std::collections::BTreeSet::new();
    for item in doc()["paths"].as_object().unwrap().values() {
        for op in item.as_object().unwrap().values().filter(|o| o.is_object()) {
            let id = op["operationId"].as_str().unwrap();
            assert!(ids.insert(id.to_string()), "{id} is one operation's");
        }
    }
}
