//! The document's schemas: every body the API answers, in each of its
//! forms, and the error bodies with the codes each status carries.

use serde_json::{Value, json};

use super::{number, reference};
use crate::api::areas::{NEARBY_COUNT, NEARBY_RADIUS_KM};
use crate::api::contract::*;
use crate::api::render::LIST_FIELDS;
use crate::error::ApiError;

/// A closed object schema from `{"description"?, "properties", "required"?}`:
/// every property required unless `required` says which, no other allowed.
fn closed(spec: Value) -> Value {
    let mut schema = json!({"type": "object"});
    if let Some(description) = spec.get("description") {
        schema["description"] = description.clone();
    }
    let names = spec["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect::<Vec<_>>());
    schema["properties"] = spec["properties"].clone();
    schema["required"] = spec
        .get("required")
        .cloned()
        .unwrap_or_else(|| json!(names));
    schema["additionalProperties"] = json!(false);
    schema
}

/// The members of `first`, then those of `then`.
fn joined(mut first: Value, then: Value) -> Value {
    if let (Some(a), Value::Object(b)) = (first.as_object_mut(), then) {
        a.extend(b);
    }
    first
}

fn score() -> Value {
    let (min, max) = (number(MIN_SCORE.min), number(MIN_SCORE.max));
    json!({"type": "number", "minimum": min, "maximum": max, "description": "A score from 0 to 10 with at most 2 decimals."})
}

fn nullable_score() -> Value {
    let (min, max) = (number(MIN_SCORE.min), number(MIN_SCORE.max));
    json!({"type": ["number", "null"], "minimum": min, "maximum": max, "description": "The dimension's score, 0 to 10, or null where the area has no such dimension."})
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

fn area_id() -> Value {
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
fn text() -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": MAX_TEXT, "pattern": r"^[^\x00-\x1f\x7f-\x9f]+$"})
}

fn province_slug() -> Value {
    let slugs: Vec<&str> = PROVINCES.iter().map(|(slug, _)| *slug).collect();
    json!({"type": "string", "enum": slugs, "description": "The province's slug: the value the province filter takes for it (gauteng for Gauteng)."})
}

fn province_name() -> Value {
    let names: Vec<&str> = PROVINCES.iter().map(|(_, name)| *name).collect();
    json!({"type": "string", "enum": names, "description": "Province display name (the filter slug's display form, e.g. Western Cape for western-cape)."})
}

/// An object keyed by dimension name, each member of `value`.
fn dimension_map(value: Value, description: &str) -> Value {
    let properties: serde_json::Map<String, Value> = DIMENSIONS
        .iter()
        .map(|d| (d.to_string(), value.clone()))
        .collect();
    json!({"type": "object", "description": description, "properties": properties, "additionalProperties": false})
}

/// Each dimension's score, null where the area has none: the export's columns.
fn dimension_columns() -> Value {
    Value::Object(
        DIMENSIONS
            .iter()
            .map(|d| (d.to_string(), nullable_score()))
            .collect(),
    )
}

/// The list form's fields, in the order answers give them: every form of an
/// area (list, search hit, export row, feature properties) begins with them.
fn list_form() -> Value {
    let form = json!({"id": area_id(), "name": text(), "province": province_name(), "province_slug": province_slug(), "municipality": text(), "truth_score": score(), "updated_at": timestamp()});
    let names: Vec<&String> = form
        .as_object()
        .map(|f| f.keys().collect())
        .unwrap_or_default();
    assert_eq!(
        names, LIST_FIELDS,
        "the list form's fields, as answers give them"
    );
    form
}

/// data, total, limit and offset: what every page says of itself.
fn page(items: &str, item: &str, max: i64, min: i64, total: &str, description: &str) -> Value {
    let head = if items == "data" {
        json!({})
    } else {
        json!({"type": {"type": "string", "const": "FeatureCollection"}})
    };
    closed(
        json!({"description": description, "properties": joined(head, json!({
            items: {"type": "array", "items": reference("schemas", item), "maxItems": max},
            "total": {"type": "integer", "minimum": 0, "description": total},
            "limit": {"type": "integer", "minimum": min, "maximum": max, "description": "Page size in effect."},
            "offset": {"type": "integer", "minimum": OFFSET_MIN, "description": "Offset in effect."},
        }))}),
    )
}

const LIST_TOTAL: &str =
    "Number of areas matching the filter (not only this page); with ids, of the areas found.";

/// A page of List with `missing`, which only an answer to ids= has.
fn with_missing(mut page: Value) -> Value {
    page["properties"]["missing"] = json!({
        "type": "array",
        "items": {"type": "string"},
        "maxItems": LIST_IDS_MAX,
        "uniqueItems": true,
        "description": "Only with ids: the ids given that the answer does not hold (no area has the id, malformed ones included, or province leaves it out), in the order given. Every id given is in data or here; empty when all were found.",
    });
    page
}
const SEARCH_TOTAL: &str = "Number of matching areas (every match, not only this page).";

/// A GeoJSON Feature of an area: its id, its centre, and `properties`.
fn feature(properties: Value, description: &str) -> Value {
    feature_of(reference("schemas", "Point"), properties, description)
}

/// A GeoJSON Feature of an area whose geometry is `geometry`.
fn feature_of(geometry: Value, properties: Value, description: &str) -> Value {
    closed(json!({"description": description, "properties": {
        "type": {"type": "string", "const": "Feature"},
        "id": area_id(),
        "geometry": geometry,
        "properties": properties,
    }}))
}

/// An area's boundary, or null for an area without one.
fn boundary_or_null(description: &str) -> Value {
    json!({"description": description, "anyOf": [reference("schemas", "Boundary"), {"type": "null"}]})
}

/// A boundary in a FeatureCollection, always a MultiPolygon, or null.
fn multi_or_null() -> Value {
    json!({"description": "The boundary as a MultiPolygon (a Polygon as one part), or null for an area without one.", "anyOf": [reference("schemas", "MultiPolygon"), {"type": "null"}]})
}

/// Every schema, by name.
pub fn all() -> Value {
    let mut all = joined(lists(), detail());
    for more in [
        answers(),
        geojson(),
        boundaries(),
        export(),
        errors(),
        super::stats::schemas(),
    ] {
        all = joined(all, more);
    }
    all
}

fn lists() -> Value {
    let tiers: Vec<&str> = MATCH_TIERS.iter().map(|t| t.name()).collect();
    let mut other_name = text();
    other_name["type"] = json!(["string", "null"]);
    other_name["description"] = json!(
        "The other name (Get Area's other_names) a word was found in, or null when none was."
    );
    let mut summary = list_form();
    summary["name"]["description"] = json!("Display name.");
    let hit = joined(
        list_form(),
        json!({
            "distance_km": {"type": "number", "minimum": 0, "maximum": number(RADIUS_KM.max), "description": "Great-circle distance from (lat, lng) in km, 2 decimals. Present exactly when lat and lng are given."},
            "match": reference("schemas", "SearchMatch"),
        }),
    );
    json!({
        "AreaSummary": closed(json!({"description": "An area in list form.", "properties": summary})),
        "SearchHit": closed(json!({"description": "An area in list form, plus distance_km on a geo search and match on a search with q.", "properties": hit, "required": LIST_FIELDS})),
        "SearchMatch": closed(json!({"description": "How a search item was found by q: present on every item of a search with q (JSON and GeoJSON), absent otherwise.", "properties": {
            "tier": {"type": "string", "enum": tiers, "description": "How the area matched, best first: exact (every word exactly or as a prefix), other_name (a word only through one of the area's other names), one_typo (one edit, or two words joined or one split), two_typos. The tier of the area's weakest word."},
            "other_name": other_name,
            "words": {"type": "array", "items": {"type": "string"}, "description": "The area's words, folded as search folds them (lower case, Latin diacritics dropped), that the query's words were taken for, in the query's order; a split word gives two."},
        }})),
        "AreaPage": with_missing(page("data", "AreaSummary", LIST_LIMIT_MAX, LIST_LIMIT_MIN, LIST_TOTAL, "One page of List Areas, or with ids the areas asked for, in the order given (limit is the number of ids, offset 0).")),
        "SearchPage": page("data", "SearchHit", SEARCH_LIMIT_MAX, SEARCH_LIMIT_MIN, SEARCH_TOTAL, "Search results: by relevance when q is given, else by distance when lat/lng are given, else by truth_score descending; ties by id."),
    })
}

fn detail() -> Value {
    let mut dimensions = dimension_map(
        reference("schemas", "Dimension"),
        &format!(
            "Dimension name to its detail, in the order {}. The seed data has all seven; imported data has at least one.",
            DIMENSIONS.join(", ")
        ),
    );
    dimensions["minProperties"] = json!(1);
    let (history_days, plan) = (PERIOD_DEFAULT.1, HISTORY_PLAN.name());
    let near_m = NEAR_BOUNDARY_KM * 1000.0;
    let at_required = [&DETAIL_REQUIRED[..], &["located"]].concat();
    let area_properties = json!({
            "id": area_id(),
            "name": text(),
            "province": province_name(),
            "province_slug": province_slug(),
            "municipality": text(),
            "truth_score": score(),
            "dimensions": dimensions,
            "coordinates": reference("schemas", "Coordinates"),
            "updated_at": timestamp(),
            "other_names": {"type": "array", "maxItems": MAX_OTHER_NAMES, "uniqueItems": true, "items": text(), "description": format!("The area's other names (former names, short forms, other spellings), by which a forgiving search also finds it; at most {MAX_OTHER_NAMES}, empty when it has none.")},
            "nearby": {"type": "array", "maxItems": NEARBY_COUNT, "items": reference("schemas", "NearbyArea"), "description": format!("Only with include=nearby: up to {NEARBY_COUNT} other areas at most {NEARBY_RADIUS_KM} km away, nearest first (ties by id).")},
            "history": {"type": "array", "maxItems": history_days, "items": reference("schemas", "HistoryPoint"), "description": format!("Only with include=history ({plan} plan or above): the daily points of the last {history_days} days, as Get Area History returns by default.")},
        "boundary": boundary_or_null("Only with include=boundary: the area's boundary, or null for an area without one."),
        "rank": super::stats::rank_member("it has"),
    });
    json!({
        "Dimension": closed(json!({"description": "One dimension of an area's score.", "properties": {
            "score": score(),
            "weight": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "description": "Fraction of truth_score this dimension carries; the weights of an area sum to 1 (within 0.01 for imported data)."},
            "sources": {
                "type": "array",
                "minItems": 1,
                "uniqueItems": true,
                "items": {"type": "string", "pattern": r"^[^,;\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]{1,100}$"},
                "description": "Identifiers of the data sources behind the score: 1 to 100 characters each, without spaces, ',' or ';'.",
            },
        }})),
        "Coordinates": closed(json!({"description": "Centre point.", "properties": {
            "lat": {"type": "number", "minimum": number(LAT.min), "maximum": number(LAT.max)},
            "lng": {"type": "number", "minimum": number(LNG.min), "maximum": number(LNG.max)},
        }})),
        "NearbyArea": closed(json!({"description": format!("Another area at most {NEARBY_RADIUS_KM} km away."), "properties": {
            "id": area_id(),
            "name": text(),
            "truth_score": score(),
            "distance_km": {"type": "number", "minimum": 0, "maximum": number(NEARBY_RADIUS_KM), "description": "Distance from the area in km, 2 decimals."},
        }})),
        "HistoryPoint": closed(json!({"properties": {"date": {"type": "string", "format": "date", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "Calendar date, YYYY-MM-DD."}, "truth_score": score()}})),
        "AreaDetail": closed(json!({"description": "An area in detail form.", "properties": area_properties.clone(), "required": DETAIL_REQUIRED})),
        "AreaAt": closed(json!({"description": "The area at a point: the area in detail form, with located.", "properties": joined(json!({"located": reference("schemas", "Located")}), area_properties), "required": at_required})),
        "Located": closed(json!({"description": "How the area at a point was found.", "properties": {
            "by": {"type": "string", "enum": ["boundary", "near_boundary", "nearest"], "description": format!("boundary: the point is in the area's boundary (edges and vertices included), the smallest of those that hold it; near_boundary: in none, but within {near_m} m of this area's; nearest: the nearest centre, within radius, of the areas without a boundary.")},
            "distance_km": {"type": "number", "minimum": 0, "description": "0 for boundary; else the distance from the point to the boundary (near_boundary) or to the centre (nearest), in km, 2 decimals."},
            "also": {"type": "array", "items": area_id(), "uniqueItems": true, "description": "boundary only: the other areas whose boundaries hold the point, smallest first (ties by id); empty otherwise."},
        }})),
    })
}

/// The members an area in detail form always has.
const DETAIL_REQUIRED: [&str; 10] = [
    "id",
    "name",
    "province",
    "province_slug",
    "municipality",
    "truth_score",
    "dimensions",
    "coordinates",
    "updated_at",
    "other_names",
];

/// Boundaries as GeoJSON geometries, and the GeoJSON paths' features with
/// geometry=boundary.
fn boundaries() -> Value {
    let position = json!({"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2, "description": "[lng, lat] in degrees."});
    let ring = json!({"type": "array", "items": position, "minItems": 4, "description": "A closed ring: its last position is its first."});
    let rings = json!({"type": "array", "items": ring, "minItems": 1, "description": "The exterior ring (counter-clockwise, RFC 7946), then any holes (clockwise)."});
    let collection = |item: &str, max: i64, min: i64, total: &str, name: &str| {
        page(
            "features",
            item,
            max,
            min,
            total,
            &format!(
                "A page of {name} with geometry=boundary: each feature's geometry is the area's boundary, or null without one."
            ),
        )
    };
    json!({
        "Boundary": {"description": "An area's boundary: a GeoJSON Polygon or MultiPolygon in WGS84, served as it was imported (a Polygon stays a Polygon), with rings in RFC 7946 orientation.", "anyOf": [reference("schemas", "Polygon"), reference("schemas", "MultiPolygon")]},
        "Polygon": closed(json!({"properties": {"type": {"type": "string", "const": "Polygon"}, "coordinates": rings}})),
        "MultiPolygon": closed(json!({"properties": {"type": {"type": "string", "const": "MultiPolygon"}, "coordinates": {"type": "array", "items": rings, "minItems": 1}}})),
        "AreaBoundaryFeature": feature_of(multi_or_null(), reference("schemas", "AreaSummary"), "An area as a GeoJSON Feature with its boundary."),
        "AreaBoundaryFeatureCollection": with_missing(collection("AreaBoundaryFeature", LIST_LIMIT_MAX, LIST_LIMIT_MIN, LIST_TOTAL, "List Areas")),
        "SearchBoundaryFeature": feature_of(multi_or_null(), reference("schemas", "SearchHit"), "A search item as a GeoJSON Feature with its boundary."),
        "SearchBoundaryFeatureCollection": collection("SearchBoundaryFeature", SEARCH_LIMIT_MAX, SEARCH_LIMIT_MIN, SEARCH_TOTAL, "Search Areas"),
    })
}

fn answers() -> Value {
    let periods: Vec<&str> = PERIODS.iter().map(|(w, _)| *w).collect();
    let longest = PERIODS.iter().map(|(_, days)| *days).max();
    let plans: Vec<&str> = Plan::ALL.iter().map(|p| p.name()).collect();
    let compared = dimension_map(
        score(),
        "Dimension name to its score: the names given in `dimensions`, else all seven.",
    );
    let by_dimension = dimension_map(
        json!({"type": "string", "description": "Id of the compared area with the highest score in this dimension; among areas that share it, the lowest id."}),
        "Dimension name to the winning area's id, for the same dimensions as areas[].dimensions.",
    );
    let tied = || json!({"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": COMPARE_IDS_MAX, "uniqueItems": true, "description": "The ids of the areas that share the winning score, in the order of ids: the winner alone when nothing ties."});
    let ties = closed(
        json!({"description": "For the overall score and each dimension of by_dimension, the areas that share the winning score.", "properties": {
            "overall": tied(),
            "by_dimension": dimension_map(tied(), "Dimension name to the ids that share its winning score, for the same dimensions as by_dimension."),
        }}),
    );
    json!({
        "ComparedArea": closed(json!({"properties": {"id": area_id(), "name": text(), "truth_score": score(), "dimensions": compared, "rank": super::stats::rank_member("compared that it has")}, "required": ["id", "name", "truth_score", "dimensions"]})),
        "Comparison": closed(json!({"properties": {
            "areas": {"type": "array", "minItems": COMPARE_IDS_MIN, "maxItems": COMPARE_IDS_MAX, "items": reference("schemas", "ComparedArea"), "description": "In the order of ids."},
            "winner": closed(json!({"properties": {
                "overall": {"type": "string", "description": "Id of the area with the highest truth_score; among areas that share it (ties.overall), the lowest id, whatever the order of ids."},
                "by_dimension": by_dimension,
                "ties": ties,
            }})),
        }})),
        "AreaHistory": closed(json!({"properties": {
            "area_id": area_id(),
            "period": {"type": "string", "enum": periods},
            "history": {"type": "array", "maxItems": longest, "items": reference("schemas", "HistoryPoint"), "description": "Oldest first. daily: one point per day of the window (the N days ending on the area's latest history date); weekly: the mean of each ISO week, dated by its Monday; monthly: the mean of each calendar month, dated the 1st. Partial weeks and months at the edges count."},
            "trend": {"type": "string", "enum": ["up", "down", "stable"], "description": "up when change >= 0.1, down when change <= -0.1, else stable."},
            "change": {"type": "number", "minimum": -10, "maximum": 10, "description": "Last returned point minus the first, in score points, 2 decimals."},
        }})),
        "KeyInfo": closed(json!({"properties": {
            "key_id": {"type": "string", "pattern": "^key_[0-9a-f]{12}$", "description": "The key's public id, as `area-scoring keys list` shows it."},
            "plan": {"type": "string", "enum": plans, "description": "The key's plan."},
            "rate_limit": closed(json!({"description": "The key's rate limit, as the RateLimit and X-RateLimit-* headers give it.", "properties": {
                "requests_per_minute": {"type": ["integer", "null"], "minimum": 1, "description": "The plan's limit; null when unlimited."},
                "remaining": {"type": ["integer", "null"], "minimum": 0, "description": "Requests left in the bucket (this request takes none); null when unlimited."},
            }})),
            "usage_today": closed(json!({"description": "The key's requests today before this one, on every server sharing the keys file (those of the last few seconds may not be in yet).", "properties": {
                "day": {"type": "string", "format": "date", "description": "Today in UTC."},
                "ok": {"type": "integer", "minimum": 0, "description": "Requests answered 2xx or 304."},
                "errors": {"type": "integer", "minimum": 0, "description": "Requests answered with any other 4xx or 5xx."},
                "rate_limited": {"type": "integer", "minimum": 0, "description": "Requests answered 429."},
            }})),
        }})),
        "Health": closed(json!({"properties": {
            "status": {"type": "string", "enum": ["ok", "degraded"], "description": "degraded: the last reload was refused and the previous data serves on, until a reload succeeds (still 200, so that a balancer keeps the server)."},
            "reason": {"type": "string", "description": "Why the server is degraded; only then."},
            "areas": {"type": "integer", "minimum": 0, "description": "Number of areas being served."},
            "dataset": reference("schemas", "DatasetIdentity"),
        }, "required": ["status", "areas", "dataset"]})),
        "DatasetIdentity": closed(json!({"properties": {
            "made_at": {"type": ["string", "null"], "format": "date-time", "description": "When the dataset file was written (UTC); null for a file that does not record it."},
            "source": closed(json!({"properties": {
                "file": {"type": ["string", "null"], "description": "The imported file's name, or seed or synthetic."},
                "sha256": {"type": ["string", "null"], "pattern": "^[0-9a-f]{64}$", "description": "SHA-256 of the source file's bytes; null without one."},
            }})),
            "read_with": {"type": "string", "description": "The flags the source was read with, when any change what the same bytes make."},
            "region": {"type": "string", "pattern": "^[^,]+(,[^,]+){3}$", "description": "The box its areas were checked against, MIN_LNG,MIN_LAT,MAX_LNG,MAX_LAT, when not South Africa's (docs/import.md, \"Coordinates\")."},
            "build": {"type": ["string", "null"], "description": "The build that wrote the file (area-scoring and its version)."},
            "areas": {"type": ["integer", "null"], "minimum": 0, "description": "The areas the file was written with."},
            "loaded_at": {"type": "string", "format": "date-time", "description": "When this server opened the file (UTC)."},
        }, "required": ["made_at", "source", "build", "areas", "loaded_at"]})),
    })
}

fn geojson() -> Value {
    let collection = |name: &str| {
        format!(
            "A page of {name} as an RFC 7946 FeatureCollection (format=geojson, or Accept: application/geo+json); total, limit and offset are foreign members."
        )
    };
    json!({
        "Point": closed(json!({"description": "The area's centre as a GeoJSON Point.", "properties": {
            "type": {"type": "string", "const": "Point"},
            "coordinates": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2, "description": "[lng, lat] in degrees (RFC 7946 order: longitude first).", "examples": [[18.42322, -33.92584]]},
        }})),
        "AreaFeature": feature(reference("schemas", "AreaSummary"), "An area as a GeoJSON Feature: its id, its centre, and the list form's fields as flat properties."),
        "AreaFeatureCollection": with_missing(page("features", "AreaFeature", LIST_LIMIT_MAX, LIST_LIMIT_MIN, LIST_TOTAL, &collection("List Areas"))),
        "SearchFeature": feature(reference("schemas", "SearchHit"), "A search item as a GeoJSON Feature: its id, its centre, and the search item's fields as properties (distance_km on a geo search, match on a search with q)."),
        "SearchFeatureCollection": page("features", "SearchFeature", SEARCH_LIMIT_MAX, SEARCH_LIMIT_MIN, SEARCH_TOTAL, &collection("Search Areas")),
    })
}

fn export() -> Value {
    let centre = json!({
        "lat": {"type": "number", "minimum": number(LAT.min), "maximum": number(LAT.max)},
        "lng": {"type": "number", "minimum": number(LNG.min), "maximum": number(LNG.max)},
    });
    let row = joined(joined(list_form(), centre), dimension_columns());
    let properties = closed(json!({"properties": joined(list_form(), dimension_columns())}));
    json!({
        "ExportArea": closed(json!({"description": "An area as the export carries it: the list form's fields, its centre, and each dimension's score (null where the area has no such dimension).", "properties": row})),
        "ExportPage": closed(json!({"description": "The export as one JSON document.", "properties": {
            "data": {"type": "array", "items": reference("schemas", "ExportArea"), "description": "Every area (of the province, if given), ordered by id."},
            "total": {"type": "integer", "minimum": 0, "description": "Number of areas in data."},
        }})),
        "ExportFeature": feature(properties.clone(), "An exported area as a GeoJSON Feature: the list form's fields and each dimension's score as flat properties."),
        "ExportBoundaryFeature": feature_of(multi_or_null(), properties, "An exported area as a GeoJSON Feature with its boundary (geometry=boundary)."),
        "ExportBoundaryFeatureCollection": closed(json!({"description": "The export with geometry=boundary as an RFC 7946 FeatureCollection, ordered by id; total is a foreign member.", "properties": {
            "type": {"type": "string", "const": "FeatureCollection"},
            "features": {"type": "array", "items": reference("schemas", "ExportBoundaryFeature")},
            "total": {"type": "integer", "minimum": 0, "description": "Number of features."},
        }})),
        "ExportFeatureCollection": closed(json!({"description": "The export as an RFC 7946 FeatureCollection, ordered by id; total is a foreign member.", "properties": {
            "type": {"type": "string", "const": "FeatureCollection"},
            "features": {"type": "array", "items": reference("schemas", "ExportFeature")},
            "total": {"type": "integer", "minimum": 0, "description": "Number of features."},
        }})),
        "OpenApiDocument": {"type": "object", "description": "This document.", "required": ["openapi", "info", "paths"], "properties": {"openapi": {"type": "string", "pattern": r"^3\.1\."}}},
    })
}

/// The error body of what the server answers as `errors` (one status, their
/// codes), and the fields beside the message that a client's code acts on.
fn error_body(errors: &[ApiError], fields: Value, required: &[&str]) -> Value {
    let status = errors[0].status();
    assert!(
        errors.iter().all(|e| e.status() == status),
        "one status a schema"
    );
    let codes: Vec<&str> = errors.iter().map(ApiError::code).collect();
    front_error(status, &codes, fields, required)
}

/// An error body of `status` with `codes`, the server's or the nginx front's.
fn front_error(status: u16, codes: &[&str], fields: Value, required: &[&str]) -> Value {
    let detail = joined(
        json!({
            "code": {"type": "string", "enum": codes, "description": "Machine-readable code."},
            "message": {"type": "string", "minLength": 1, "description": "What was wrong and what is allowed, for a person to read; for a missing area it names the id. Code should act on code and the fields beside it, never on this text."},
            "status": {"type": "integer", "const": status, "description": "Equal to the HTTP status."},
        }),
        fields,
    );
    let required = [&["code", "message", "status"][..], required].concat();
    closed(
        json!({"properties": {"error": closed(json!({"properties": detail, "required": required}))}}),
    )
}

/// `schema` with a description after its type.
fn described(schema: Value, description: &str) -> Value {
    let Value::Object(members) = schema else {
        return schema;
    };
    let mut out = json!({"type": members["type"], "description": description});
    if let Some(o) = out.as_object_mut() {
        o.extend(members.into_iter().skip(1));
    }
    out
}

fn errors() -> Value {
    assert_eq!(
        HISTORY_PLAN, EXPORT_PLAN,
        "the description names one plan for both"
    );
    let (plans, plan): (Vec<&str>, _) = (
        Plan::ALL.iter().map(|p| p.name()).collect(),
        HISTORY_PLAN.name(),
    );
    let refused = ApiError::PlanUpgradeRequired {
        feature: "",
        needed: HISTORY_PLAN,
        have: Plan::Free,
        param: None,
    };
    let (area_not_found, not_found) = (
        ApiError::AreaNotFound { ids: Vec::new() },
        ApiError::NotFound {
            path: String::new(),
        },
    );
    let limited = [
        ApiError::RateLimited {
            retry_after_secs: 0,
        },
        ApiError::TooManyUnknownKeys {
            retry_after_secs: 0,
        },
    ];
    let none = || json!({});
    let mut unknown_area = error_body(
        &[area_not_found.clone(), not_found.clone()],
        json!({"ids": {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "minItems": 1,
            "maxItems": COMPARE_IDS_MAX,
            "description": "area_not_found only, and always: the ids no area has, as given and in the order asked (Get Area and Get Area History: the path's id; Compare: every unknown id of ids). not_found has no ids.",
        }}),
        &[],
    );
    let detail = &mut unknown_area["properties"]["error"];
    detail["if"] = json!({"properties": {"code": {"const": area_not_found.code()}}});
    detail["then"] = json!({"required": ["ids"]});
    detail["else"] = json!({"not": {"required": ["ids"]}});
    let front = |status, code, why: &str| {
        described(
            front_error(status, &[code], none(), &[]),
            &format!(
                "Answered by the nginx front of deploy/ when no replica answers{why} (deployments behind it only)."
            ),
        )
    };
    json!({
        "ErrorInvalidParameter": error_body(&[ApiError::invalid("", "")], json!({
            "param": {"type": "string", "description": "The query parameter at fault: for a query of more pairs than the operation has parameters, the first of them that is unknown or repeated."},
            "allowed": {"type": "array", "items": {"type": "string"}, "minItems": 1, "uniqueItems": true, "description": "Present when the parameter must be one of a set of words: the words it may take, in the order the document lists them (sort, order, province, format, match, period, granularity, and each item of include and dimensions); for a parameter the operation does not take, the operation's parameter names, in the order the document lists them (absent where it takes none). Absent for a bound, a grammar, a repeat or a count (a number out of range, a malformed bbox, a parameter given twice, a list of too many items)."},
        }), &["param"]),
        "ErrorUnauthorized": error_body(&[ApiError::MissingApiKey, ApiError::InvalidApiKey], none(), &[]),
        "ErrorPlanUpgradeRequired": error_body(&[refused], json!({
            "required_plan": {"type": "string", "enum": plans, "description": format!("The lowest plan that may do what was asked (score history and the export: {plan}).")},
            "plan": {"type": "string", "enum": plans, "description": "The calling key's plan."},
            "param": {"type": "string", "enum": AREA_PARAMS, "description": "The query parameter that asked for what the plan does not allow (include, for include=history); absent when the operation itself needs the plan (Get Area History, Export Areas)."},
        }), &["required_plan", "plan"]),
        "ErrorAreaNotFound": described(unknown_area, "area_not_found lists every unknown id in ids; not_found answers a path that no route has (an id that changes the path's shape, such as one with a slash), without ids."),
        "ErrorNotFound": error_body(&[not_found], none(), &[]),
        "ErrorNoAreaHere": error_body(&[ApiError::NoAreaHere { lat: 0.0, lng: 0.0, radius_km: 0.0 }], none(), &[]),
        "ErrorUriTooLong": error_body(&[ApiError::UriTooLong], none(), &[]),
        "ErrorRateLimited": described(error_body(&limited, none(), &[]), "rate_limited: the calling key has spent its plan's budget; waiting Retry-After seconds helps. too_many_unknown_keys: the client has spent its budget of requests without a valid key; its key is missing, unknown or revoked, and no wait makes it valid: send a valid key (the message names no plan)."),
        "ErrorHeadersTooLarge": error_body(&[ApiError::HeadersTooLarge], none(), &[]),
        "ErrorInternal": error_body(&[ApiError::Internal], none(), &[]),
        "ErrorBadGateway": front(502, "bad_gateway", ""),
        "ErrorServiceUnavailable": error_body(&[ApiError::ServiceUnavailable], none(), &[]),
        "ErrorUpgradeRequired": error_body(&[ApiError::UpgradeRequired], none(), &[]),
        "ErrorGatewayTimeout": front(504, "gateway_timeout", " in time"),
    })
}
