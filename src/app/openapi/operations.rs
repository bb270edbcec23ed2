//! The document's paths: each route's GET, its HEAD twin and its CORS
//! preflight, with the answers each may give and a curl example of each.

use serde_json::{Map, Value, json};

use super::headers::{self, CACHE, COMMON, RATE};
use super::responses::{json_response, without_content};
use super::{parameters, reference, success};
use crate::api::contract::{
    COMPARE_IDS_MAX, COMPARE_IDS_MIN, EXPORT_FORMATS, EXPORT_PLAN, Format, HISTORY_PLAN,
    LIST_FORMATS, NEAR_BOUNDARY_KM, PERIOD_DEFAULT, Plan, STATS_FORMATS, format_paths,
};
use crate::api::router::{AtPath, Route};

pub use parameters::shared as shared_parameters;

const SEARCH_RULE: &str = "At least one of q, lat and lng, bbox, min_score, or province is required (else 400 with param q); lat and lng come together; radius needs them. Every criterion given must hold.";
const AREAS_PATH_NOTE: &str = "Answers 404 area_not_found when no area has the id.";
const AUTH: &str = "-H \"Authorization: Bearer $KEY\"";

/// The statuses a keyed operation may answer besides its 200, in order;
/// `RateLimited` is `UnknownKeysRateLimited` for one that spends no budget.
const KEYED: [(&str, &str); 12] = [
    ("304", "NotModified"),
    ("400", "InvalidParameter"),
    ("401", "Unauthorized"),
    ("403", "PlanUpgradeRequired"),
    ("404", "AreaNotFound"),
    ("414", "UriTooLong"),
    ("429", "RateLimited"),
    ("431", "HeadersTooLarge"),
    ("500", "InternalError"),
    ("502", "BadGateway"),
    ("503", "ServiceUnavailable"),
    ("504", "GatewayTimeout"),
];

/// A keyed operation's answers: `ok`, then `KEYED` but for the statuses it
/// never answers (`without`).
fn responses(ok: Value, without: &[&str], free: bool) -> Value {
    let mut out = Map::new();
    out.insert("200".into(), ok);
    for (status, name) in KEYED.iter().filter(|(s, _)| !without.contains(s)) {
        let name = if *status == "429" && free {
            "UnknownKeysRateLimited"
        } else {
            name
        };
        out.insert(status.to_string(), reference("responses", name));
    }
    Value::Object(out)
}

/// No key, no rate limit; any query parameter is 400.
fn public_responses(ok: Value, (status, extra): (&str, Value)) -> Value {
    let mut out = json!({"200": ok});
    out[status] = extra;
    for (status, name) in [
        ("400", "InvalidParameter"),
        ("414", "UriTooLong"),
        ("431", "HeadersTooLarge"),
        ("500", "InternalError"),
    ] {
        out[status] = reference("responses", name);
    }
    out
}

/// A keyed operation of `route`: its query's parameters, then the request headers.
fn keyed(
    id: &str,
    summary: &str,
    description: &str,
    tag: &str,
    route: Route,
    responses: Value,
) -> Value {
    let mut parameters = parameters::of(&route);
    parameters.extend(parameters::request_headers());
    json!({"operationId": id, "summary": summary, "description": description, "tags": [tag], "parameters": parameters, "responses": responses})
}

/// An operation that needs no key.
fn public(
    id: &str,
    summary: &str,
    description: &str,
    parameters: Vec<Value>,
    responses: Value,
) -> Value {
    json!({"operationId": id, "summary": summary, "description": description, "tags": ["meta"], "security": [], "parameters": parameters, "responses": responses})
}

/// Where format= and Accept stand at a format's own path.
const FORMAT_PATH_NOTE: &str = "This path answers one representation: format= is not a parameter here (400 invalid_parameter naming format, as any unknown parameter is) and Accept chooses nothing. Paging, caching, compression, keys and rate limits are those of the JSON path.";

/// An endpoint of several representations: the operation of its JSON path
/// (`id`, at `path`), then one of each other format's own path, `ok`
/// giving each its 200.
fn with_format_paths(
    out: &mut Map<String, Value>,
    (path, id, summary, description): (&str, &str, &str, &str),
    (route, offered): (AtPath, &[Format]),
    ok: impl Fn(Format) -> Value,
) {
    out.insert(
        path.to_string(),
        keyed(
            id,
            summary,
            description,
            "areas",
            route(None),
            ok(Format::Json),
        ),
    );
    for format in format_paths(offered) {
        let title = success::title(format);
        let op = keyed(
            &format!("{id}{}", id_part(format)),
            &format!("{summary} as {title}"),
            &format!("{description} {FORMAT_PATH_NOTE}"),
            "areas",
            route(Some(format)),
            ok(format),
        );
        out.insert(format!("{path}.{}", format.extension()), op);
    }
}

/// A format's part of its operationIds (listAreasGeoJson).
fn id_part(format: Format) -> &'static str {
    match format {
        Format::Json => "Json",
        Format::GeoJson => "GeoJson",
        Format::Csv => "Csv",
        Format::NdJson => "NdJson",
    }
}

fn area_operations() -> Value {
    let link = success::link;
    let list_links = json!({
        "FirstArea": link("getArea", "$response.body#/data/0/id", "The first area of the page."),
        "FirstAreaHistory": link("getAreaHistory", "$response.body#/data/0/id", "The history of the first area of the page."),
    });
    let list_ok = |format| {
        success::by_ids(success::page(
            ("A page of areas.", "/v1/areas"),
            [
                "AreaPage",
                "AreaFeatureCollection",
                "AreaBoundaryFeatureCollection",
            ],
            list_links.clone(),
            None,
            None,
            format,
        ))
    };
    let matched =
        json!({"match": {"tier": "exact", "other_name": null, "words": ["cape", "town"]}});
    let search_links =
        json!({"BestMatch": link("getArea", "$response.body#/data/0/id", "The first match.")});
    let search_ok = |format| {
        success::page(
            ("Matching areas.", "/v1/areas/search"),
            [
                "SearchPage",
                "SearchFeatureCollection",
                "SearchBoundaryFeatureCollection",
            ],
            search_links.clone(),
            Some("distance_km"),
            Some(matched.clone()),
            format,
        )
    };
    let export_ok = |format| {
        let mut export = responses(success::export(format), &["404"], false);
        export["426"] = reference("responses", "UpgradeRequired");
        export
    };
    let compare_ok = success::cached(
        "The comparison.",
        "Comparison",
        json!({"Winner": link("getArea", "$response.body#/winner/overall", "The overall winner.")}),
    );
    let area_ok = success::cached(
        "The area.",
        "AreaDetail",
        json!({"History": link("getAreaHistory", "$response.body#/id", "This area's history.")}),
    );
    let at_ok = success::cached(
        "The area at the point.",
        "AreaAt",
        json!({"Area": link("getArea", "$response.body#/id", "The area itself.")}),
    );
    let mut at_responses = responses(at_ok, &["404"], false);
    at_responses["404"] = reference("responses", "NoAreaHere");
    let history_ok = success::cached(
        "The history.",
        "AreaHistory",
        json!({"Area": link("getArea", "$response.body#/area_id", "The area itself.")}),
    );
    let id = String::new;
    let title = |plan: Plan| {
        let name = plan.name();
        format!("{}{}", name[..1].to_uppercase(), &name[1..])
    };
    let (export_plan, history_plan_title) = (title(EXPORT_PLAN), title(HISTORY_PLAN));
    let (history_plan, history_days) = (HISTORY_PLAN.name(), PERIOD_DEFAULT.1);
    let near_m = NEAR_BOUNDARY_KM * 1000.0;
    let mut out = Map::new();
    with_format_paths(
        &mut out,
        (
            "/v1/areas",
            "listAreas",
            "List areas",
            "A page of areas, optionally of one province. Sorting is stable: ties are broken by id ascending, so paging never repeats or skips an area. `name` sorts case-insensitively (ASCII folding). With ids, the areas asked for instead, in the order given, on one page without Link, and missing naming the ids not answered.",
        ),
        (Route::ListAreas, &LIST_FORMATS),
        |f| responses(list_ok(f), &["403", "404"], false),
    );
    with_format_paths(
        &mut out,
        (
            "/v1/areas/search",
            "searchAreas",
            "Search areas",
            &format!(
                "By text, by circle, by viewport, by minimum score, by province, or any of them together. {SEARCH_RULE} Order: by relevance when q is given (the tiers of match in order; within each, areas whose name holds every word first), else by distance when lat/lng are given, else by truth_score descending; ties by id. Pages at any offset; an offset past the end gives an empty page."
            ),
        ),
        (Route::SearchAreas, &LIST_FORMATS),
        |f| responses(search_ok(f), &["403", "404"], false),
    );
    with_format_paths(
        &mut out,
        (
            "/v1/areas/export",
            "exportAreas",
            "Export areas",
            &format!(
                "Every area, or every area of one province, ordered by id, each with the list form's fields, its centre (lat, lng) and each dimension's score, in one answer to save as a file. {export_plan} plan and above. When too many exports are in flight the answer is 503 service_unavailable with Retry-After."
            ),
        ),
        (Route::ExportAreas, &EXPORT_FORMATS),
        export_ok,
    );
    with_format_paths(
        &mut out,
        (
            "/v1/areas/stats",
            "getAreaStats",
            "Area statistics",
            "Each group's count, mean, min, max and quantiles p10, p25, p50, p75 and p90 of each measure asked for: every area, each province, or each municipality of a province (paged). Exact at any size, computed when the dataset was written: the quantiles by linear interpolation between the closest ranks (type 7), every number in exact hundredths rounded half away from zero to 2 decimals. An area without a dimension is not counted for it. Any plan.",
        ),
        (Route::AreaStats, &STATS_FORMATS),
        |f| responses(super::stats::ok(f), &["403", "404"], false),
    );
    let Value::Object(rest) = json!({
        "/v1/areas/compare": keyed("compareAreas", "Compare areas", &format!("{COMPARE_IDS_MIN} to {COMPARE_IDS_MAX} areas side by side, with the winner overall and per dimension. A winner has the highest score; among areas that share it, the lowest id wins, whatever the order of ids, and winner.ties names them all."), "areas", Route::CompareAreas, responses(compare_ok, &["403"], false)),
        "/v1/areas/at": keyed("getAreaAt", "The area at a point", &format!("The area at a point, in Get Area's detail form, with located saying how it was found. Every area whose boundary holds the point (edges and vertices included) qualifies, and the smallest by geodesic area answers, then the lower id; located.also lists the others. A point in no boundary but within {near_m} m of one answers the nearest such area (near_boundary). Otherwise the answer is the nearest centre within radius among the areas without a boundary (nearest), else 404 no_area_here. Search by radius and bbox still judges centres only."), "areas", Route::AreaAt, at_responses),
        "/v1/areas/{area_id}": keyed("getArea", "Get an area", &format!("One area with its dimension breakdown; optionally nearby areas, its standing nationally and in its province, its boundary, and ({history_plan} plan and above) its last {history_days} days of history. {AREAS_PATH_NOTE}"), "areas", Route::GetArea(id()), responses(area_ok, &[], false)),
        "/v1/areas/{area_id}/history": keyed("getAreaHistory", "Get an area's score history", &format!("The truth_score series of an area over a period ending on its latest history date. {history_plan_title} plan and above. {AREAS_PATH_NOTE}"), "areas", Route::AreaHistory(id()), responses(history_ok, &[], false)),
    }) else {
        unreachable!("operations are an object")
    };
    out.extend(rest);
    Value::Object(out)
}

fn other_operations() -> Value {
    let headers =
        |names: &[&str], optional: &[&str]| headers::set(&[&COMMON[..], names].concat(), optional);
    let no_store = ["Cache-Control-NoStore", "Vary-Coding", "Content-Encoding"];
    let key_ok = json_response("The key.", "KeyInfo", headers(&no_store, &RATE));
    let openapi_ok = json_response(
        "The OpenAPI 3.1 document.",
        "OpenApiDocument",
        headers(&[&CACHE[..], &["Content-Encoding"]].concat(), &[]),
    );
    let health_ok = json_response("The database answers.", "Health", headers(&no_store, &[]));
    let metrics_ok = json!({"description": "The metrics.", "headers": headers(&no_store, &[]), "content": {"text/plain; version=0.0.4; charset=utf-8": {"schema": {"type": "string"}}}});
    let moved = json_response(
        "not_found: /metrics was moved to --metrics-addr.",
        "ErrorNotFound",
        headers(&[], &[]),
    );
    let untracked = || {
        vec![
            reference("parameters", "AcceptEncoding"),
            reference("parameters", "XRequestId"),
        ]
    };
    json!({
        "/v1/key": keyed("getKey", "The calling key", "The calling key's id, plan, rate limit with what is left of it, and its requests today. Any plan. Takes nothing from the key's budget, so a key that has spent it can still ask when it may go on: the answer carries the key's rate headers like any other, and is never 429 rate_limited. It still needs a valid key: a request without one is counted against its client's keyless budget like any other (401, then 429 too_many_unknown_keys). Never cached (Cache-Control: no-store), so it has no ETag and never answers 304.", "keys", Route::Key, responses(key_ok, &["304", "403", "404"], true)),
        "/v1/openapi.json": public("getOpenApi", "This document", "The OpenAPI document of the API. No key needed, no rate limit.", parameters::request_headers(), public_responses(openapi_ok, ("304", reference("responses", "NotModified")))),
        "/healthz": public("health", "Health check", "Whether the database answers, and which data it serves (when the dataset was made, from which file and its SHA-256, by which build, how many areas, when it was loaded). No key needed, no rate limit; for load balancers and supervisors. After a refused reload the answer is still 200, with status degraded and a reason, until a reload succeeds.", untracked(), public_responses(health_ok, ("503", reference("responses", "ServiceUnavailable")))),
        "/metrics": public("metrics", "Prometheus metrics", "Prometheus text exposition format (0.0.4): requests by route and status, a latency histogram by route, the database pool's busy and idle connections, rate-limit refusals, the body bytes sent by content coding, the served dataset's load time and areas, refused reloads, keys loaded, the usage backlog, the build and the start time. No key needed. When serve is given --metrics-addr, /metrics moves to that address and answers 404 not_found here.", untracked(), public_responses(metrics_ok, ("404", moved))),
    })
}

/// A curl example per operation, as docs/api.md shows them (its examples
/// are run and compared by tests/readme_examples.rs).
fn curl() -> Value {
    let keyed = |target: &str| format!("curl -s {AUTH} \"localhost:8080{target}\"");
    let with =
        |flags: &str, target: &str, out: &str| format!("curl -s {flags}{AUTH} {target}{out}");
    let public = |path: &str| format!("curl -s \"localhost:8080{path}\"");
    json!({
        "/v1/areas": [
            keyed("/v1/areas?province=gauteng&sort=truth_score&order=desc&limit=2"),
            with("-o /dev/null -w '%header{link}\\n' ", "\"localhost:8080/v1/areas?limit=20&offset=40\"", ""),
            keyed("/v1/areas?ids=soweto,no-such-area,stellenbosch"),
        ],
        "/v1/areas.csv": [keyed("/v1/areas.csv?province=gauteng&limit=100")],
        "/v1/areas.geojson": [
            keyed("/v1/areas.geojson?province=western-cape&limit=5"),
            keyed("/v1/areas.geojson?province=western-cape&limit=5&geometry=boundary&simplify=250"),
        ],
        "/v1/areas/search": [
            keyed("/v1/areas/search?q=johannes&lat=-26.2041&lng=28.0473&radius=25&min_score=5"),
            keyed("/v1/areas/search?province=gauteng&min_score=7&limit=3"),
            keyed("/v1/areas/search?lat=-26.2&lng=28.05&radius=1e-05"),
        ],
        "/v1/areas/search.csv": [keyed("/v1/areas/search.csv?q=soweto")],
        "/v1/areas/search.geojson": [keyed("/v1/areas/search.geojson?bbox=18.3,-34.0,18.6,-33.85&limit=2")],
        "/v1/areas/export": [with("", "\"localhost:8080/v1/areas/export\"", " -o areas.json")],
        "/v1/areas/export.csv": [with("", "\"localhost:8080/v1/areas/export.csv?province=northern-cape\"", " -o northern-cape.csv")],
        "/v1/areas/export.geojson": [with("", "\"localhost:8080/v1/areas/export.geojson\"", " -o areas.geojson")],
        "/v1/areas/export.ndjson": [with("", "\"localhost:8080/v1/areas/export.ndjson\"", " -o areas.ndjson")],
        "/v1/areas/compare": [
            keyed("/v1/areas/compare?ids=johannesburg,pretoria,durban&dimensions=safety,market"),
            keyed("/v1/areas/compare?ids=heidelberg-western-cape,heidelberg-gauteng&dimensions=safety"),
        ],
        "/v1/areas/at": [keyed("/v1/areas/at?lat=-26.1076&lng=28.0567")],
        "/v1/areas/stats": [keyed("/v1/areas/stats?group_by=province&measures=truth_score,safety")],
        "/v1/areas/stats.csv": [keyed("/v1/areas/stats.csv?group_by=municipality&province=gauteng")],
        "/v1/areas/{area_id}": [keyed("/v1/areas/danielskuil?include=nearby")],
        "/v1/areas/{area_id}/history": [keyed("/v1/areas/johannesburg/history?period=90d&granularity=monthly")],
        "/v1/key": [keyed("/v1/key")],
        "/v1/openapi.json": [public("/v1/openapi.json")],
        "/healthz": [public("/healthz")],
        "/metrics": [public("/metrics")],
    })
}

/// HEAD works wherever GET does: the same answer without its body.
fn head_of(get: &Value) -> Value {
    let mut op = get.clone();
    let of = |key: &str| get[key].as_str().unwrap_or_default();
    op["operationId"] = json!(format!("{}Head", of("operationId")));
    op["summary"] = json!(format!("{} (headers only)", of("summary")));
    op["description"] = json!("HEAD: the answer GET would give, without its body.");
    let responses = get["responses"].as_object().into_iter().flatten();
    op["responses"] = Value::Object(
        responses
            .map(|(s, r)| (s.clone(), without_content(r)))
            .collect(),
    );
    op.as_object_mut().map(|o| o.shift_remove("x-codeSamples"));
    op
}

fn preflight(label: &str) -> Value {
    let allowed = [
        "Access-Control-Allow-Methods",
        "Access-Control-Allow-Headers",
        "Allow",
    ];
    let headers = headers::set(
        &[&COMMON[..], &allowed].concat(),
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

/// Every path: its GET (with its curl examples), HEAD and OPTIONS.
pub fn paths() -> Value {
    let mut paths = Map::new();
    let (Value::Object(areas), Value::Object(others)) = (area_operations(), other_operations())
    else {
        unreachable!("operations are objects")
    };
    let curl = curl();
    for (path, mut get) in areas.into_iter().chain(others) {
        let samples: Vec<Value> = curl[&path]
            .as_array()
            .into_iter()
            .flatten()
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
        paths.insert(path, Value::Object(item));
    }
    Value::Object(paths)
}
