//! Reading the document (`area_scoring::app::openapi`, which
//! docs/openapi.json holds): its query parameters, schemas and references.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use serde_json::Value;

pub fn doc() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(area_scoring::app::openapi::document)
}

/// Follows a local `$ref` such as `#/components/schemas/X`.
pub fn resolve(v: &Value) -> &Value {
    match v.get("$ref").and_then(Value::as_str) {
        None => v,
        Some(r) => {
            let pointer = r.strip_prefix('#').expect("a local $ref");
            resolve(
                doc()
                    .pointer(pointer)
                    .unwrap_or_else(|| panic!("{r} resolves")),
            )
        }
    }
}

/// The query parameters of the GET operation on `path`, by name, with their
/// schemas. Each is a plain scalar: generators read an object or array
/// parameter each in their own way, so the document has none. HEAD must list
/// the same ones.
pub fn query_params(path: &str) -> Vec<(String, Value)> {
    let of = |method: &str| -> Vec<(String, Value)> {
        let op = &doc()["paths"][path][method];
        assert!(op.is_object(), "{method} {path} is documented");
        let mut out = Vec::new();
        for p in op["parameters"].as_array().into_iter().flatten() {
            let p = resolve(p);
            if p["in"] != "query" {
                continue;
            }
            let name = p["name"].as_str().unwrap().to_string();
            let schema = resolve(&p["schema"]).clone();
            let scalar =
                ["string", "number", "integer"].contains(&schema["type"].as_str().unwrap_or(""));
            assert!(scalar, "{path} {name} is a plain scalar: {schema}");
            assert!(
                p.get("style").is_none() && p.get("explode").is_none(),
                "{path} {name}"
            );
            out.push((name, schema));
        }
        out
    };
    let get = of("get");
    assert_eq!(get, of("head"), "HEAD {path} takes what GET takes");
    get
}

pub fn param(path: &str, name: &str) -> Value {
    query_params(path)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("{path} documents {name}"))
        .1
}

pub fn schema(name: &str) -> &'static Value {
    &doc()["components"]["schemas"][name]
}

pub fn names(path: &str) -> BTreeSet<String> {
    query_params(path).into_iter().map(|(n, _)| n).collect()
}

pub fn strings(v: &Value) -> Vec<&str> {
    let items = v.as_array().unwrap_or_else(|| panic!("{v} is an array"));
    items.iter().map(|s| s.as_str().unwrap()).collect()
}

pub fn words<T>(table: &[(&'static str, T)]) -> Vec<&'static str> {
    table.iter().map(|(w, _)| *w).collect()
}

/// The pattern of a string parameter.
pub fn pattern(path: &str, name: &str) -> String {
    let s = param(path, name);
    assert_eq!(s["type"], "string", "{path} {name}");
    s["pattern"].as_str().unwrap().to_string()
}
