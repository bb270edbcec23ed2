//! The document's schemas: every body the API answers, in each of its
//! forms, and the error bodies with the codes each status carries.

use serde_json::{Map, Value, json};

use super::{members, number, object, reference, with};
use crate::api::areas::{NEARBY_COUNT, NEARBY_RADIUS_KM};
use crate::api::contract::*;
use crate::error::ApiError;

/// Every schema, by name.
pub fn all() -> Value {
    let mut all = Map::new();
    for group in [
        area_forms(),
        pages(),
        detail(),
        answers(),
        features(),
        export(),
        errors(),
    ] {
        for (name, schema) in group {
            all.insert(name.to_string(), schema);
        }
    }
    Value::Object(all)
}

type Named = Vec<(&'static str, Value)>;

fn score() -> Value {
    json!({"type": "number", "minimum": number(MIN_SCORE.min), "maximum": number(MIN_SCORE.max), "description": "A score from 0 to 10 with at most 2 decimals."})
}

fn timestamp() -> Value {
    json!({
        "type": "string",
        "format": "date-time",
        "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$",
        "description": "ISO 8601 UTC timestamp with a Z, for example 2026-11-22T00:00:00Z.",
        "examples": ["2026-11-22T00:00:00Z"],
    })
}

fn date() -> Value {
    json!({"type": "string", "format": "date", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "Calendar date, YYYY-MM-DD."})
}

pub fn area_id() -> Value {
    json!({
        "type": "string",
        "minLength": 1,
        "maxLength": 64,
        "pattern": r"^[a-z0-9]+(?:-[a-z0-9]+)*$",
        "description": "Area identifier: a slug of lowercase letters a-z and digits in runs joined by single hyphens, at most 64 characters, such as cape-town.",
        "examples": ["cape-town"],
    })
}

/// Names and municipalities: none of their characters a control character.
pub fn text() -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": MAX_TEXT, "pattern": r"^[^\x00-\x1f\x7f-\x9f]+$"})
}

fn nullable_score() -> Value {
    json!({
        "type": ["number", "null"],
        "minimum": number(MIN_SCORE.min),
        "maximum": number(MIN_SCORE.max),
        "description": "The dimension's score, 0 to 10, or null where the area has no such dimension.",
    })
}

fn province_name() -> Value {
    let names: Vec<&str> = PROVINCES.iter().map(|(_, name)| *name).collect();
    json!({
        "type": "string",
        "enum": names,
        "description": "Province display name (the filter slug's display form, e.g. Western Cape for western-cape).",
    })
}

fn dimension_map(value: Value, description: &str, min_properties: usize) -> Value {
    let properties = members(DIMENSIONS.iter().map(|d| (*d, value.clone())));
    let mut schema = json!({"type": "object", "description": description, "properties": properties, "additionalProperties": false});
    if min_properties > 0 {
        schema["minProperties"] = json!(min_properties);
    }
    schema
}

/// Each dimension's score, null where the area has none: the export's columns.
fn dimension_columns() -> Vec<(&'static str, Value)> {
    DIMENSIONS.iter().map(|d| (*d, nullable_score())).collect()
}

/// The list form's fields, in the order answers give them: every form of an
/// area (list, search hit, export row, feature properties) begins with them.
fn list_form() -> Vec<(&'static str, Value)> {
    vec![
        ("id", area_id()),
        ("name", text()),
        ("province", province_name()),
        ("municipality", text()),
        ("truth_score", score()),
        ("updated_at", timestamp()),
    ]
}

const LIST_FORM_NAMES: [&str; 6] = [
    "id",
    "name",
    "province",
    "municipality",
    "truth_score",
    "updated_at",
];

/// total, limit and offset: what every page says of itself.
fn page_members(total: &str, limit_min: i64, limit_max: i64) -> Vec<(&'static str, Value)> {
    vec![
        (
            "total",
            json!({"type": "integer", "minimum": 0, "description": total}),
        ),
        (
            "limit",
            json!({"type": "integer", "minimum": limit_min, "maximum": limit_max, "description": "Page size in effect."}),
        ),
        (
            "offset",
            json!({"type": "integer", "minimum": OFFSET_MIN, "description": "Offset in effect."}),
        ),
    ]
}

const LIST_TOTAL: &str = "Number of areas matching the filter (not only this page).";
const SEARCH_TOTAL: &str = "Number of matching areas (every match, not only this page).";

fn area_forms() -> Named {
    let mut summary = list_form();
    summary[1].1 = with(text(), "description", json!("Display name."));
    let mut hit = list_form();
    hit.push(("distance_km", json!({
        "type": "number",
        "minimum": 0,
        "maximum": number(RADIUS_KM.max),
        "description": "Great-circle distance from (lat, lng) in km, 2 decimals. Present exactly when lat and lng are given.",
    })));
    hit.push(("match", reference("schemas", "SearchMatch")));
    let tiers: Vec<&str> = MATCH_TIERS.iter().map(|t| t.name()).collect();
    let other_name = with(
        with(text(), "type", json!(["string", "null"])),
        "description",
        json!(
            "The other name (Get Area's other_names) a word was found in, or null when none was."
        ),
    );
    vec![
        (
            "AreaSummary",
            object(members(summary), None, Some("An area in list form.")),
        ),
        (
            "SearchHit",
            object(
                members(hit),
                Some(&LIST_FORM_NAMES),
                Some(
                    "An area in list form, plus distance_km on a geo search and match on a search with q.",
                ),
            ),
        ),
        (
            "SearchMatch",
            object(
                json!({
                    "tier": {
                        "type": "string",
                        "enum": tiers,
                        "description": "How the area matched, best first: exact (every word exactly or as a prefix), other_name (a word only through one of the area's other names), one_typo (one edit, or two words joined or one split), two_typos. The tier of the area's weakest word.",
                    },
                    "other_name": other_name,
                    "words": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "The area's words, folded as search folds them (lower case, Latin diacritics dropped), that the query's words were taken for, in the query's order; a split word gives two.",
                    },
                }),
                None,
                Some(
                    "How a search item was found by q: present on every item of a search with q (JSON and GeoJSON), absent otherwise.",
                ),
            ),
        ),
    ]
}

fn pages() -> Named {
    let page = |item: &str, max: i64, total, min| {
        let mut m = vec![(
            "data",
            json!({"type": "array", "items": reference("schemas", item), "maxItems": max}),
        )];
        m.extend(page_members(total, min, max));
        members(m)
    };
    vec![
        (
            "AreaPage",
            object(
                page("AreaSummary", LIST_LIMIT_MAX, LIST_TOTAL, LIST_LIMIT_MIN),
                None,
                Some("One page of List Areas."),
            ),
        ),
        (
            "SearchPage",
            object(
                page(
                    "SearchHit",
                    SEARCH_LIMIT_MAX,
                    SEARCH_TOTAL,
                    SEARCH_LIMIT_MIN,
                ),
                None,
                Some(
                    "Search results: by relevance when q is given, else by distance when lat/lng are given, else by truth_score descending; ties by id.",
                ),
            ),
        ),
    ]
}

fn detail() -> Named {
    let dimensions = dimension_map(
        reference("schemas", "Dimension"),
        &format!(
            "Dimension name to its detail, in the order {}. The seed data has all seven; imported data has at least one.",
            DIMENSIONS.join(", ")
        ),
        1,
    );
    let other_names = json!({
        "type": "array",
        "maxItems": MAX_OTHER_NAMES,
        "uniqueItems": true,
        "items": text(),
        "description": format!("The area's other names (former names, short forms, other spellings), by which a forgiving search also finds it; at most {MAX_OTHER_NAMES}, empty when it has none."),
    });
    let area = json!({
        "id": area_id(),
        "name": text(),
        "province": province_name(),
        "municipality": text(),
        "truth_score": score(),
        "dimensions": dimensions,
        "coordinates": reference("schemas", "Coordinates"),
        "updated_at": timestamp(),
        "other_names": other_names,
        "nearby": {
            "type": "array",
            "maxItems": NEARBY_COUNT,
            "items": reference("schemas", "NearbyArea"),
            "description": format!("Only with include=nearby: up to {NEARBY_COUNT} other areas at most {NEARBY_RADIUS_KM} km away, nearest first (ties by id)."),
        },
        "history": {
            "type": "array",
            "maxItems": PERIOD_DEFAULT.1,
            "items": reference("schemas", "HistoryPoint"),
            "description": format!("Only with include=history ({} plan or above): the daily points of the last {} days, as Get Area History returns by default.", HISTORY_PLAN.name(), PERIOD_DEFAULT.1),
        },
    });
    let required = [
        "id",
        "name",
        "province",
        "municipality",
        "truth_score",
        "dimensions",
        "coordinates",
        "updated_at",
        "other_names",
    ];
    vec![
        (
            "Dimension",
            object(
                json!({
                    "score": score(),
                    "weight": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "description": "Fraction of truth_score this dimension carries; the weights of an area sum to 1 (within 0.01 for imported data)."},
                    "sources": {
                        "type": "array",
                        "minItems": 1,
                        "uniqueItems": true,
                        "items": {"type": "string", "pattern": "^[^,;\\x00-\\x20\\x7f-\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]{1,100}$"},
                        "description": "Identifiers of the data sources behind the score: 1 to 100 characters each, without spaces, ',' or ';'.",
                    },
                }),
                None,
                Some("One dimension of an area's score."),
            ),
        ),
        (
            "Coordinates",
            object(
                json!({
                    "lat": {"type": "number", "minimum": number(LAT.min), "maximum": number(LAT.max)},
                    "lng": {"type": "number", "minimum": number(LNG.min), "maximum": number(LNG.max)},
                }),
                None,
                Some("Centre point."),
            ),
        ),
        (
            "NearbyArea",
            object(
                json!({
                    "id": area_id(),
                    "name": text(),
                    "truth_score": score(),
                    "distance_km": {"type": "number", "minimum": 0, "maximum": number(NEARBY_RADIUS_KM), "description": "Distance from the area in km, 2 decimals."},
                }),
                None,
                Some(&format!("Another area at most {NEARBY_RADIUS_KM} km away.")),
            ),
        ),
        (
            "HistoryPoint",
            object(json!({"date": date(), "truth_score": score()}), None, None),
        ),
        (
            "AreaDetail",
            object(area, Some(&required), Some("An area in detail form.")),
        ),
    ]
}

fn answers() -> Named {
    let compared = dimension_map(
        score(),
        "Dimension name to its score: the names given in `dimensions`, else all seven.",
        0,
    );
    let by_dimension = dimension_map(
        json!({"type": "string", "description": "Id of the compared area with the highest score in this dimension."}),
        "Dimension name to the winning area's id, for the same dimensions as areas[].dimensions.",
        0,
    );
    let winner = object(
        json!({
            "overall": {"type": "string", "description": "Id of the area with the highest truth_score; a tie goes to the area listed first in ids."},
            "by_dimension": by_dimension,
        }),
        None,
        None,
    );
    let periods: Vec<&str> = PERIODS.iter().map(|(w, _)| *w).collect();
    let longest = PERIODS.iter().map(|(_, days)| *days).max();
    vec![
        (
            "ComparedArea",
            object(
                json!({"id": area_id(), "name": text(), "truth_score": score(), "dimensions": compared}),
                None,
                None,
            ),
        ),
        (
            "Comparison",
            object(
                json!({
                    "areas": {"type": "array", "minItems": COMPARE_IDS_MIN, "maxItems": COMPARE_IDS_MAX, "items": reference("schemas", "ComparedArea"), "description": "In the order of ids."},
                    "winner": winner,
                }),
                None,
                None,
            ),
        ),
        (
            "AreaHistory",
            object(
                json!({
                    "area_id": area_id(),
                    "period": {"type": "string", "enum": periods},
                    "history": {
                        "type": "array",
                        "maxItems": longest,
                        "items": reference("schemas", "HistoryPoint"),
                        "description": "Oldest first. daily: one point per day of the window (the N days ending on the area's latest history date); weekly: the mean of each ISO week, dated by its Monday; monthly: the mean of each calendar month, dated the 1st. Partial weeks and months at the edges count.",
                    },
                    "trend": {"type": "string", "enum": ["up", "down", "stable"], "description": "up when change >= 0.1, down when change <= -0.1, else stable."},
                    "change": {"type": "number", "minimum": -10, "maximum": 10, "description": "Last returned point minus the first, in score points, 2 decimals."},
                }),
                None,
                None,
            ),
        ),
        ("KeyInfo", key_info()),
        (
            "Health",
            object(
                json!({
                    "status": {
                        "type": "string",
                        "enum": ["ok", "degraded"],
                        "description": "degraded: the last reload was refused and the previous data serves on, until a reload succeeds (still 200, so that a balancer keeps the server).",
                    },
                    "reason": {"type": "string", "description": "Why the server is degraded; only then."},
                    "areas": {"type": "integer", "minimum": 0, "description": "Number of areas being served."},
                    "dataset": reference("schemas", "DatasetIdentity"),
                }),
                Some(&["status", "areas", "dataset"]),
                None,
            ),
        ),
        ("DatasetIdentity", dataset_identity()),
    ]
}

fn key_info() -> Value {
    let plans: Vec<&str> = Plan::ALL.iter().map(|p| p.name()).collect();
    let rate_limit = object(
        json!({
            "requests_per_minute": {"type": ["integer", "null"], "minimum": 1, "description": "The plan's limit; null when unlimited."},
            "remaining": {"type": ["integer", "null"], "minimum": 0, "description": "Requests left in the bucket (this request takes none); null when unlimited."},
        }),
        None,
        Some("The key's rate limit, as the RateLimit and X-RateLimit-* headers give it."),
    );
    let usage_today = object(
        json!({
            "day": {"type": "string", "format": "date", "description": "Today in UTC."},
            "ok": {"type": "integer", "minimum": 0, "description": "Requests answered 2xx or 304."},
            "errors": {"type": "integer", "minimum": 0, "description": "Requests answered with any other 4xx or 5xx."},
            "rate_limited": {"type": "integer", "minimum": 0, "description": "Requests answered 429."},
        }),
        None,
        Some(
            "The key's requests today before this one, on every server sharing the keys file (those of the last few seconds may not be in yet).",
        ),
    );
    object(
        json!({
            "key_id": {"type": "string", "pattern": "^key_[0-9a-f]{12}$", "description": "The key's public id, as `area-scoring keys list` shows it."},
            "plan": {"type": "string", "enum": plans, "description": "The key's plan."},
            "rate_limit": rate_limit,
            "usage_today": usage_today,
        }),
        None,
        None,
    )
}

fn dataset_identity() -> Value {
    let source = object(
        json!({
            "file": {"type": ["string", "null"], "description": "The imported file's name, or seed or synthetic."},
            "sha256": {"type": ["string", "null"], "pattern": "^[0-9a-f]{64}$", "description": "SHA-256 of the source file's bytes; null without one."},
        }),
        None,
        None,
    );
    object(
        json!({
            "made_at": {"type": ["string", "null"], "format": "date-time", "description": "When the dataset file was written (UTC); null for a file that does not record it."},
            "source": source,
            "read_with": {"type": "string", "description": "The flags the source was read with, when any change what the same bytes make."},
            "build": {"type": ["string", "null"], "description": "The build that wrote the file (area-scoring and its version)."},
            "areas": {"type": ["integer", "null"], "minimum": 0, "description": "The areas the file was written with."},
            "loaded_at": {"type": "string", "format": "date-time", "description": "When this server opened the file (UTC)."},
        }),
        Some(&["made_at", "source", "build", "areas", "loaded_at"]),
        None,
    )
}

/// A GeoJSON Feature of an area: its id, its centre, and `properties`.
fn feature(properties: Value, description: &str) -> Value {
    object(
        json!({
            "type": {"type": "string", "const": "Feature"},
            "id": area_id(),
            "geometry": reference("schemas", "Point"),
            "properties": properties,
        }),
        None,
        Some(description),
    )
}

/// A page as a FeatureCollection, its paging members foreign members.
fn feature_page(feature: &str, max: i64, total: &str, min: i64, description: &str) -> Value {
    let mut m = vec![
        (
            "type",
            json!({"type": "string", "const": "FeatureCollection"}),
        ),
        (
            "features",
            json!({"type": "array", "items": reference("schemas", feature), "maxItems": max}),
        ),
    ];
    m.extend(page_members(total, min, max));
    object(members(m), None, Some(description))
}

fn features() -> Named {
    let point = object(
        json!({
            "type": {"type": "string", "const": "Point"},
            "coordinates": {
                "type": "array",
                "items": {"type": "number"},
                "minItems": 2,
                "maxItems": 2,
                "description": "[lng, lat] in degrees (RFC 7946 order: longitude first).",
                "examples": [[18.42322, -33.92584]],
            },
        }),
        None,
        Some("The area's centre as a GeoJSON Point."),
    );
    let collection = |name| {
        format!(
            "A page of {name} as an RFC 7946 FeatureCollection (format=geojson, or Accept: application/geo+json); total, limit and offset are foreign members."
        )
    };
    vec![
        ("Point", point),
        (
            "AreaFeature",
            feature(
                reference("schemas", "AreaSummary"),
                "An area as a GeoJSON Feature: its id, its centre, and the list form's fields as flat properties.",
            ),
        ),
        (
            "AreaFeatureCollection",
            feature_page(
                "AreaFeature",
                LIST_LIMIT_MAX,
                LIST_TOTAL,
                LIST_LIMIT_MIN,
                &collection("List Areas"),
            ),
        ),
        (
            "SearchFeature",
            feature(
                reference("schemas", "SearchHit"),
                "A search item as a GeoJSON Feature: its id, its centre, and the search item's fields as properties (distance_km on a geo search, match on a search with q).",
            ),
        ),
        (
            "SearchFeatureCollection",
            feature_page(
                "SearchFeature",
                SEARCH_LIMIT_MAX,
                SEARCH_TOTAL,
                SEARCH_LIMIT_MIN,
                &collection("Search Areas"),
            ),
        ),
    ]
}

fn export() -> Named {
    let mut row = list_form();
    row.push((
        "lat",
        json!({"type": "number", "minimum": number(LAT.min), "maximum": number(LAT.max)}),
    ));
    row.push((
        "lng",
        json!({"type": "number", "minimum": number(LNG.min), "maximum": number(LNG.max)}),
    ));
    row.extend(dimension_columns());
    let mut properties = list_form();
    properties.extend(dimension_columns());
    vec![
        (
            "ExportArea",
            object(
                members(row),
                None,
                Some(
                    "An area as the export carries it: the list form's fields, its centre, and each dimension's score (null where the area has no such dimension).",
                ),
            ),
        ),
        (
            "ExportPage",
            object(
                json!({
                    "data": {"type": "array", "items": reference("schemas", "ExportArea"), "description": "Every area (of the province, if given), ordered by id."},
                    "total": {"type": "integer", "minimum": 0, "description": "Number of areas in data."},
                }),
                None,
                Some("The export as one JSON document."),
            ),
        ),
        (
            "ExportFeature",
            feature(
                object(members(properties), None, None),
                "An exported area as a GeoJSON Feature: the list form's fields and each dimension's score as flat properties.",
            ),
        ),
        (
            "ExportFeatureCollection",
            object(
                json!({
                    "type": {"type": "string", "const": "FeatureCollection"},
                    "features": {"type": "array", "items": reference("schemas", "ExportFeature")},
                    "total": {"type": "integer", "minimum": 0, "description": "Number of features."},
                }),
                None,
                Some(
                    "The export as an RFC 7946 FeatureCollection, ordered by id; total is a foreign member.",
                ),
            ),
        ),
        (
            "OpenApiDocument",
            json!({
                "type": "object",
                "description": "This document.",
                "required": ["openapi", "info", "paths"],
                "properties": {"openapi": {"type": "string", "pattern": r"^3\.1\."}},
            }),
        ),
    ]
}

/// The error body of `status` with `codes`, and the fields beside the
/// message that a client's code acts on (`fields`; those in `required` are
/// always there).
fn error_schema(
    status: u16,
    codes: &[&str],
    fields: Vec<(&'static str, Value)>,
    required: &[&str],
) -> Value {
    let mut detail = vec![
        (
            "code",
            json!({"type": "string", "enum": codes, "description": "Machine-readable code."}),
        ),
        (
            "message",
            json!({
                "type": "string",
                "minLength": 1,
                "description": "What was wrong and what is allowed, for a person to read; for a missing area it names the id. Code should act on code and the fields beside it, never on this text.",
            }),
        ),
        (
            "status",
            json!({"type": "integer", "const": status, "description": "Equal to the HTTP status."}),
        ),
    ];
    detail.extend(fields);
    let required = [&["code", "message", "status"][..], required].concat();
    object(
        json!({"error": object(members(detail), Some(&required), None)}),
        None,
        None,
    )
}

/// The error schema of what the server answers as `errors`: one status, their codes.
fn server_error(
    errors: &[ApiError],
    fields: Vec<(&'static str, Value)>,
    required: &[&str],
) -> Value {
    let status = errors[0].status();
    assert!(
        errors.iter().all(|e| e.status() == status),
        "one status a schema"
    );
    let codes: Vec<&str> = errors.iter().map(ApiError::code).collect();
    error_schema(status, &codes, fields, required)
}

fn described(schema: Value, description: &str) -> Value {
    let mut out = json!({"type": schema["type"].clone(), "description": description});
    for (k, v) in schema.as_object().expect("an object schema").iter().skip(1) {
        out[k.as_str()] = v.clone();
    }
    out
}

fn errors() -> Named {
    let plans: Vec<&str> = Plan::ALL.iter().map(|p| p.name()).collect();
    let invalid = vec![
        (
            "param",
            json!({"type": "string", "description": "The query parameter at fault: for a query of more pairs than the operation has parameters, the first of them that is unknown or repeated."}),
        ),
        (
            "allowed",
            json!({
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "uniqueItems": true,
                "description": "Present when the parameter must be one of a set of words: the words it may take, in the order the document lists them (sort, order, province, format, match, period, granularity, and each item of include and dimensions); for a parameter the operation does not take, the operation's parameter names, in the order the document lists them (absent where it takes none). Absent for a bound, a grammar, a repeat or a count (a number out of range, a malformed bbox, a parameter given twice, a list of too many items).",
            }),
        ),
    ];
    assert_eq!(
        HISTORY_PLAN, EXPORT_PLAN,
        "the description names one plan for both"
    );
    let plan = vec![
        (
            "required_plan",
            json!({"type": "string", "enum": plans, "description": format!("The lowest plan that may do what was asked (score history and the export: {}).", HISTORY_PLAN.name())}),
        ),
        (
            "plan",
            json!({"type": "string", "enum": plans, "description": "The calling key's plan."}),
        ),
        (
            "param",
            json!({
                "type": "string",
                "enum": AREA_PARAMS,
                "description": "The query parameter that asked for what the plan does not allow (include, for include=history); absent when the operation itself needs the plan (Get Area History, Export Areas).",
            }),
        ),
    ];
    let ids = vec![(
        "ids",
        json!({
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "minItems": 1,
            "maxItems": COMPARE_IDS_MAX,
            "description": "area_not_found only, and always: the ids no area has, as given and in the order asked (Get Area and Get Area History: the path's id; Compare: every unknown id of ids). not_found has no ids.",
        }),
    )];
    let refused = ApiError::PlanUpgradeRequired {
        feature: "",
        needed: HISTORY_PLAN,
        have: Plan::Free,
        param: None,
    };
    let area_not_found = ApiError::AreaNotFound { ids: Vec::new() };
    let not_found = ApiError::NotFound {
        path: String::new(),
    };
    let mut unknown_area = server_error(&[area_not_found.clone(), not_found.clone()], ids, &[]);
    let detail = &mut unknown_area["properties"]["error"];
    detail["if"] = json!({"properties": {"code": {"const": area_not_found.code()}}});
    detail["then"] = json!({"required": ["ids"]});
    detail["else"] = json!({"not": {"required": ["ids"]}});
    let front = |status, code, why: &str| {
        described(
            error_schema(status, &[code], Vec::new(), &[]),
            &format!(
                "Answered by the nginx front of deploy/ when no replica answers{why} (deployments behind it only)."
            ),
        )
    };
    vec![
        (
            "ErrorInvalidParameter",
            server_error(&[ApiError::invalid("", "")], invalid, &["param"]),
        ),
        (
            "ErrorUnauthorized",
            server_error(
                &[ApiError::MissingApiKey, ApiError::InvalidApiKey],
                Vec::new(),
                &[],
            ),
        ),
        (
            "ErrorPlanUpgradeRequired",
            server_error(&[refused], plan, &["required_plan", "plan"]),
        ),
        (
            "ErrorAreaNotFound",
            described(
                unknown_area,
                "area_not_found lists every unknown id in ids; not_found answers a path that no route has (an id that changes the path's shape, such as one with a slash), without ids.",
            ),
        ),
        ("ErrorNotFound", server_error(&[not_found], Vec::new(), &[])),
        (
            "ErrorUriTooLong",
            server_error(&[ApiError::UriTooLong], Vec::new(), &[]),
        ),
        (
            "ErrorRateLimited",
            described(
                server_error(
                    &[
                        ApiError::RateLimited {
                            retry_after_secs: 0,
                        },
                        ApiError::TooManyUnknownKeys {
                            retry_after_secs: 0,
                        },
                    ],
                    Vec::new(),
                    &[],
                ),
                "rate_limited: the calling key has spent its plan's budget; waiting Retry-After seconds helps. too_many_unknown_keys: the client has spent its budget of requests without a valid key; its key is missing, unknown or revoked, and no wait makes it valid: send a valid key (the message names no plan).",
            ),
        ),
        (
            "ErrorHeadersTooLarge",
            server_error(&[ApiError::HeadersTooLarge], Vec::new(), &[]),
        ),
        (
            "ErrorInternal",
            server_error(&[ApiError::Internal], Vec::new(), &[]),
        ),
        ("ErrorBadGateway", front(502, "bad_gateway", "")),
        (
            "ErrorServiceUnavailable",
            server_error(&[ApiError::ServiceUnavailable], Vec::new(), &[]),
        ),
        (
            "ErrorUpgradeRequired",
            server_error(&[ApiError::UpgradeRequired], Vec::new(), &[]),
        ),
        (
            "ErrorGatewayTimeout",
            front(504, "gateway_timeout", " in time"),
        ),
    ]
}
