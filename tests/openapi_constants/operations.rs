//! Each operation's query parameters against `api::contract`: names, bounds,
//! defaults and words, and the parsers that take exactly those names.

use std::collections::BTreeSet;

use area_scoring::api::contract::*;
use area_scoring::api::params;
use area_scoring::api::query::{Bounds, Query};
use area_scoring::error::ApiError;

use super::doc::*;

/// An integer parameter: its minimum, maximum and default.
pub fn assert_integer(path: &str, name: &str, min: i64, max: i64, default: i64) {
    let s = param(path, name);
    assert_eq!(s["type"], "integer", "{path} {name}");
    assert_eq!(s["minimum"].as_i64(), Some(min), "{path} {name} minimum");
    assert_eq!(s["maximum"].as_i64(), Some(max), "{path} {name} maximum");
    assert_eq!(
        s["default"].as_i64(),
        Some(default),
        "{path} {name} default"
    );
}

/// A word parameter: its enum, in the server's order, and its default.
pub fn assert_words(path: &str, name: &str, expected: &[&str], default: Option<&str>) {
    let s = param(path, name);
    assert_eq!(strings(&s["enum"]), expected, "{path} {name} enum");
    assert_eq!(s["default"].as_str(), default, "{path} {name} default");
}

/// A number parameter: `type: number` with the bounds of `b`, and no schema
/// default (generated clients send a default on every call).
fn assert_number(path: &str, name: &str, b: Bounds) {
    let s = param(path, name);
    assert_eq!(s["type"], "number", "{path} {name}");
    let min = if b.min_exclusive {
        "exclusiveMinimum"
    } else {
        "minimum"
    };
    let other = if b.min_exclusive {
        "minimum"
    } else {
        "exclusiveMinimum"
    };
    assert_eq!(s[min].as_f64(), Some(b.min), "{path} {name} {min}");
    assert!(s.get(other).is_none(), "{path} {name} has no {other}");
    assert_eq!(s["maximum"].as_f64(), Some(b.max), "{path} {name} maximum");
    assert!(s.get("exclusiveMaximum").is_none(), "{path} {name}");
    assert!(
        s.get("default").is_none(),
        "{path} {name} has no schema default"
    );
}

fn format_names(formats: &[Format]) -> Vec<&'static str> {
    formats.iter().map(|f| f.name()).collect()
}

fn provinces() -> Vec<&'static str> {
    PROVINCES.iter().map(|(slug, _)| *slug).collect()
}

#[test]
fn list_areas_parameters_match_the_contract() {
    let path = "/v1/areas";
    assert_eq!(names(path), set(LIST_PARAMS));
    assert_words(path, "province", &provinces(), None);
    assert_integer(
        path,
        "limit",
        LIST_LIMIT_MIN,
        LIST_LIMIT_MAX,
        LIST_LIMIT_DEFAULT,
    );
    assert_integer(path, "offset", OFFSET_MIN, OFFSET_MAX, OFFSET_DEFAULT);
    let sort = word_of(&SORTS, SORT_DEFAULT);
    assert_words(path, "sort", &words(&SORTS), Some(sort));
    let order = word_of(&ORDERS, ORDER_DEFAULT);
    assert_words(path, "order", &words(&ORDERS), Some(order));
    let formats = format_names(&LIST_FORMATS);
    assert_words(path, "format", &formats, Some(formats[0]));

    for page in ["AreaPage", "AreaFeatureCollection"] {
        let page = &schema(page)["properties"];
        assert_eq!(page["limit"]["minimum"].as_i64(), Some(LIST_LIMIT_MIN));
        assert_eq!(page["limit"]["maximum"].as_i64(), Some(LIST_LIMIT_MAX));
        assert_eq!(page["offset"]["minimum"].as_i64(), Some(OFFSET_MIN));
    }
    let page = &schema("AreaPage")["properties"];
    assert_eq!(page["data"]["maxItems"].as_i64(), Some(LIST_LIMIT_MAX));
}

#[test]
fn get_area_parameters_match_the_contract() {
    let path = "/v1/areas/{area_id}";
    assert_eq!(names(path), set(AREA_PARAMS));
    assert!(param(path, "include").get("default").is_none());
}

#[test]
fn search_parameters_match_the_contract() {
    let path = "/v1/areas/search";
    assert_eq!(names(path), set(SEARCH_PARAMS));
    let q = param(path, "q");
    assert_eq!(q["minLength"].as_u64(), Some(Q_CHARS_MIN as u64));
    assert_eq!(q["maxLength"].as_u64(), Some(Q_CHARS_MAX as u64));
    assert_number(path, "lat", LAT);
    assert_number(path, "lng", LNG);
    assert_number(path, "radius", RADIUS_KM);
    assert_number(path, "min_score", MIN_SCORE);
    assert_words(path, "province", &provinces(), None);
    let description = doc()["paths"][path]["get"]["description"].as_str().unwrap();
    assert!(
        description
            .contains("At least one of q, lat and lng, bbox, min_score, or province is required"),
        "Search says province is a criterion of its own: {description}"
    );
    let parameters = doc()["paths"][path]["get"]["parameters"]
        .as_array()
        .unwrap();
    let radius = parameters
        .iter()
        .map(resolve)
        .find(|p| p["name"] == "radius")
        .unwrap();
    let said = format!("{RADIUS_KM_DEFAULT} when lat and lng are given without it");
    assert!(
        radius["description"].as_str().unwrap().contains(&said),
        "radius says {said}"
    );
    assert_integer(
        path,
        "limit",
        SEARCH_LIMIT_MIN,
        SEARCH_LIMIT_MAX,
        SEARCH_LIMIT_DEFAULT,
    );
    assert_integer(path, "offset", OFFSET_MIN, OFFSET_MAX, OFFSET_DEFAULT);
    let formats = format_names(&LIST_FORMATS);
    assert_words(path, "format", &formats, Some(formats[0]));
    let matching = word_of(&MATCHINGS, MATCHING_DEFAULT);
    assert_words(path, "match", &words(&MATCHINGS), Some(matching));
    let described = resolve(
        parameters
            .iter()
            .find(|p| resolve(p)["name"] == "match")
            .unwrap(),
    )["description"]
        .as_str()
        .unwrap();
    for said in [
        format!("a word of {TYPO_ONE_FROM} letters or more one edit away"),
        format!("each part at least {SPLIT_PART_MIN} letters"),
        format!("a word of {TYPO_TWO_FROM} letters or more"),
        format!("A word of under {TYPO_ONE_FROM} letters gets no typo of its own"),
        format!("more than {FORGIVING_WORDS_MAX} words matches exactly"),
    ] {
        assert!(described.contains(&said), "match says {said}: {described}");
    }

    for (page, items) in [
        ("SearchPage", "data"),
        ("SearchFeatureCollection", "features"),
    ] {
        let page = &schema(page)["properties"];
        assert_eq!(page["limit"]["minimum"].as_i64(), Some(SEARCH_LIMIT_MIN));
        assert_eq!(page["limit"]["maximum"].as_i64(), Some(SEARCH_LIMIT_MAX));
        assert_eq!(page[items]["maxItems"].as_i64(), Some(SEARCH_LIMIT_MAX));
        assert_eq!(page["offset"]["minimum"].as_i64(), Some(OFFSET_MIN));
    }
    let distance = &schema("SearchHit")["properties"]["distance_km"];
    assert_eq!(distance["maximum"].as_f64(), Some(RADIUS_KM.max));
}

/// Search items, and only they, say how q found them: `match` is optional
/// on the search item (absent without q), in JSON and GeoJSON alike, and
/// List's items never have it.
#[test]
fn search_items_carry_the_match_of_the_contract() {
    let hit = schema("SearchHit");
    assert_eq!(
        hit["properties"]["match"]["$ref"],
        "#/components/schemas/SearchMatch"
    );
    assert!(
        !strings(&hit["required"]).contains(&"match"),
        "match is optional"
    );
    assert_eq!(hit["additionalProperties"], false);
    assert_eq!(
        schema("SearchFeature")["properties"]["properties"]["$ref"],
        "#/components/schemas/SearchHit"
    );
    let search_geojson =
        resolve(&doc()["paths"]["/v1/areas/search"]["get"]["responses"]["200"])["content"]
            [Format::GeoJson.media_type()]["schema"]["$ref"]
            .clone();
    assert_eq!(
        search_geojson,
        "#/components/schemas/SearchFeatureCollection"
    );

    for list_item in [
        schema("AreaSummary"),
        resolve(&schema("AreaFeature")["properties"]["properties"]),
    ] {
        assert!(
            list_item["properties"].get("match").is_none(),
            "{list_item}"
        );
        assert_eq!(list_item["additionalProperties"], false);
    }

    let m = schema("SearchMatch");
    let tiers: Vec<&str> = MATCH_TIERS.iter().map(|t| t.name()).collect();
    assert_eq!(strings(&m["properties"]["tier"]["enum"]), tiers);
    assert_eq!(strings(&m["required"]), ["tier", "other_name", "words"]);
    assert_eq!(m["additionalProperties"], false);
    let props = m["properties"].as_object().unwrap();
    assert_eq!(props.len(), 3, "tier, other_name and words only");
    assert_eq!(
        props["other_name"]["type"],
        serde_json::json!(["string", "null"])
    );
    assert_eq!(
        props["other_name"]["maxLength"].as_u64(),
        Some(MAX_TEXT as u64)
    );
    assert_eq!(props["words"]["type"], "array");
    assert_eq!(props["words"]["items"]["type"], "string");
}

#[test]
fn get_area_lists_other_names_within_the_imports_bounds() {
    let detail = schema("AreaDetail");
    assert!(strings(&detail["required"]).contains(&"other_names"));
    let names = &detail["properties"]["other_names"];
    assert_eq!(names["type"], "array");
    assert_eq!(names["maxItems"].as_u64(), Some(MAX_OTHER_NAMES as u64));
    assert_eq!(names["uniqueItems"], true);
    for text in [&names["items"], &detail["properties"]["name"]] {
        assert_eq!(text["type"], "string");
        assert_eq!(text["minLength"].as_u64(), Some(1));
        assert_eq!(text["maxLength"].as_u64(), Some(MAX_TEXT as u64));
    }
}

#[test]
fn export_parameters_match_the_contract() {
    let path = "/v1/areas/export";
    assert_eq!(names(path), set(EXPORT_PARAMS));
    assert_words(path, "province", &provinces(), None);
    let formats = format_names(&EXPORT_FORMATS);
    assert_words(path, "format", &formats, Some(formats[0]));
    let responses = &doc()["paths"][path]["get"]["responses"];
    assert!(responses.get("403").is_some(), "the export needs a plan");
    assert!(responses.get("503").is_some(), "too many exports in flight");
}

#[test]
fn compare_parameters_match_the_contract() {
    let path = "/v1/areas/compare";
    assert_eq!(names(path), set(COMPARE_PARAMS));
    let areas = &schema("Comparison")["properties"]["areas"];
    assert_eq!(areas["minItems"].as_u64(), Some(COMPARE_IDS_MIN as u64));
    assert_eq!(areas["maxItems"].as_u64(), Some(COMPARE_IDS_MAX as u64));
}

#[test]
fn history_parameters_match_the_contract() {
    let path = "/v1/areas/{area_id}/history";
    assert_eq!(names(path), set(HISTORY_PARAMS));
    assert_words(path, "period", &words(&PERIODS), Some(PERIOD_DEFAULT.0));
    let granularity = word_of(&GRANULARITIES, GRANULARITY_DEFAULT);
    assert_words(
        path,
        "granularity",
        &words(&GRANULARITIES),
        Some(granularity),
    );

    let body = &schema("AreaHistory")["properties"];
    assert_eq!(strings(&body["period"]["enum"]), words(&PERIODS));
    let longest = PERIODS.iter().map(|(_, days)| *days).max().unwrap();
    assert_eq!(body["history"]["maxItems"].as_i64(), Some(longest));
    let included = &schema("AreaDetail")["properties"]["history"];
    assert_eq!(included["maxItems"].as_i64(), Some(PERIOD_DEFAULT.1));
}

#[test]
fn public_operations_take_no_query_parameters() {
    for path in ["/v1/openapi.json", "/healthz", "/metrics"] {
        assert_eq!(names(path), BTreeSet::new(), "{path}");
    }
}

type Parser = fn(Query) -> Result<(), ApiError>;

/// Each API path and the parser of its parameters.
const PARSERS: [(&str, Parser); 7] = [
    ("/v1/key", params::none),
    ("/v1/areas", |q| params::list(q).map(drop)),
    ("/v1/areas/{area_id}", |q| params::area(q).map(drop)),
    ("/v1/areas/search", |q| params::search(q).map(drop)),
    ("/v1/areas/export", |q| params::export(q).map(drop)),
    ("/v1/areas/compare", |q| params::compare(q).map(drop)),
    ("/v1/areas/{area_id}/history", |q| {
        params::history(q).map(drop)
    }),
];

fn refused_as_unknown(parse: Parser, name: &str) -> bool {
    match parse(Query::parse(&format!("{name}="), &[name]).unwrap()) {
        Ok(()) => false,
        Err(e) => e.message().starts_with("unknown parameter"),
    }
}

#[test]
fn the_parsers_take_every_documented_parameter_and_no_other() {
    assert_eq!(PARSERS.len(), doc()["paths"].as_object().unwrap().len() - 3);
    for (path, parse) in PARSERS {
        for name in names(path) {
            assert!(!refused_as_unknown(parse, &name), "{path} takes {name}");
        }
        let undocumented = ["colour", "page", "per_page", "fields", "Limit"];
        for name in undocumented {
            assert!(refused_as_unknown(parse, name), "{path} refuses {name}");
        }
    }
}
