//! The OpenAPI 3.1 document of the API (`area-scoring openapi`,
//! docs/openapi.json, GET /v1/openapi.json), built from the contract itself:
//! the constants of `api::contract`, the route table's parameters, the
//! vocabulary of `domain`, the errors of `error` and the rate limits' fields.
//! No value the server holds is written here a second time; the prose around
//! the values, the shapes of the answers and their examples are written here
//! once. (The plans' default limits, which the keys file's schema sets, are
//! named in prose.)
//!
//! - `schemas`: the bodies, errors included;
//! - `headers`: the response headers;
//! - `responses`: the answers every operation shares (errors, 304);
//! - `operations`: the paths, and what each operation answers;
//! - `parameters`: each operation's parameters, in the route table's order;
//! - `success`: each operation's 200, with an example of each representation;
//! - `patterns`: the regular expressions, from the contract's values;
//! - `conventions`: the document's account of what holds for every operation.

mod conventions;
mod headers;
mod operations;
mod parameters;
mod patterns;
mod responses;
mod schemas;
mod stats;
mod success;

use serde_json::{Value, json};

/// The document as a JSON value, members in the order it states them.
pub fn document() -> Value {
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Area Scoring API",
            "version": "1.0.0",
            "summary": "Scored areas: list, get, search, compare, history, export.",
            "description": conventions::text(),
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        "servers": [{"url": "/", "description": "The server that serves this document (make run: http://127.0.0.1:8080)."}],
        "security": [{"bearerAuth": []}],
        "tags": [
            {"name": "areas", "description": "The scored areas."},
            {"name": "keys", "description": "The calling API key: its plan, limit and usage."},
            {"name": "meta", "description": "Health, metrics and this document; no key needed."},
            {"name": "cors", "description": "Browser preflight."},
        ],
        "paths": operations::paths(),
        "components": {
            "securitySchemes": {
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An API key issued with `area-scoring keys create --plan PLAN`.",
                }
            },
            "schemas": schemas::all(),
            "headers": headers::all(),
            "parameters": operations::shared_parameters(),
            "responses": responses::all(),
        },
    })
}

/// The document as docs/openapi.json holds it: indented by two, one newline at the end.
pub fn text() -> String {
    let mut text = serde_json::to_string_pretty(&document()).expect("a JSON value serializes");
    text.push('\n');
    text
}

/// `{"$ref": "#/components/KIND/NAME"}`.
fn reference(kind: &str, name: &str) -> Value {
    json!({"$ref": format!("#/components/{kind}/{name}")})
}

/// A bound as JSON writes it: a whole number without a fraction.
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        json!(x as i64)
    } else {
        json!(x)
    }
}
