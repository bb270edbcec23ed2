//! What the server's answers carry beside their status, against the
//! document: every error body the server writes (`error`) against its
//! schemas, the RateLimit fields of its budgets (`access::ratelimit`,
//! `access::buckets`) against their patterns, which answers carry them, and
//! the headers CORS exposes (`app::http`).

use std::collections::BTreeSet;

use area_scoring::access::buckets::REFILL;
use area_scoring::access::ratelimit::ANONYMOUS_PER_MINUTE;
use area_scoring::api::contract::*;
use area_scoring::app::http::CORS_HEADERS;
use area_scoring::error::ApiError;
use serde_json::Value;

use super::doc::*;
use super::errors::every_error;
use super::regex;

/// Every error the server can write, with each optional field both present
/// and absent.
fn errors_with_their_fields() -> Vec<ApiError> {
    let mut all = every_error();
    all.retain(|e| !matches!(e, ApiError::AreaNotFound { .. }));
    all.extend([
        ApiError::not_one_of("sort", "sort must be one of name", &["name", "truth_score"]),
        ApiError::PlanUpgradeRequired {
            feature: "the export",
            needed: EXPORT_PLAN,
            have: Plan::Starter,
            param: None,
        },
        ApiError::AreaNotFound {
            ids: vec!["lemuria".into()],
        },
        ApiError::AreaNotFound {
            ids: (0..COMPARE_IDS_MAX).map(|i| format!("area-{i}")).collect(),
        },
    ]);
    all
}

/// The error schemas that document `code` with `status`.
fn schemas_of(code: &str, status: u16) -> Vec<(&'static String, &'static Value)> {
    let schemas = doc()["components"]["schemas"].as_object().unwrap();
    let documents = |s: &Value| {
        let detail = &s["properties"]["error"]["properties"];
        detail["status"]["const"].as_u64() == Some(u64::from(status))
            && strings(&detail["code"]["enum"]).contains(&code)
    };
    schemas
        .iter()
        .filter(|(name, s)| name.starts_with("Error") && documents(s))
        .collect()
}

/// What is wrong with `value` by `schema`, for the keywords the error
/// schemas use; any other keyword fails the test, so none goes unread.
fn violations(schema: &Value, value: &Value, at: &str) -> Vec<String> {
    let schema = resolve(schema);
    let mut out = Vec::new();
    for (keyword, said) in schema.as_object().unwrap() {
        out.extend(keyword_violations(schema, keyword, said, value, at));
    }
    if let Some(condition) = schema.get("if") {
        let holds = violations(condition, value, at).is_empty();
        if let Some(next) = schema.get(if holds { "then" } else { "else" }) {
            out.extend(violations(next, value, at));
        }
    }
    out
}

/// What is wrong with `value` by one keyword of `schema`.
fn keyword_violations(
    schema: &Value,
    keyword: &str,
    said: &Value,
    value: &Value,
    at: &str,
) -> Vec<String> {
    let wrong = |why: String| vec![format!("{at}: {why}")];
    let count = || value.as_array().map_or(0, Vec::len) as u64;
    match keyword {
        "description" | "examples" | "if" | "then" | "else" => vec![],
        "properties" => {
            let given = said.as_object().unwrap().iter();
            let given = given.filter_map(|(name, s)| Some((name, s, value.get(name)?)));
            given
                .flat_map(|(name, s, field)| violations(s, field, &format!("{at}.{name}")))
                .collect()
        }
        "type" => {
            let fits = match said.as_str().unwrap() {
                "object" => value.is_object(),
                "array" => value.is_array(),
                "string" => value.is_string(),
                "integer" => value.is_u64() || value.is_i64(),
                other => panic!("{at}: type {other} is not read here"),
            };
            if fits {
                vec![]
            } else {
                wrong(format!("{value} is not of type {said}"))
            }
        }
        "enum" if !said.as_array().unwrap().contains(value) => {
            wrong(format!("{value} is not one of {said}"))
        }
        "const" if said != value => wrong(format!("{value} is not {said}")),
        "minLength" if value.as_str().is_some_and(str::is_empty) => wrong("empty".into()),
        "minItems" if count() < said.as_u64().unwrap() => {
            wrong(format!("{value} against minItems {said}"))
        }
        "maxItems" if count() > said.as_u64().unwrap() => {
            wrong(format!("{value} against maxItems {said}"))
        }
        "uniqueItems" => {
            let items = value.as_array().unwrap();
            let distinct: BTreeSet<String> = items.iter().map(Value::to_string).collect();
            if distinct.len() == items.len() {
                vec![]
            } else {
                wrong(format!("{value} repeats an item"))
            }
        }
        "items" => {
            let items = value.as_array().unwrap().iter().enumerate();
            items
                .flat_map(|(i, item)| violations(said, item, &format!("{at}[{i}]")))
                .collect()
        }
        "required" => {
            let missing = strings(said)
                .into_iter()
                .filter(|name| value.get(name).is_none());
            missing
                .map(|name| format!("{at}: {name} is required"))
                .collect()
        }
        "not" if violations(said, value, at).is_empty() => {
            wrong(format!("{value} is what `not` refuses: {said}"))
        }
        "additionalProperties" => {
            assert_eq!(said, false, "{at}");
            let props = schema["properties"].as_object().unwrap();
            let names = value.as_object().unwrap().keys();
            let unknown = names.filter(|name| !props.contains_key(*name));
            unknown
                .map(|name| format!("{at}: {name} is not documented"))
                .collect()
        }
        "enum" | "const" | "minLength" | "minItems" | "maxItems" | "not" => vec![],
        other => panic!("{at}: keyword {other} is not read here"),
    }
}

#[test]
fn every_error_body_the_server_writes_is_what_its_schemas_say() {
    // Answered only in the conventions: no operation's responses name them.
    let conventions = [
        "method_not_allowed",
        "body_not_allowed",
        "bad_request",
        "http_version_not_supported",
        "expectation_failed",
    ];
    for e in errors_with_their_fields() {
        if conventions.contains(&e.code()) {
            continue;
        }
        let body: Value = serde_json::from_slice(&e.body()).unwrap();
        let schemas = schemas_of(e.code(), e.status());
        assert!(
            !schemas.is_empty(),
            "{} {} is documented",
            e.status(),
            e.code()
        );
        for (name, schema) in schemas {
            let wrong = violations(schema, &body, name);
            assert!(wrong.is_empty(), "{body} against {name}: {wrong:#?}");
        }
    }
}

#[test]
fn the_schemas_refuse_an_area_not_found_without_ids_and_a_not_found_with_them() {
    let schema = schema("ErrorAreaNotFound");
    for (code, ids) in [("area_not_found", None), ("not_found", Some(["x"]))] {
        let mut detail = serde_json::json!({"code": code, "message": "m", "status": 404});
        if let Some(ids) = ids {
            detail["ids"] = serde_json::json!(ids);
        }
        let body = serde_json::json!({ "error": detail });
        assert!(
            !violations(schema, &body, "ErrorAreaNotFound").is_empty(),
            "{body}"
        );
    }
}

fn header(name: &str) -> &'static Value {
    &doc()["components"]["headers"][name]
}

fn header_pattern(name: &str) -> String {
    header(name)["schema"]["pattern"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn the_ratelimit_policy_names_the_keyless_budget_and_every_plan() {
    let pattern = header_pattern("RateLimit-Policy");
    let window = REFILL.as_secs();
    let keyless = format!("\"keyless\";q={ANONYMOUS_PER_MINUTE};w={window}");
    assert!(
        regex::is_match(&pattern, &keyless),
        "{pattern} admits {keyless}"
    );
    for plan in Plan::ALL {
        for q in [1, 60, 600, 3000, 1_000_000] {
            let policy = format!("\"{}\";q={q};w={window}", plan.name());
            assert!(
                regex::is_match(&pattern, &policy),
                "{pattern} admits {policy}"
            );
        }
    }
    for wrong in [
        format!("\"keyless\";q={};w={window}", ANONYMOUS_PER_MINUTE + 1),
        format!("\"starter\";q=600;w={}", window + 1),
        format!("\"starter\";q=0;w={window}"),
        format!("\"gold\";q=600;w={window}"),
        format!("starter;q=600;w={window}"),
        format!("\"starter\";w={window};q=600"),
    ] {
        assert!(
            !regex::is_match(&pattern, &wrong),
            "{pattern} refuses {wrong}"
        );
    }
}

#[test]
fn the_ratelimit_field_says_what_is_left_of_the_same_budgets() {
    let pattern = header_pattern("RateLimit");
    let window = REFILL.as_secs();
    let names = Plan::ALL.iter().map(|p| p.name()).chain(["keyless"]);
    for name in names {
        for (r, t) in [(0, window), (599, 1), (0, 0), (ANONYMOUS_PER_MINUTE, 0)] {
            let field = format!("\"{name}\";r={r};t={t}");
            assert!(
                regex::is_match(&pattern, &field),
                "{pattern} admits {field}"
            );
        }
    }
    for wrong in [
        "\"starter\";r=-1;t=1",
        "\"starter\";t=1;r=1",
        "\"starter\";r=1",
        "\"x\";r=1;t=1",
    ] {
        assert!(
            !regex::is_match(&pattern, wrong),
            "{pattern} refuses {wrong}"
        );
    }
}

#[test]
fn every_header_cors_exposes_is_documented() {
    let (_, exposed) = CORS_HEADERS
        .iter()
        .find(|(name, _)| *name == "Access-Control-Expose-Headers")
        .unwrap();
    for name in exposed.split(", ") {
        assert!(header(name).is_object(), "{name} is a documented header");
    }
}

/// The headers of `status` on every keyed operation (GET and HEAD), by name,
/// with whether each is required.
fn keyed_answers(status: &str) -> Vec<(String, Vec<(String, bool)>)> {
    let mut out = Vec::new();
    for (path, item) in doc()["paths"].as_object().unwrap() {
        for method in ["get", "head"] {
            let op = &item[method];
            if op["security"].as_array().is_some_and(Vec::is_empty) {
                continue;
            }
            let answer = resolve(&op["responses"][status]);
            let headers = answer["headers"].as_object().unwrap();
            let headers = headers
                .iter()
                .map(|(name, h)| (name.clone(), resolve(h)["required"] == true))
                .collect();
            out.push((format!("{method} {path}"), headers));
        }
    }
    assert!(out.len() >= 14, "every keyed operation: {}", out.len());
    out
}

fn has(headers: &[(String, bool)], name: &str) -> Option<bool> {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, required)| *required)
}

#[test]
fn an_answer_without_a_valid_key_announces_the_keyless_budget() {
    for (op, headers) in keyed_answers("401") {
        for name in ["WWW-Authenticate", "RateLimit-Policy", "RateLimit"] {
            assert_eq!(has(&headers, name), Some(true), "{op} 401 carries {name}");
        }
        assert_eq!(has(&headers, "X-RateLimit-Limit"), None, "{op} 401");
    }
}

#[test]
fn every_keyed_operation_may_answer_either_429_and_key_spends_nothing() {
    for (op, headers) in keyed_answers("429") {
        assert_eq!(has(&headers, "Retry-After"), Some(true), "{op}");
        // Absent from the nginx front's own 429 only.
        for name in ["WWW-Authenticate", "RateLimit-Policy", "RateLimit"] {
            assert_eq!(
                has(&headers, name),
                Some(false),
                "{op} 429 may carry {name}"
            );
        }
        let spends = !op.ends_with(" /v1/key");
        assert_eq!(has(&headers, "X-RateLimit-Limit").is_some(), spends, "{op}");
    }
    let getkey = &doc()["paths"]["/v1/key"]["get"];
    let said = resolve(&getkey["responses"]["429"])["description"]
        .as_str()
        .unwrap();
    assert!(said.contains("never answers it rate_limited"), "{said}");
    let codes = &schema("ErrorRateLimited")["properties"]["error"]["properties"]["code"];
    assert_eq!(
        strings(&codes["enum"]),
        ["rate_limited", "too_many_unknown_keys"]
    );
}
