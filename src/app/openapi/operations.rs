//! The document's paths: each route's GET, its HEAD twin and its CORS
//! preflight, with the answers each may give and a curl example of each.

use serde_json::{Map, Value, json};

use super::headers::{self, CACHE, COMMON, RATE};
use super::responses::{json_response, without_content};
use super::{parameters, reference, success};
use crate::api::contract::{COMPARE_IDS_MAX, COMPARE_IDS_MIN};
use crate::api::router::Route;

pub use parameters::shared as shared_parameters;

const SEARCH_RULE: &str = "At least one of q, lat and lng, bbox, min_score, or province is required (else 400 with param q); lat and lng come together; radius needs them. Every criterion given must hold.";
const AREAS_PATH_NOTE: &str = "Answers 404 area_not_found when no area has the id.";
const AUTH: &str = "-H \"Authorization: Bearer $KEY\"";

/// What an operation may answer besides its 200.
#[derive(Clone, Copy, Default)]
struct Answers {
    plan: bool,
    area: bool,
    /// Never cached, so never 304.
    uncached: bool,
    /// Takes nothing from a key's budget, so never 429 rate_limited.
    free: bool,
}

fn responses(ok: Value, a: Answers) -> Value {
    let r = |name: &str| reference("responses", name);
    let mut out = Map::new();
    out.insert("200".into(), ok);
    if !a.uncached {
        out.insert("304".into(), r("NotModified"));
    }
    out.insert("400".into(), r("InvalidParameter"));
    out.insert("401".into(), r("Unauthorized"));
    if a.plan {
        out.insert("403".into(), r("PlanUpgradeRequired"));
    }
    if a.area {
        out.insert("404".into(), r("AreaNotFound"));
    }
    let limited = if a.free {
        "UnknownKeysRateLimited"
    } else {
        "RateLimited"
    };
    for (status, name) in [
        ("414", "UriTooLong"),
        ("429", limited),
        ("431", "HeadersTooLarge"),
        ("500", "InternalError"),
        ("502", "BadGateway"),
        ("503", "ServiceUnavailable"),
        ("504", "GatewayTimeout"),
    ] {
        out.insert(status.into(), r(name));
    }
    Value::Object(out)
}

/// No key, no rate limit; any query parameter is 400.
fn public_responses(ok: Value, extra: &[(&str, Value)]) -> Value {
    let mut out = Map::new();
    out.insert("200".into(), ok);
    for (status, r) in extra {
        out.insert(status.to_string(), r.clone());
    }
    for (status, name) in [
        ("400", "InvalidParameter"),
        ("414", "UriTooLong"),
        ("431", "HeadersTooLarge"),
        ("500", "InternalError"),
    ] {
        out.insert(status.into(), reference("responses", name));
    }
    Value::Object(out)
}

fn operation(
    id: &str,
    summary: &str,
    description: &str,
    tag: &str,
    parameters: Vec<Value>,
    responses: Value,
) -> Value {
    let mut op =
        json!({"operationId": id, "summary": summary, "description": description, "tags": [tag]});
    if tag == "meta" {
        // The routes that need no key.
        op["security"] = json!([]);
    }
    op["parameters"] = json!(parameters);
    op["responses"] = responses;
    op
}

/// The parameters of a keyed operation: its query's, then the request headers.
fn keyed(route: &Route) -> Vec<Value> {
    let mut all = parameters::of(route);
    all.extend(parameters::request_headers());
    all
}

fn list_areas() -> Value {
    let links = json!({
        "FirstArea": success::link("getArea", "$response.body#/data/0/id", "The first area of the page (JSON answers)."),
        "FirstAreaHistory": success::link("getAreaHistory", "$response.body#/data/0/id", "The history of the first area of the page (JSON answers)."),
    });
    let ok = success::page(
        "A page of areas.",
        ["AreaPage", "AreaFeatureCollection"],
        links,
        None,
        None,
    );
    operation(
        "listAreas",
        "List areas",
        "A page of areas, optionally of one province. Sorting is stable: ties are broken by id ascending, so paging never repeats or skips an area. `name` sorts case-insensitively (ASCII folding).",
        "areas",
        keyed(&Route::ListAreas),
        responses(ok, Answers::default()),
    )
}

fn search_areas() -> Value {
    let links = json!({"BestMatch": success::link("getArea", "$response.body#/data/0/id", "The first match (JSON answers).")});
    let matched =
        json!({"match": {"tier": "exact", "other_name": null, "words": ["cape", "town"]}});
    let ok = success::page(
        "Matching areas.",
        ["SearchPage", "SearchFeatureCollection"],
        links,
        Some("distance_km"),
        Some(matched),
    );
    let description = format!(
        "By text, by circle, by viewport, by minimum score, by province, or any of them together. {SEARCH_RULE} Order: by relevance when q is given (the tiers of match in order; within each, areas whose name holds every word first), else by distance when lat/lng are given, else by truth_score descending; ties by id. Pages at any offset; an offset past the end gives an empty page."
    );
    operation(
        "searchAreas",
        "Search areas",
        &description,
        "areas",
        keyed(&Route::SearchAreas),
        responses(ok, Answers::default()),
    )
}

fn export_areas() -> Value {
    let mut answers = responses(
        success::export(),
        Answers {
            plan: true,
            ..Answers::default()
        },
    );
    answers["426"] = reference("responses", "UpgradeRequired");
    operation(
        "exportAreas",
        "Export areas",
        "Every area, or every area of one province, ordered by id, each with the list form's fields, its centre (lat, lng) and each dimension's score, in one answer to save as a file. Growth plan and above. When too many exports are in flight the answer is 503 service_unavailable with Retry-After.",
        "areas",
        keyed(&Route::ExportAreas),
        answers,
    )
}

fn compare_areas() -> Value {
    let ok = success::cached(
        "The comparison.",
        "Comparison",
        json!({"Winner": success::link("getArea", "$response.body#/winner/overall", "The overall winner.")}),
    );
    let description = format!(
        "{COMPARE_IDS_MIN} to {COMPARE_IDS_MAX} areas side by side, with the winner overall and per dimension. A winner has the highest score; a tie goes to the area listed first in ids."
    );
    operation(
        "compareAreas",
        "Compare areas",
        &description,
        "areas",
        keyed(&Route::CompareAreas),
        responses(
            ok,
            Answers {
                area: true,
                ..Answers::default()
            },
        ),
    )
}

fn get_area() -> Value {
    let ok = success::cached(
        "The area.",
        "AreaDetail",
        json!({"History": success::link("getAreaHistory", "$response.body#/id", "This area's history.")}),
    );
    let description = format!(
        "One area with its dimension breakdown; optionally nearby areas and (growth plan and above) its last 30 days of history. {AREAS_PATH_NOTE}"
    );
    operation(
        "getArea",
        "Get an area",
        &description,
        "areas",
        keyed(&Route::GetArea(String::new())),
        responses(
            ok,
            Answers {
                plan: true,
                area: true,
                ..Answers::default()
            },
        ),
    )
}

fn area_history() -> Value {
    let ok = success::cached(
        "The history.",
        "AreaHistory",
        json!({"Area": success::link("getArea", "$response.body#/area_id", "The area itself.")}),
    );
    let description = format!(
        "The truth_score series of an area over a period ending on its latest history date. Growth plan and above. {AREAS_PATH_NOTE}"
    );
    operation(
        "getAreaHistory",
        "Get an area's score history",
        &description,
        "areas",
        keyed(&Route::AreaHistory(String::new())),
        responses(
            ok,
            Answers {
                plan: true,
                area: true,
                ..Answers::default()
            },
        ),
    )
}

fn key() -> Value {
    let names = [
        &COMMON[..],
        &["Cache-Control-NoStore", "Vary-Coding", "Content-Encoding"],
    ]
    .concat();
    let ok = json_response("The key.", "KeyInfo", headers::set(&names, &RATE));
    operation(
        "getKey",
        "The calling key",
        "The calling key's id, plan, rate limit with what is left of it, and its requests today. Any plan. Takes nothing from the key's budget, so a key that has spent it can still ask when it may go on: the answer carries the key's rate headers like any other, and is never 429 rate_limited. It still needs a valid key: a request without one is counted against its client's keyless budget like any other (401, then 429 too_many_unknown_keys). Never cached (Cache-Control: no-store), so it has no ETag and never answers 304.",
        "keys",
        keyed(&Route::Key),
        responses(
            ok,
            Answers {
                uncached: true,
                free: true,
                ..Answers::default()
            },
        ),
    )
}

/// A route that needs no key.
fn public(
    id: &str,
    summary: &str,
    description: &str,
    parameters: Vec<Value>,
    responses: Value,
) -> Value {
    operation(id, summary, description, "meta", parameters, responses)
}

fn meta() -> [Value; 3] {
    let coding = |extra: &[&str]| headers::set(&[&COMMON[..], extra].concat(), &[]);
    let no_store = ["Cache-Control-NoStore", "Vary-Coding", "Content-Encoding"];
    let untracked = || {
        vec![
            reference("parameters", "AcceptEncoding"),
            reference("parameters", "XRequestId"),
        ]
    };
    let openapi = public(
        "getOpenApi",
        "This document",
        "The OpenAPI document of the API. No key needed, no rate limit.",
        parameters::request_headers(),
        public_responses(
            json_response(
                "The OpenAPI 3.1 document.",
                "OpenApiDocument",
                coding(&[&CACHE[..], &["Content-Encoding"]].concat()),
            ),
            &[("304", reference("responses", "NotModified"))],
        ),
    );
    let health = public(
        "health",
        "Health check",
        "Whether the database answers, and which data it serves (when the dataset was made, from which file and its SHA-256, by which build, how many areas, when it was loaded). No key needed, no rate limit; for load balancers and supervisors. After a refused reload the answer is still 200, with status degraded and a reason, until a reload succeeds.",
        untracked(),
        public_responses(
            json_response("The database answers.", "Health", coding(&no_store)),
            &[("503", reference("responses", "ServiceUnavailable"))],
        ),
    );
    let metrics_ok = json!({
        "description": "The metrics.",
        "headers": coding(&no_store),
        "content": {"text/plain; version=0.0.4; charset=utf-8": {"schema": {"type": "string"}}},
    });
    let moved = json_response(
        "not_found: /metrics was moved to --metrics-addr.",
        "ErrorNotFound",
        coding(&[]),
    );
    let metrics = public(
        "metrics",
        "Prometheus metrics",
        "Prometheus text exposition format (0.0.4): requests by route and status, a latency histogram by route, the database pool's busy and idle connections, rate-limit refusals, the body bytes sent by content coding, the served dataset's load time and areas, refused reloads, keys loaded, the usage backlog, the build and the start time. No key needed. When serve is given --metrics-addr, /metrics moves to that address and answers 404 not_found here.",
        untracked(),
        public_responses(metrics_ok, &[("404", moved)]),
    );
    [openapi, health, metrics]
}

/// A curl example per operation, as docs/api.md shows them (its examples
/// are run and compared by tests/readme_examples.rs).
fn curl(path: &str) -> Vec<String> {
    let keyed = |query: &str| format!("curl -s {AUTH} \"localhost:8080{query}\"");
    match path {
        "/v1/areas" => vec![
            keyed("/v1/areas?province=gauteng&sort=truth_score&order=desc&limit=2"),
            format!(
                "curl -s -o /dev/null -w '%header{{link}}\\n' {AUTH} \"localhost:8080/v1/areas?limit=20&offset=40\""
            ),
        ],
        "/v1/areas/search" => vec![
            keyed("/v1/areas/search?q=johannes&lat=-26.2041&lng=28.0473&radius=25&min_score=5"),
            keyed("/v1/areas/search?province=gauteng&min_score=7&limit=3"),
            format!(
                "curl -s {AUTH} -H \"Accept: application/geo+json\" \"localhost:8080/v1/areas/search?bbox=18.3,-34.0,18.6,-33.85&limit=2\""
            ),
            keyed("/v1/areas/search?q=cape&limit=10&offset=20&format=csv"),
            keyed("/v1/areas/search?lat=-26.2&lng=28.05&radius=1e-05"),
        ],
        "/v1/areas/export" => vec![
            format!(
                "{} -o northern-cape.csv",
                keyed("/v1/areas/export?province=northern-cape&format=csv")
            ),
            format!(
                "curl -s {AUTH} -H \"Accept: application/x-ndjson\" \"localhost:8080/v1/areas/export\" -o areas.ndjson"
            ),
        ],
        "/v1/areas/compare" => vec![keyed(
            "/v1/areas/compare?ids=johannesburg,pretoria,durban&dimensions=safety,market",
        )],
        "/v1/areas/{area_id}" => vec![keyed("/v1/areas/danielskuil?include=nearby")],
        "/v1/areas/{area_id}/history" => vec![keyed(
            "/v1/areas/johannesburg/history?period=90d&granularity=monthly",
        )],
        "/v1/key" => vec![keyed("/v1/key")],
        other => vec![format!("curl -s \"localhost:8080{other}\"")],
    }
}

/// HEAD works wherever GET does: the same answer without its body.
fn head_of(get: &Value) -> Value {
    let mut op = get.clone();
    op["operationId"] = json!(format!(
        "{}Head",
        get["operationId"].as_str().unwrap_or_default()
    ));
    op["summary"] = json!(format!(
        "{} (headers only)",
        get["summary"].as_str().unwrap_or_default()
    ));
    op["description"] = json!("HEAD: the answer GET would give, without its body.");
    let responses = get["responses"].as_object().expect("responses");
    op["responses"] = Value::Object(
        responses
            .iter()
            .map(|(s, r)| (s.clone(), without_content(r)))
            .collect(),
    );
    op.as_object_mut()
        .expect("an operation")
        .shift_remove("x-codeSamples");
    op
}

fn preflight(label: &str) -> Value {
    let headers = headers::set(
        &[
            &COMMON[..],
            &[
                "Access-Control-Allow-Methods",
                "Access-Control-Allow-Headers",
                "Allow",
            ],
        ]
        .concat(),
        &["Access-Control-Max-Age"],
    );
    json!({
        "operationId": format!("preflight{label}"),
        "summary": "CORS preflight",
        "description": "Answers a browser's preflight without an API key.",
        "tags": ["cors"],
        "security": [],
        "responses": {
            "204": {"description": "The methods and request headers a browser may use here.", "headers": headers},
            "414": reference("responses", "UriTooLongHead"),
            "431": reference("responses", "HeadersTooLargeHead"),
        },
    })
}

/// Every path: its GET, HEAD and OPTIONS.
pub fn paths() -> Value {
    let [openapi, health, metrics] = meta();
    let gets = [
        ("/v1/areas", list_areas()),
        ("/v1/areas/search", search_areas()),
        ("/v1/areas/export", export_areas()),
        ("/v1/areas/compare", compare_areas()),
        ("/v1/areas/{area_id}", get_area()),
        ("/v1/areas/{area_id}/history", area_history()),
        ("/v1/key", key()),
        ("/v1/openapi.json", openapi),
        ("/healthz", health),
        ("/metrics", metrics),
    ];
    let mut paths = Map::new();
    for (path, mut get) in gets {
        let samples: Vec<Value> = curl(path)
            .into_iter()
            .map(|c| json!({"lang": "Shell", "label": "curl", "source": c}))
            .collect();
        get["x-codeSamples"] = json!(samples);
        let id = get["operationId"].as_str().unwrap_or_default().to_string();
        let label = format!("{}{}", id[..1].to_uppercase(), &id[1..]);
        let mut item = Map::new();
        if path.contains("{area_id}") {
            item.insert(
                "parameters".into(),
                json!([reference("parameters", "AreaId")]),
            );
        }
        let head = head_of(&get);
        item.insert("get".into(), get);
        item.insert("head".into(), head);
        item.insert("options".into(), preflight(&label));
        paths.insert(path.to_string(), Value::Object(item));
    }
    Value::Object(paths)
}
