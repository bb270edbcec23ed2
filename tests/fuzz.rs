//! The query-string parser (docs/api.md "Parameters"), every endpoint's parameter
//! parser and the router, fuzzed and property-tested with proptest. No input
//! panics; every input is either parsed or refused with 400 invalid_parameter
//! naming a parameter; what is parsed holds the documented bounds;
//! percent-encoding round-trips. Then a few hundred random query strings
//! against a live server never answer 5xx.

use std::sync::OnceLock;

use crate::common::client::*;
use crate::common::server::*;
use crate::common::*;
use area_scoring::api::contract::{
    AREA_PARAMS, COMPARE_PARAMS, HISTORY_PARAMS, LIST_PARAMS, SEARCH_PARAMS,
};
use area_scoring::api::params;
use area_scoring::api::query::Query;
use area_scoring::api::router::{self, Route};
use area_scoring::domain::DIMENSIONS;
use area_scoring::error::ApiError;
use proptest::prelude::*;

fn config(cases: u32) -> ProptestConfig {
    // No regression files written into the source tree.
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Ok, or a 400 invalid_parameter that names a parameter.
fn refused_properly<T>(result: &Result<T, ApiError>) -> Result<(), TestCaseError> {
    if let Err(e) = result {
        prop_assert!(matches!(e, ApiError::InvalidParameter { .. }), "{e:?}");
        prop_assert_eq!(e.status(), 400);
        prop_assert_eq!(e.code(), "invalid_parameter");
        prop_assert!(e.param().is_some(), "{e:?}");
    }
    Ok(())
}

/// Runs every endpoint parser over one raw query string, parsed for that
/// endpoint's own parameters.
fn check_all_parsers(raw: &str) -> Result<(), TestCaseError> {
    let parse = |known: &[&str]| Query::parse(raw, known);
    for known in [
        &LIST_PARAMS[..],
        &SEARCH_PARAMS,
        &COMPARE_PARAMS,
        &AREA_PARAMS,
        &HISTORY_PARAMS,
        &[],
    ] {
        let parsed = parse(known);
        refused_properly(&parsed)?;
        if let Ok(q) = &parsed {
            prop_assert!(
                q.len() <= known.len(),
                "{raw:?} holds more pairs than {known:?}"
            );
        }
    }
    let Ok(list) = parse(&LIST_PARAMS).map(|q| params::list(q, None)) else {
        return Ok(());
    };
    refused_properly(&list)?;
    if let Ok(p) = list {
        prop_assert!((1..=100).contains(&p.limit) && p.offset >= 0, "{p:?}");
    }
    let Ok(search) = parse(&SEARCH_PARAMS).map(|q| params::search(q, None)) else {
        return Ok(());
    };
    refused_properly(&search)?;
    if let Ok(p) = search {
        prop_assert!((1..=50).contains(&p.limit));
        // A search needs one criterion (docs/api.md, "Search Areas").
        prop_assert!(
            !p.words.is_empty()
                || p.circle.is_some()
                || p.min_score.is_some()
                || p.bbox.is_some()
                || p.province.is_some()
        );
        prop_assert!(p.words.iter().all(|w| w.chars().any(char::is_alphanumeric)));
        if let Some(c) = p.circle {
            prop_assert!((-90.0..=90.0).contains(&c.lat) && (-180.0..=180.0).contains(&c.lng));
            prop_assert!(c.radius_km > 0.0 && c.radius_km <= 50.0);
        }
        prop_assert!(p.min_score.is_none_or(|s| (0.0..=10.0).contains(&s)));
    }
    let Ok(compare) = parse(&COMPARE_PARAMS).map(params::compare) else {
        return Ok(());
    };
    refused_properly(&compare)?;
    if let Ok(p) = compare {
        prop_assert!((2..=5).contains(&p.ids.len()));
        let mut ids = p.ids.clone();
        ids.sort();
        ids.dedup();
        prop_assert_eq!(ids.len(), p.ids.len());
        prop_assert!(p.ids.iter().all(|id| !id.is_empty()));
        for d in p.dimensions.iter().flatten() {
            prop_assert!(DIMENSIONS.contains(d));
        }
    }
    if let Ok(q) = parse(&AREA_PARAMS) {
        refused_properly(&params::area(q))?;
    }
    if let Ok(q) = parse(&HISTORY_PARAMS) {
        refused_properly(&params::history(q))?;
    }
    if let Ok(q) = parse(&[]) {
        refused_properly(&params::none(q))?;
    }
    Ok(())
}

const NAMES: [&str; 16] = [
    "limit",
    "offset",
    "province",
    "sort",
    "order",
    "q",
    "lat",
    "lng",
    "radius",
    "min_score",
    "ids",
    "dimensions",
    "include",
    "period",
    "granularity",
    "x",
];

/// Query strings built from real parameter names and number-like or arbitrary
/// values, so the fuzzing reaches past "unknown parameter".
fn structured_query() -> impl Strategy<Value = String> {
    let value = prop_oneof![
        "-?[0-9]{0,4}(\\.[0-9]{0,3})?",
        "[a-z_,]{0,20}",
        "(history|nearby|safety|schools|7d|1y|weekly|gauteng|asc|name)(,[a-z]{0,8}){0,3}",
        any::<String>().prop_map(|s| encode(&s)),
        "[%+&=a-f0-9]{0,12}",
    ];
    prop::collection::vec((prop::sample::select(&NAMES[..]), value), 0..5).prop_map(|pairs| {
        pairs
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    })
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn any_string_is_parsed_or_refused_with_400(raw in any::<String>()) {
        check_all_parsers(&raw)?;
    }

    #[test]
    fn any_bytes_are_parsed_or_refused_with_400(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check_all_parsers(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn structured_queries_are_parsed_or_refused_with_400(raw in structured_query()) {
        check_all_parsers(&raw)?;
    }

    #[test]
    fn percent_encoded_names_and_values_round_trip(
        pairs in prop::collection::btree_map("\\PC{1,12}", any::<String>(), 1..5),
        plus in any::<bool>(),
    ) {
        let raw: Vec<String> = pairs.iter().map(|(n, v)| {
            let value = if plus { encode(v).replace("%20", "+") } else { encode(v) };
            format!("{}={value}", encode(n))
        }).collect();
        let names: Vec<&str> = pairs.keys().map(String::as_str).collect();
        let mut query = Query::parse(&raw.join("&"), &names).expect("well-encoded pairs parse");
        for (name, value) in &pairs {
            let taken = query.take(name);
            prop_assert_eq!(taken.as_ref(), Some(value));
        }
        prop_assert!(query.finish(&[]).is_ok());
    }

    #[test]
    fn the_router_never_panics(path in any::<String>(), bytes in prop::collection::vec(any::<u8>(), 0..80)) {
        for p in [path.clone(), format!("/v1/areas/{path}"), String::from_utf8_lossy(&bytes).into_owned()] {
            if let Some(route) = router::resolve(&p) {
                // The browser pages: /, /docs, /explore, /favicon.ico, /web/FILE, and /docs/ and /explore/ (308 to the page).
                let page = matches!(route, Route::Page(_) | Route::PageWithSlash(_));
                prop_assert!(page || p.starts_with("/v1/") || p == "/healthz" || p == "/metrics", "{p:?}");
                if let Route::Page(name) = &route {
                    // Only a name: pages.rs serves files of its own table by it.
                    prop_assert!(name.starts_with('/'), "{p:?} -> {name:?}");
                }
                if let Route::GetArea(id) | Route::AreaHistory(id) = route {
                    prop_assert!(!id.is_empty());
                }
            }
        }
    }

    #[test]
    fn encoded_area_ids_route_to_that_id(id in "\\PC{1,30}") {
        prop_assume!(id != "search" && id != "compare");
        let segment = encode(&id);
        prop_assert_eq!(router::resolve(&format!("/v1/areas/{segment}")), Some(Route::GetArea(id.clone())));
        prop_assert_eq!(
            router::resolve(&format!("/v1/areas/{segment}/history")),
            Some(Route::AreaHistory(id))
        );
    }
}

/// One server for the HTTP-level fuzzing, with an unlimited key.
fn live() -> &'static (std::net::SocketAddr, String) {
    static LIVE: OnceLock<(std::net::SocketAddr, String)> = OnceLock::new();
    LIVE.get_or_init(|| {
        let (_, key, running) = start_keyed("fuzz", Plan::Enterprise);
        let addr = running.addr();
        std::mem::forget(running); // serves until the test process exits
        (addr, key)
    })
}

/// A query string a client could put on the wire: printable ASCII but space and '#'.
fn wire_query() -> impl Strategy<Value = String> {
    prop_oneof![structured_query(), "[!-\"$-~]{0,60}"]
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn random_query_strings_never_get_a_5xx(
        path in prop::sample::select(&[
            "/v1/areas", "/v1/areas/search", "/v1/areas/compare", "/v1/areas/sandton",
            "/v1/areas/sandton/history", "/healthz", "/v1/openapi.json",
        ][..]),
        query in wire_query(),
    ) {
        let (addr, key) = live();
        let r = get(*addr, &format!("{path}?{query}"), Some(key));
        prop_assert!(r.status < 500, "{} for {path}?{query}: {}", r.status, String::from_utf8_lossy(&r.body));
        if r.status != 200 {
            let body = r.json();
            prop_assert_eq!(&body["error"]["status"], r.status);
        }
    }
}
