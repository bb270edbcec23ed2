//! Every error the server can write is documented: in a schema, with its
//! status, or in the conventions where no operation can answer it.

use std::collections::BTreeSet;

use area_scoring::api::contract::*;
use area_scoring::error::ApiError;

use super::doc::*;

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
        ApiError::NoAreaHere {
            lat: -29.31,
            lng: 27.48,
            radius_km: 10.0,
        },
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
            | ApiError::NoAreaHere { .. }
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
