//! Representations, errors, provinces, dimensions and plans as the server
//! has them, and docs/api.md's parameter tables.

use std::collections::BTreeSet;

use area_scoring::api::contract::*;
use area_scoring::error::ApiError;

use super::doc::*;

/// The media types of an operation's 200 answer.
fn media_types(path: &str) -> Vec<String> {
    let ok = resolve(&doc()["paths"][path]["get"]["responses"]["200"]);
    ok["content"].as_object().unwrap().keys().cloned().collect()
}

fn response_headers(path: &str) -> BTreeSet<String> {
    let ok = resolve(&doc()["paths"][path]["get"]["responses"]["200"]);
    ok["headers"].as_object().unwrap().keys().cloned().collect()
}

#[test]
fn documented_representations_are_the_servers() {
    let types = |formats: &[Format]| -> BTreeSet<String> {
        formats.iter().map(|f| f.media_type().to_string()).collect()
    };
    for path in ["/v1/areas", "/v1/areas/search"] {
        let documented: BTreeSet<String> = media_types(path).into_iter().collect();
        assert_eq!(documented, types(&LIST_FORMATS), "{path}");
        let paging = set(["Link", "X-Total-Count", "Vary"]);
        assert!(paging.is_subset(&response_headers(path)), "{path}");
    }
    let path = "/v1/areas/export";
    let documented: BTreeSet<String> = media_types(path).into_iter().collect();
    assert_eq!(documented, types(&EXPORT_FORMATS));
    assert!(response_headers(path).contains("Content-Disposition"));
    let disposition = &doc()["components"]["headers"]["Content-Disposition"]["schema"];
    let pattern = disposition["pattern"].as_str().unwrap();
    let extensions: Vec<&str> = EXPORT_FORMATS.iter().map(|f| f.extension()).collect();
    assert!(
        pattern.contains(&format!("(?:{})", extensions.join("|"))),
        "{pattern}"
    );
}

#[test]
fn the_documented_gzip_threshold_is_the_servers() {
    use area_scoring::app::encoding::GZIP_MIN_BYTES;
    let header = &doc()["components"]["headers"]["Content-Encoding"];
    let said = header["description"].as_str().unwrap();
    let bytes = format!(" {GZIP_MIN_BYTES} bytes or more");
    assert!(said.contains(&bytes), "{said}");
    let info = doc()["info"]["description"].as_str().unwrap();
    assert!(info.contains(&bytes), "the Compression convention");
}

#[test]
fn export_rows_carry_every_dimension() {
    let keys = |v: &serde_json::Value| -> BTreeSet<String> {
        v["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    let area = keys(schema("ExportArea"));
    let feature = keys(&schema("ExportFeature")["properties"]["properties"]);
    assert!(set(DIMENSIONS).is_subset(&area));
    assert!(set(DIMENSIONS).is_subset(&feature));
    assert_eq!(
        area.difference(&feature).cloned().collect::<BTreeSet<_>>(),
        set(["lat", "lng"])
    );
}

/// One of each error, built so that a new variant fails to compile below.
pub fn every_error() -> Vec<ApiError> {
    let all = vec![
        ApiError::MissingApiKey,
        ApiError::InvalidApiKey,
        ApiError::PlanUpgradeRequired {
            feature: "history",
            needed: Plan::Growth,
            have: Plan::Free,
            param: Some("include"),
        },
        ApiError::invalid("limit", "out of bounds"),
        ApiError::AreaNotFound { ids: vec![] },
        ApiError::NotFound { path: "/x".into() },
        ApiError::MethodNotAllowed { allow: "GET" },
        ApiError::RateLimited {
            retry_after_secs: 1,
        },
        ApiError::TooManyUnknownKeys {
            retry_after_secs: 1,
        },
        ApiError::UriTooLong,
        ApiError::HeadersTooLarge,
        ApiError::Internal,
        ApiError::ServiceUnavailable,
        ApiError::ExportsBusy {
            running: 4,
            per_key: false,
        },
        ApiError::BodyNotAllowed,
        ApiError::UpgradeRequired,
        ApiError::BadRequest,
        ApiError::HttpVersionNotSupported,
        ApiError::ExpectationFailed,
    ];
    for e in &all {
        match e {
            ApiError::MissingApiKey
            | ApiError::InvalidApiKey
            | ApiError::PlanUpgradeRequired { .. }
            | ApiError::InvalidParameter { .. }
            | ApiError::AreaNotFound { .. }
            | ApiError::NotFound { .. }
            | ApiError::MethodNotAllowed { .. }
            | ApiError::RateLimited { .. }
            | ApiError::TooManyUnknownKeys { .. }
            | ApiError::UriTooLong
            | ApiError::HeadersTooLarge
            | ApiError::Internal
            | ApiError::ServiceUnavailable
            | ApiError::ExportsBusy { .. }
            | ApiError::BodyNotAllowed
            | ApiError::UpgradeRequired
            | ApiError::BadRequest
            | ApiError::HttpVersionNotSupported
            | ApiError::ExpectationFailed => {}
        }
    }
    all
}

#[test]
fn documented_error_codes_and_statuses_are_the_servers() {
    // Answered only by the nginx front of deploy/ (docs/operations.md, "Deployment"), never by the server.
    let front: BTreeSet<(String, u64)> = [
        ("bad_gateway".to_string(), 502),
        ("gateway_timeout".to_string(), 504),
    ]
    .into();
    let mut documented = BTreeSet::new();
    for (name, s) in doc()["components"]["schemas"].as_object().unwrap() {
        if !name.starts_with("Error") {
            continue;
        }
        let detail = &s["properties"]["error"]["properties"];
        let status = detail["status"]["const"].as_u64().unwrap();
        for code in strings(&detail["code"]["enum"]) {
            documented.insert((code.to_string(), status));
        }
    }
    let servers: BTreeSet<(String, u64)> = every_error()
        .iter()
        .map(|e| (e.code().to_string(), u64::from(e.status())))
        .collect();
    // No operation can answer 405 (each documents only the methods it takes)
    // or 400 body_not_allowed (none takes a body), nor any of the HTTP layer's
    // refusals of a request no operation is chosen for (malformed, another
    // version, an Expect), so the document names them in its conventions
    // instead of a schema.
    let conventions = [
        (
            ("method_not_allowed".to_string(), 405),
            "405 method_not_allowed",
        ),
        (
            ("body_not_allowed".to_string(), 400),
            "400 body_not_allowed",
        ),
        (("bad_request".to_string(), 400), "400 bad_request"),
        (
            ("http_version_not_supported".to_string(), 505),
            "505 http_version_not_supported",
        ),
        (
            ("expectation_failed".to_string(), 417),
            "417 expectation_failed",
        ),
    ];
    let description = doc()["info"]["description"].as_str().unwrap();
    for (_, words) in &conventions {
        assert!(description.contains(words), "the conventions name {words}");
    }
    let expected: BTreeSet<_> = servers
        .iter()
        .filter(|p| conventions.iter().all(|(c, _)| c != *p))
        .cloned()
        .collect();
    let documented_servers: BTreeSet<_> = documented.difference(&front).cloned().collect();
    assert_eq!(documented_servers, expected);
    assert!(front.is_subset(&documented));
}

#[test]
fn documented_size_limits_are_the_servers() {
    let responses = &doc()["components"]["responses"];
    for (response, bytes) in [
        ("UriTooLong", MAX_TARGET_BYTES),
        ("HeadersTooLarge", MAX_HEADER_BYTES),
    ] {
        assert_eq!(bytes % 1024, 0, "{response}: a whole number of KiB");
        let text = responses[response]["description"].as_str().unwrap();
        let said = format!(" over {} KiB", bytes / 1024);
        assert!(text.contains(&said), "{response} says{said}: {text}");
    }
}

#[test]
fn documented_provinces_are_the_servers() {
    let names: Vec<&str> = PROVINCES.iter().map(|(_, name)| *name).collect();
    for form in ["AreaSummary", "SearchHit", "AreaDetail", "ExportArea"] {
        let province = &schema(form)["properties"]["province"];
        assert_eq!(strings(&province["enum"]), names, "{form}");
    }
}

#[test]
fn documented_dimensions_are_the_servers() {
    // serde_json reads objects into sorted maps, so the order is checked
    // where the document states it: in the description of the detail form.
    let keys = |form: &str| -> BTreeSet<String> {
        let props = &schema(form)["properties"]["dimensions"]["properties"];
        props.as_object().unwrap().keys().cloned().collect()
    };
    assert_eq!(keys("AreaDetail"), set(DIMENSIONS));
    assert_eq!(keys("ComparedArea"), set(DIMENSIONS));
    let detail = &schema("AreaDetail")["properties"]["dimensions"]["description"];
    let order = format!("in the order {}.", DIMENSIONS.join(", "));
    assert!(
        detail.as_str().unwrap().contains(&order),
        "{detail} says {order}"
    );
}

#[test]
fn documented_plans_are_the_servers() {
    let description = doc()["info"]["description"].as_str().unwrap();
    let plans: Vec<&str> = Plan::ALL.iter().map(|p| p.name()).collect();
    let said = format!("Keys are on a plan: {}.", plans.join(", "));
    assert!(description.contains(&said), "the description says {said}");
    let plan = &schema("KeyInfo")["properties"]["plan"]["enum"];
    assert_eq!(plan, &serde_json::json!(plans), "GET /v1/key's plans");
}

/// docs/api.md's account of forgiving search ("Search Areas") names
/// the contract's word lengths and tiers; its lines are read joined, as
/// Markdown wraps them anywhere.
#[test]
fn api_page_forgiving_search_names_the_contracts_bounds() {
    let readme = include_str!("../../docs/api.md");
    let text = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let tiers: Vec<String> = MATCH_TIERS
        .iter()
        .map(|t| format!("`{}`", t.name()))
        .collect();
    let said = [
        format!("a word of {TYPO_ONE_FROM} letters or more may be one edit"),
        format!("each part at least {SPLIT_PART_MIN} letters"),
        format!("for words of {TYPO_TWO_FROM} letters or more"),
        format!("A word of under {TYPO_ONE_FROM} letters gets no typo of its own"),
        format!("a `q` of more than {FORGIVING_WORDS_MAX} words matches exactly"),
        format!("`tier` ({})", tiers.join(", ")),
    ];
    let missing: Vec<&String> = said.iter().filter(|s| !text.contains(s.as_str())).collect();
    assert!(missing.is_empty(), "docs/api.md does not say: {missing:#?}");
}

/// docs/api.md's parameter tables ("List Areas", "Search Areas",
/// "Compare Areas", "Get Area History") name the same bounds and defaults.
#[test]
fn api_page_parameter_tables_name_the_contracts_bounds() {
    let readme = include_str!("../../docs/api.md");
    let ticked = |words: &[&str]| -> String {
        let quoted: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
        quoted.join(", ")
    };
    let (lat, lng, radius, score) = (LAT, LNG, RADIUS_KM, MIN_SCORE);
    let rows = [
        format!("| `limit` | {LIST_LIMIT_MIN} to {LIST_LIMIT_MAX} | {LIST_LIMIT_DEFAULT} |"),
        format!("| `offset` | {OFFSET_MIN} or more | {OFFSET_DEFAULT} |"),
        format!(
            "| `sort` | {} | `{}` |",
            ticked(&words(&SORTS)),
            word_of(&SORTS, SORT_DEFAULT)
        ),
        format!(
            "| `order` | {} | `{}` |",
            ticked(&words(&ORDERS)),
            word_of(&ORDERS, ORDER_DEFAULT)
        ),
        format!("| `q` | {Q_CHARS_MIN} to {Q_CHARS_MAX} characters (not bytes)"),
        format!(
            "| `lat`, `lng` | {} to {}, {} to {}; always together | none |",
            lat.min, lat.max, lng.min, lng.max
        ),
        format!(
            "greater than {} and at most {}; needs `lat` and `lng` | {RADIUS_KM_DEFAULT} |",
            radius.min, radius.max
        ),
        format!("| `min_score` | {} to {} | none |", score.min, score.max),
        format!("| `limit` | {SEARCH_LIMIT_MIN} to {SEARCH_LIMIT_MAX} | {SEARCH_LIMIT_DEFAULT} |"),
        format!("`ids`: {COMPARE_IDS_MIN} to {COMPARE_IDS_MAX} distinct area ids"),
        format!("| `period` | {} (", ticked(&words(&PERIODS))),
        format!(
            "| `granularity` | {} | `{}` |",
            ticked(&words(&GRANULARITIES)),
            word_of(&GRANULARITIES, GRANULARITY_DEFAULT)
        ),
    ];
    let missing: Vec<&String> = rows.iter().filter(|r| !readme.contains(*r)).collect();
    assert!(missing.is_empty(), "docs/api.md does not say: {missing:#?}");
    let province_row = readme
        .lines()
        .find(|l| l.starts_with("| `province` |"))
        .expect("docs/api.md lists the provinces");
    for (slug, _) in PROVINCES {
        assert!(province_row.contains(&format!("`{slug}`")), "{slug}");
    }
    assert_eq!(province_row.matches('`').count(), 2 * (PROVINCES.len() + 1));
    let match_row = readme
        .lines()
        .find(|l| l.starts_with("| `match` |"))
        .expect("docs/api.md's Search Areas table has match");
    let quoted: Vec<String> = words(&MATCHINGS).iter().map(|w| format!("`{w}`")).collect();
    let values = format!("| `match` | {}: ", quoted.join(" or "));
    let default = format!(" | `{}` |", word_of(&MATCHINGS, MATCHING_DEFAULT));
    assert!(
        match_row.starts_with(&values) && match_row.ends_with(&default),
        "{match_row} starts with {values} and ends with {default}"
    );
}
