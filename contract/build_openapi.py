#!/usr/bin/env python3
"""Builds docs/openapi.json, the OpenAPI 3.1 description of the Area Scoring API.

The document is written out as plain JSON (the server embeds it and serves it at
GET /v1/openapi.json); this script is where it is edited, because the API repeats
the same pieces (the error shape, the response headers, the area forms) on every
operation and a generator keeps them identical.

    python3 contract/build_openapi.py           # rewrite docs/openapi.json
    python3 contract/build_openapi.py --check   # exit 1 if docs/openapi.json is stale

Only the standard library is used, so it runs before any virtualenv exists.

The contract's numbers and words (parameter bounds, defaults and enums, the
provinces, the dimensions) have their single source in src/api/contract.rs and
src/domain.rs, which the server parses with. This script runs without a Rust
toolchain, so it states each of them once more, in the block below, and
tests/openapi_constants.rs (part of `make test`) fails when the document it
writes says anything else.
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "docs" / "openapi.json"

PROVINCES = [
    "eastern-cape",
    "free-state",
    "gauteng",
    "kwazulu-natal",
    "limpopo",
    "mpumalanga",
    "north-west",
    "northern-cape",
    "western-cape",
]
DIMENSIONS = [
    "safety",
    "infrastructure",
    "service_delivery",
    "market",
    "amenities",
    "environment",
    "sentiment",
]
# Plans in rank order, as src/domain.rs names them.
PLANS = ["free", "starter", "growth", "enterprise"]
# The query parameters' bounds and words, named as in src/api/contract.rs.
LIST_LIMIT_MIN, LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT = 1, 100, 20
OFFSET_MIN, OFFSET_MAX, OFFSET_DEFAULT = 0, 9223372036854775807, 0
SORTS, SORT_DEFAULT = ["name", "truth_score", "updated_at"], "name"
ORDERS, ORDER_DEFAULT = ["asc", "desc"], "asc"
INCLUDES = ["history", "nearby"]
Q_CHARS_MIN, Q_CHARS_MAX = 1, 200
SEARCH_LIMIT_MIN, SEARCH_LIMIT_MAX, SEARCH_LIMIT_DEFAULT = 1, 50, 10
RADIUS_KM_DEFAULT = 10
COMPARE_IDS_MIN, COMPARE_IDS_MAX = 2, 5
PERIODS, PERIOD_DEFAULT = ["7d", "30d", "90d", "1y"], "30d"
GRANULARITIES, GRANULARITY_DEFAULT = ["daily", "weekly", "monthly"], "daily"
MATCHINGS, MATCHING_DEFAULT = ["forgiving", "exact"], "forgiving"
MATCH_TIERS = ["exact", "other_name", "one_typo", "two_typos"]
TYPO_ONE_FROM, TYPO_TWO_FROM, SPLIT_PART_MIN, FORGIVING_WORDS_MAX = 5, 9, 2, 8
# An area's other names (src/data/import/rules.rs): each a display text.
MAX_OTHER_NAMES, MAX_TEXT = 20, 200
# Representations: the `format=` word, the media type, the Content-Type sent,
# the file extension (src/api/format.rs); List and Search offer LIST_FORMATS,
# Export EXPORT_FORMATS; JSON, first, is the default.
FORMATS = {
    "json": ("application/json", "application/json; charset=utf-8", "json"),
    "geojson": ("application/geo+json", "application/geo+json", "geojson"),
    "csv": ("text/csv", "text/csv; charset=utf-8", "csv"),
    "ndjson": ("application/x-ndjson", "application/x-ndjson", "ndjson"),
}
LIST_FORMATS = ["json", "geojson", "csv"]
EXPORT_FORMATS = ["json", "ndjson", "csv", "geojson"]
# Bodies shorter than this go uncompressed (src/app/encoding.rs).
GZIP_MIN_BYTES = 1400

# ---------------------------------------------------------------------------
# Numbers. lat, lng, radius and min_score are `type: number` parameters: the
# server reads a number as JSON writes one (`-12.5`, `3`, `1e-05`, `2.5E1`),
# also with a bare point (`.5`, `2.`), never with a sign '+', nan or inf, so
# whatever a client library prints for a float in range is accepted. Their
# bounds are those of src/api/contract.rs (LAT, LNG, RADIUS_KM, MIN_SCORE).
#
# bbox is one string of four numbers, so its grammar is a pattern. Each number
# is either decimal notation within its range (an exact pattern) or exponent
# notation (any: the range of those is stated in the description only). The
# pattern is thus never narrower than the server: what it refuses, the server
# refuses. tests/openapi_constants.rs probes it against the server's parser.
# ---------------------------------------------------------------------------

LAT_MIN, LAT_MAX = -90, 90
LNG_MIN, LNG_MAX = -180, 180
RADIUS_KM_MIN, RADIUS_KM_MAX = 0, 50
MIN_SCORE_MIN, MIN_SCORE_MAX = 0, 10
BBOX_NUMBERS = 4

# |x| <= 90, decimal notation
LAT_DECIMAL = r"-?(?:0*(?:[1-8]?[0-9](?:\.[0-9]*)?|90(?:\.0*)?)|\.[0-9]+)"
# |x| <= 180, decimal notation
LNG_DECIMAL = r"-?(?:0*(?:(?:1[0-7][0-9]|[1-9]?[0-9])(?:\.[0-9]*)?|180(?:\.0*)?)|\.[0-9]+)"
# Any number in exponent notation.
EXPONENT = r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+"


def bbox_pattern():
    lng = f"(?:{LNG_DECIMAL}|{EXPONENT})"
    lat = f"(?:{LAT_DECIMAL}|{EXPONENT})"
    return f"^{lng},{lat},{lng},{lat}$"


BBOX = bbox_pattern()

# Comma-separated lists. ids: 2 to 5 items, none empty (ids are taken as given,
# so an item is any text without a comma). dimensions: 1 to 7 known names.
# include: each extra at most once, so every allowed value is listed. That no
# item repeats is stated in the descriptions (a regular expression that says
# it would need look-ahead and back-references, which few generators read).
IDS = f"^[^,]+(?:,[^,]+){{{COMPARE_IDS_MIN - 1},{COMPARE_IDS_MAX - 1}}}$"
_DIMENSION = "(?:" + "|".join(DIMENSIONS) + ")"
DIMENSION_LIST = f"^{_DIMENSION}(?:,{_DIMENSION}){{0,{len(DIMENSIONS) - 1}}}$"
INCLUDE_VALUES = [*INCLUDES, ",".join(INCLUDES), ",".join(reversed(INCLUDES))]
INCLUDE = "^(?:" + "|".join(INCLUDE_VALUES) + ")$"


# ---------------------------------------------------------------------------
# "A letter or digit" in q is Rust's char::is_alphanumeric (the Unicode
# Alphabetic or Numeric property). Validators read `pattern` as ECMA-262, where
# `\w` and `\W` are ASCII only, and Python's `re` has no `\p{...}`: the one
# spelling both read alike is an explicit class. The ranges come from the
# toolchain itself (contract/unicode_alnum.rs); code points of the BMP are
# written as \uXXXX escapes, the others as the characters themselves (no
# escape for them is common to ECMA-262 and Python).
# ---------------------------------------------------------------------------


def alnum_class():
    parts = []
    path = ROOT / "contract" / "unicode-alnum-ranges.txt"
    for line in path.read_text(encoding="ascii").splitlines():
        if not line.strip():
            continue
        first, last = (int(x, 16) for x in line.split())

        def one(cp):
            return f"\\u{cp:04x}" if cp <= 0xFFFF else chr(cp)

        parts.append(one(first) if first == last else f"{one(first)}-{one(last)}")
    return "[" + "".join(parts) + "]"


ALNUM = alnum_class()


def ref(kind, name):
    return {"$ref": f"#/components/{kind}/{name}"}


# ---------------------------------------------------------------------------
# Schemas
# ---------------------------------------------------------------------------

SCORE = {"type": "number", "minimum": 0, "maximum": 10, "description": "A score from 0 to 10 with at most 2 decimals."}
TIMESTAMP = {
    "type": "string",
    "format": "date-time",
    "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$",
    "description": "ISO 8601 UTC timestamp with a Z, for example 2026-11-22T00:00:00Z.",
    "examples": ["2026-11-22T00:00:00Z"],
}
DATE = {
    "type": "string",
    "format": "date",
    "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
    "description": "Calendar date, YYYY-MM-DD.",
}
AREA_ID = {
    "type": "string",
    "minLength": 1,
    "maxLength": 64,
    "pattern": r"^[a-z0-9]+(?:-[a-z0-9]+)*$",
    "description": "Area identifier: a slug of lowercase letters a-z and digits in runs joined by single hyphens, at most 64 characters, such as cape-town.",
    "examples": ["cape-town"],
}
# The path parameter takes any text: what is not an area's id answers 404.
AREA_ID_PARAM = {
    "type": "string",
    "minLength": 1,
    "description": "An area id such as cape-town.",
    "examples": ["cape-town"],
}
PROVINCE_NAMES = [
    "Eastern Cape",
    "Free State",
    "Gauteng",
    "KwaZulu-Natal",
    "Limpopo",
    "Mpumalanga",
    "North West",
    "Northern Cape",
    "Western Cape",
]
# Names and municipalities: 1 to 200 characters, none of them a control character.
TEXT = {"type": "string", "minLength": 1, "maxLength": MAX_TEXT, "pattern": r"^[^\x00-\x1f\x7f-\x9f]+$"}
NULLABLE_SCORE = {
    "type": ["number", "null"],
    "minimum": 0,
    "maximum": 10,
    "description": "The dimension's score, 0 to 10, or null where the area has no such dimension.",
}
PROVINCE_NAME = {
    "type": "string",
    "enum": PROVINCE_NAMES,
    "description": "Province display name (the filter slug's display form, e.g. Western Cape for western-cape).",
}


def obj(properties, required=None, description=None, closed=True):
    schema = {"type": "object"}
    if description:
        schema["description"] = description
    schema["properties"] = properties
    schema["required"] = list(properties) if required is None else required
    if closed:
        schema["additionalProperties"] = False
    return schema


def dimension_map(value_schema, description, min_properties=0):
    schema = {
        "type": "object",
        "description": description,
        "properties": {d: value_schema for d in DIMENSIONS},
        "additionalProperties": False,
    }
    if min_properties:
        schema["minProperties"] = min_properties
    return schema


def error_schema(status, codes, fields=None, required=(), description=None, conditional=None):
    """The error body of `status` with `codes`, and the fields beside the
    message that a client's code acts on (`fields`; those in `required` are
    always there)."""
    detail_props = {
        "code": {"type": "string", "enum": codes, "description": "Machine-readable code."},
        "message": {
            "type": "string",
            "minLength": 1,
            "description": "What was wrong and what is allowed, for a person to read; for a missing area it names the id. Code should act on code and the fields beside it, never on this text.",
        },
        "status": {"type": "integer", "const": status, "description": "Equal to the HTTP status."},
        **(fields or {}),
    }
    detail = obj(detail_props, ["code", "message", "status", *required])
    if conditional:
        detail.update(conditional)
    return obj({"error": detail}, description=description)


# The fields of an error body beside code, message and status.
ERROR_PARAM = {
    "type": "string",
    "description": "The query parameter at fault: for a query of more pairs than the operation has parameters, the first of them that is unknown or repeated.",
}
ERROR_ALLOWED = {
    "type": "array",
    "items": {"type": "string"},
    "minItems": 1,
    "uniqueItems": True,
    "description": "Present when the parameter must be one of a set of words: the words it may take, in the order the document lists them (sort, order, province, format, match, period, granularity, and each item of include and dimensions); for a parameter the operation does not take, the operation's parameter names, in the order the document lists them (absent where it takes none). Absent for a bound, a grammar, a repeat or a count (a number out of range, a malformed bbox, a parameter given twice, a list of too many items).",
}
ERROR_REQUIRED_PLAN = {
    "type": "string",
    "enum": PLANS,
    "description": "The lowest plan that may do what was asked (score history and the export: growth).",
}
ERROR_PLAN = {"type": "string", "enum": PLANS, "description": "The calling key's plan."}
ERROR_PLAN_PARAM = {
    "type": "string",
    "enum": ["include"],
    "description": "The query parameter that asked for what the plan does not allow (include, for include=history); absent when the operation itself needs the plan (Get Area History, Export Areas).",
}
ERROR_IDS = {
    "type": "array",
    "items": {"type": "string", "minLength": 1},
    "minItems": 1,
    "maxItems": COMPARE_IDS_MAX,
    "description": "area_not_found only, and always: the ids no area has, as given and in the order asked (Get Area and Get Area History: the path's id; Compare: every unknown id of ids). not_found has no ids.",
}


def page_members(total_description, limit_min, limit_max):
    """total, limit and offset: what every page says of itself."""
    return {
        "total": {"type": "integer", "minimum": 0, "description": total_description},
        "limit": {"type": "integer", "minimum": limit_min, "maximum": limit_max, "description": "Page size in effect."},
        "offset": {"type": "integer", "minimum": OFFSET_MIN, "description": "Offset in effect."},
    }


# The list form's fields, in the order answers give them: every form of an
# area (list, search hit, export row, feature properties) begins with them.
LIST_FORM = {
    "id": AREA_ID,
    "name": TEXT,
    "province": PROVINCE_NAME,
    "municipality": TEXT,
    "truth_score": SCORE,
    "updated_at": TIMESTAMP,
}


SCHEMAS = {
    "AreaSummary": obj(
        {
            "id": AREA_ID,
            "name": dict(TEXT, description="Display name."),
            "province": PROVINCE_NAME,
            "municipality": TEXT,
            "truth_score": SCORE,
            "updated_at": TIMESTAMP,
        },
        description="An area in list form.",
    ),
    "SearchHit": obj(
        {
            **LIST_FORM,
            "distance_km": {
                "type": "number",
                "minimum": 0,
                "maximum": 50,
                "description": "Great-circle distance from (lat, lng) in km, 2 decimals. Present exactly when lat and lng are given.",
            },
            "match": ref("schemas", "SearchMatch"),
        },
        required=["id", "name", "province", "municipality", "truth_score", "updated_at"],
        description="An area in list form, plus distance_km on a geo search and match on a search with q.",
    ),
    "SearchMatch": obj(
        {
            "tier": {
                "type": "string",
                "enum": MATCH_TIERS,
                "description": "How the area matched, best first: exact (every word exactly or as a prefix), other_name (a word only through one of the area's other names), one_typo (one edit, or two words joined or one split), two_typos. The tier of the area's weakest word.",
            },
            "other_name": {
                **TEXT,
                "type": ["string", "null"],
                "description": "The other name (Get Area's other_names) a word was found in, or null when none was.",
            },
            "words": {
                "type": "array",
                "items": {"type": "string"},
                "description": "The area's words, folded as search folds them (lower case, Latin diacritics dropped), that the query's words were taken for, in the query's order; a split word gives two.",
            },
        },
        description="How a search item was found by q: present on every item of a search with q (JSON and GeoJSON), absent otherwise.",
    ),
    "AreaPage": obj(
        {
            "data": {"type": "array", "items": ref("schemas", "AreaSummary"), "maxItems": LIST_LIMIT_MAX},
            **page_members("Number of areas matching the filter (not only this page).", LIST_LIMIT_MIN, LIST_LIMIT_MAX),
        },
        description="One page of List Areas.",
    ),
    "SearchPage": obj(
        {
            "data": {"type": "array", "items": ref("schemas", "SearchHit"), "maxItems": SEARCH_LIMIT_MAX},
            **page_members("Number of matching areas (every match, not only this page).", SEARCH_LIMIT_MIN, SEARCH_LIMIT_MAX),
        },
        description="Search results: by relevance when q is given, else by distance when lat/lng are given, else by truth_score descending; ties by id.",
    ),
    "Dimension": obj(
        {
            "score": SCORE,
            "weight": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "description": "Fraction of truth_score this dimension carries; the weights of an area sum to 1 (within 0.01 for imported data)."},
            "sources": {
                "type": "array",
                "minItems": 1,
                "uniqueItems": True,
                "items": {"type": "string", "pattern": r"^[^,;\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]{1,100}$"},
                "description": "Identifiers of the data sources behind the score: 1 to 100 characters each, without spaces, ',' or ';'.",
            },
        },
        description="One dimension of an area's score.",
    ),
    "Coordinates": obj(
        {
            "lat": {"type": "number", "minimum": -90, "maximum": 90},
            "lng": {"type": "number", "minimum": -180, "maximum": 180},
        },
        description="Centre point.",
    ),
    "NearbyArea": obj(
        {
            "id": AREA_ID,
            "name": TEXT,
            "truth_score": SCORE,
            "distance_km": {"type": "number", "minimum": 0, "maximum": 25, "description": "Distance from the area in km, 2 decimals."},
        },
        description="Another area at most 25 km away.",
    ),
    "HistoryPoint": obj({"date": DATE, "truth_score": SCORE}),
    "AreaDetail": obj(
        {
            "id": AREA_ID,
            "name": TEXT,
            "province": PROVINCE_NAME,
            "municipality": TEXT,
            "truth_score": SCORE,
            "dimensions": dimension_map(ref("schemas", "Dimension"), "Dimension name to its detail, in the order safety, infrastructure, service_delivery, market, amenities, environment, sentiment. The seed data has all seven; imported data has at least one.", min_properties=1),
            "coordinates": ref("schemas", "Coordinates"),
            "updated_at": TIMESTAMP,
            "other_names": {
                "type": "array",
                "maxItems": MAX_OTHER_NAMES,
                "uniqueItems": True,
                "items": TEXT,
                "description": f"The area's other names (former names, short forms, other spellings), by which a forgiving search also finds it; at most {MAX_OTHER_NAMES}, empty when it has none.",
            },
            "nearby": {
                "type": "array",
                "maxItems": 5,
                "items": ref("schemas", "NearbyArea"),
                "description": "Only with include=nearby: up to 5 other areas at most 25 km away, nearest first (ties by id).",
            },
            "history": {
                "type": "array",
                "maxItems": 30,
                "items": ref("schemas", "HistoryPoint"),
                "description": "Only with include=history (growth plan or above): the daily points of the last 30 days, as Get Area History returns by default.",
            },
        },
        required=["id", "name", "province", "municipality", "truth_score", "dimensions", "coordinates", "updated_at", "other_names"],
        description="An area in detail form.",
    ),
    "ComparedArea": obj(
        {
            "id": AREA_ID,
            "name": TEXT,
            "truth_score": SCORE,
            "dimensions": dimension_map(SCORE, "Dimension name to its score: the names given in `dimensions`, else all seven."),
        }
    ),
    "Comparison": obj(
        {
            "areas": {"type": "array", "minItems": COMPARE_IDS_MIN, "maxItems": COMPARE_IDS_MAX, "items": ref("schemas", "ComparedArea"), "description": "In the order of ids."},
            "winner": obj(
                {
                    "overall": {"type": "string", "description": "Id of the area with the highest truth_score; a tie goes to the area listed first in ids."},
                    "by_dimension": dimension_map(
                        {"type": "string", "description": "Id of the compared area with the highest score in this dimension."},
                        "Dimension name to the winning area's id, for the same dimensions as areas[].dimensions.",
                    ),
                }
            ),
        }
    ),
    "AreaHistory": obj(
        {
            "area_id": AREA_ID,
            "period": {"type": "string", "enum": PERIODS},
            "history": {
                "type": "array",
                "maxItems": 365,
                "items": ref("schemas", "HistoryPoint"),
                "description": "Oldest first. daily: one point per day of the window (the N days ending on the area's latest history date); weekly: the mean of each ISO week, dated by its Monday; monthly: the mean of each calendar month, dated the 1st. Partial weeks and months at the edges count.",
            },
            "trend": {"type": "string", "enum": ["up", "down", "stable"], "description": "up when change >= 0.1, down when change <= -0.1, else stable."},
            "change": {"type": "number", "minimum": -10, "maximum": 10, "description": "Last returned point minus the first, in score points, 2 decimals."},
        }
    ),
    "KeyInfo": obj(
        {
            "key_id": {"type": "string", "pattern": "^key_[0-9a-f]{12}$", "description": "The key's public id, as `area-scoring keys list` shows it."},
            "plan": {"type": "string", "enum": PLANS, "description": "The key's plan."},
            "rate_limit": obj(
                {
                    "requests_per_minute": {"type": ["integer", "null"], "minimum": 1, "description": "The plan's limit; null when unlimited."},
                    "remaining": {"type": ["integer", "null"], "minimum": 0, "description": "Requests left in the bucket (this request takes none); null when unlimited."},
                },
                description="The key's rate limit, as the RateLimit and X-RateLimit-* headers give it.",
            ),
            "usage_today": obj(
                {
                    "day": {"type": "string", "format": "date", "description": "Today in UTC."},
                    "ok": {"type": "integer", "minimum": 0, "description": "Requests answered 2xx or 304."},
                    "errors": {"type": "integer", "minimum": 0, "description": "Requests answered with any other 4xx or 5xx."},
                    "rate_limited": {"type": "integer", "minimum": 0, "description": "Requests answered 429."},
                },
                description="The key's requests today before this one, on every server sharing the keys file (those of the last few seconds may not be in yet).",
            ),
        }
    ),
    "Health": obj(
        {
            "status": {
                "type": "string",
                "enum": ["ok", "degraded"],
                "description": "degraded: the last reload was refused and the previous data serves on, until a reload succeeds (still 200, so that a balancer keeps the server).",
            },
            "reason": {"type": "string", "description": "Why the server is degraded; only then."},
            "areas": {"type": "integer", "minimum": 0, "description": "Number of areas being served."},
            "dataset": ref("schemas", "DatasetIdentity"),
        },
        required=["status", "areas", "dataset"],
    ),
    "DatasetIdentity": obj(
        {
            "made_at": {"type": ["string", "null"], "format": "date-time", "description": "When the dataset file was written (UTC); null for a file that does not record it."},
            "source": obj(
                {
                    "file": {"type": ["string", "null"], "description": "The imported file's name, or seed or synthetic."},
                    "sha256": {"type": ["string", "null"], "pattern": "^[0-9a-f]{64}$", "description": "SHA-256 of the source file's bytes; null without one."},
                }
            ),
            "read_with": {"type": "string", "description": "The flags the source was read with, when any change what the same bytes make."},
            "build": {"type": ["string", "null"], "description": "The build that wrote the file (area-scoring and its version)."},
            "areas": {"type": ["integer", "null"], "minimum": 0, "description": "The areas the file was written with."},
            "loaded_at": {"type": "string", "format": "date-time", "description": "When this server opened the file (UTC)."},
        },
        required=["made_at", "source", "build", "areas", "loaded_at"],
    ),
    "Point": obj(
        {
            "type": {"type": "string", "const": "Point"},
            "coordinates": {
                "type": "array",
                "items": {"type": "number"},
                "minItems": 2,
                "maxItems": 2,
                "description": "[lng, lat] in degrees (RFC 7946 order: longitude first).",
                "examples": [[18.42322, -33.92584]],
            },
        },
        description="The area's centre as a GeoJSON Point.",
    ),
    "AreaFeature": obj(
        {
            "type": {"type": "string", "const": "Feature"},
            "id": AREA_ID,
            "geometry": ref("schemas", "Point"),
            "properties": ref("schemas", "AreaSummary"),
        },
        description="An area as a GeoJSON Feature: its id, its centre, and the list form's fields as flat properties.",
    ),
    "AreaFeatureCollection": obj(
        {
            "type": {"type": "string", "const": "FeatureCollection"},
            "features": {"type": "array", "items": ref("schemas", "AreaFeature"), "maxItems": LIST_LIMIT_MAX},
            **page_members("Number of areas matching the filter (not only this page).", LIST_LIMIT_MIN, LIST_LIMIT_MAX),
        },
        description="A page of List Areas as an RFC 7946 FeatureCollection (format=geojson, or Accept: application/geo+json); total, limit and offset are foreign members.",
    ),
    "SearchFeature": obj(
        {
            "type": {"type": "string", "const": "Feature"},
            "id": AREA_ID,
            "geometry": ref("schemas", "Point"),
            "properties": ref("schemas", "SearchHit"),
        },
        description="A search item as a GeoJSON Feature: its id, its centre, and the search item's fields as properties (distance_km on a geo search, match on a search with q).",
    ),
    "SearchFeatureCollection": obj(
        {
            "type": {"type": "string", "const": "FeatureCollection"},
            "features": {"type": "array", "items": ref("schemas", "SearchFeature"), "maxItems": SEARCH_LIMIT_MAX},
            **page_members("Number of matching areas (every match, not only this page).", SEARCH_LIMIT_MIN, SEARCH_LIMIT_MAX),
        },
        description="A page of Search Areas as an RFC 7946 FeatureCollection (format=geojson, or Accept: application/geo+json); total, limit and offset are foreign members.",
    ),
    "ExportArea": obj(
        {
            **LIST_FORM,
            "lat": {"type": "number", "minimum": LAT_MIN, "maximum": LAT_MAX},
            "lng": {"type": "number", "minimum": LNG_MIN, "maximum": LNG_MAX},
            **{d: NULLABLE_SCORE for d in DIMENSIONS},
        },
        description="An area as the export carries it: the list form's fields, its centre, and each dimension's score (null where the area has no such dimension).",
    ),
    "ExportPage": obj(
        {
            "data": {"type": "array", "items": ref("schemas", "ExportArea"), "description": "Every area (of the province, if given), ordered by id."},
            "total": {"type": "integer", "minimum": 0, "description": "Number of areas in data."},
        },
        description="The export as one JSON document.",
    ),
    "ExportFeature": obj(
        {
            "type": {"type": "string", "const": "Feature"},
            "id": AREA_ID,
            "geometry": ref("schemas", "Point"),
            "properties": obj(
                {
                    **LIST_FORM,
                    **{d: NULLABLE_SCORE for d in DIMENSIONS},
                }
            ),
        },
        description="An exported area as a GeoJSON Feature: the list form's fields and each dimension's score as flat properties.",
    ),
    "ExportFeatureCollection": obj(
        {
            "type": {"type": "string", "const": "FeatureCollection"},
            "features": {"type": "array", "items": ref("schemas", "ExportFeature")},
            "total": {"type": "integer", "minimum": 0, "description": "Number of features."},
        },
        description="The export as an RFC 7946 FeatureCollection, ordered by id; total is a foreign member.",
    ),
    "OpenApiDocument": {
        "type": "object",
        "description": "This document.",
        "required": ["openapi", "info", "paths"],
        "properties": {"openapi": {"type": "string", "pattern": r"^3\.1\."}},
    },
    # Errors: one body shape, with the codes each status can carry.
    "ErrorInvalidParameter": error_schema(
        400,
        ["invalid_parameter"],
        {"param": ERROR_PARAM, "allowed": ERROR_ALLOWED},
        required=["param"],
    ),
    "ErrorUnauthorized": error_schema(401, ["missing_api_key", "invalid_api_key"]),
    "ErrorPlanUpgradeRequired": error_schema(
        403,
        ["plan_upgrade_required"],
        {"required_plan": ERROR_REQUIRED_PLAN, "plan": ERROR_PLAN, "param": ERROR_PLAN_PARAM},
        required=["required_plan", "plan"],
    ),
    "ErrorAreaNotFound": error_schema(
        404,
        ["area_not_found", "not_found"],
        {"ids": ERROR_IDS},
        description="area_not_found lists every unknown id in ids; not_found answers a path that no route has (an id that changes the path's shape, such as one with a slash), without ids.",
        conditional={
            "if": {"properties": {"code": {"const": "area_not_found"}}},
            "then": {"required": ["ids"]},
            "else": {"not": {"required": ["ids"]}},
        },
    ),
    "ErrorNotFound": error_schema(404, ["not_found"]),
    "ErrorUriTooLong": error_schema(414, ["uri_too_long"]),
    "ErrorRateLimited": error_schema(
        429,
        ["rate_limited", "too_many_unknown_keys"],
        description="rate_limited: the calling key has spent its plan's budget; waiting Retry-After seconds helps. too_many_unknown_keys: the client has spent its budget of requests without a valid key; its key is missing, unknown or revoked, and no wait makes it valid: send a valid key (the message names no plan).",
    ),
    "ErrorHeadersTooLarge": error_schema(431, ["headers_too_large"]),
    "ErrorInternal": error_schema(500, ["internal_error"]),
    "ErrorBadGateway": error_schema(
        502, ["bad_gateway"], description="Answered by the nginx front of deploy/ when no replica answers (deployments behind it only)."
    ),
    "ErrorServiceUnavailable": error_schema(503, ["service_unavailable"]),
    "ErrorUpgradeRequired": error_schema(426, ["upgrade_required"]),
    "ErrorGatewayTimeout": error_schema(
        504, ["gateway_timeout"], description="Answered by the nginx front of deploy/ when no replica answers in time (deployments behind it only)."
    ),
}

# ---------------------------------------------------------------------------
# Headers
# ---------------------------------------------------------------------------

# RateLimit-Policy and RateLimit (src/app/mod.rs, src/access/ratelimit.rs):
# the IETF draft's version, the window of every bucket, and the budget of
# requests without a valid key, named apart from every plan.
RATELIMIT_DRAFT = 10
RATELIMIT_WINDOW_S = 60
KEYLESS_POLICY, KEYLESS_PER_MINUTE = "keyless", 60
# A plan's policy carries its requests per minute (any positive number: an
# operator may set it); the keyless one, its fixed budget.
_PLAN_POLICY = '"(?:' + "|".join(PLANS) + ')"'
_KEYLESS_POLICY = f'"{KEYLESS_POLICY}"'
RATELIMIT_POLICY_PATTERN = (
    f"^(?:{_PLAN_POLICY};q=[1-9][0-9]*|{_KEYLESS_POLICY};q={KEYLESS_PER_MINUTE});w={RATELIMIT_WINDOW_S}$"
)
RATELIMIT_PATTERN = f"^(?:{_PLAN_POLICY}|{_KEYLESS_POLICY});r=(?:0|[1-9][0-9]*);t=(?:0|[1-9][0-9]*)$"
# Access-Control-Expose-Headers, in the server's order (src/app/http.rs).
EXPOSED_HEADERS = [
    "ETag",
    "X-Request-Id",
    "RateLimit-Policy",
    "RateLimit",
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
    "Retry-After",
    "Link",
    "X-Total-Count",
    "Content-Disposition",
]

_REL = '<[^<>]+>; rel="(?:first|prev|next|last)"'
# Links of the four relations, first and last always among them.
LINK_PATTERN = f'^(?=.*rel="first")(?=.*rel="last"){_REL}(?:, {_REL})*$'
_EXTENSIONS = "|".join(FORMATS[f][2] for f in EXPORT_FORMATS)
CONTENT_DISPOSITION_PATTERN = f'^attachment; filename="areas(?:-[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})?\\.(?:{_EXTENSIONS})"$'

HEADERS = {
    "X-Request-Id": {
        "description": "The request's id: the client's own X-Request-Id when it is 1 to 64 letters, digits, '-', '_' or '.', else a new one. Also in the server's log line.",
        "required": True,
        "schema": {"type": "string", "pattern": r"^[A-Za-z0-9._-]{1,64}$"},
    },
    "ETag": {
        "description": "Strong validator of the representation: one per content coding (gzip's ends in -gzip inside the quotes). Send it back in If-None-Match to get 304 when nothing changed.",
        "required": True,
        "schema": {"type": "string", "pattern": r'^"[\x21\x23-\x7e]*"$'},
    },
    "Cache-Control": {
        "description": "Bodies depend on the API key, so shared caches must not keep them.",
        "required": True,
        "schema": {"type": "string", "const": "private, max-age=60"},
    },
    "Cache-Control-NoStore": {
        "description": "Never cached.",
        "required": True,
        "schema": {"type": "string", "const": "no-store"},
    },
    "Vary": {
        "description": "The body depends on the Authorization header (List, Search and Export: and on Accept), and its content coding on Accept-Encoding.",
        "required": True,
        "schema": {"type": "string", "pattern": "^Authorization(, Accept)?, Accept-Encoding$"},
    },
    "Vary-Negotiated": {
        "description": "The body depends on the Authorization header, and (without format=) on Accept; its content coding on Accept-Encoding.",
        "required": True,
        "schema": {"type": "string", "const": "Authorization, Accept, Accept-Encoding"},
    },
    "Vary-Coding": {
        "description": "The content coding depends on Accept-Encoding.",
        "required": True,
        "schema": {"type": "string", "const": "Accept-Encoding"},
    },
    "Content-Encoding": {
        "description": f"gzip when the request's Accept-Encoding takes gzip (q above 0, and not below identity's where identity is named) and the body is {GZIP_MIN_BYTES} bytes or more; an export whenever Accept-Encoding takes gzip. Absent: the body is as it is (identity).",
        "required": False,
        "schema": {"type": "string", "const": "gzip"},
    },
    "Link": {
        "description": 'RFC 8288 links to other pages of the same request: rel="first" and rel="last" always, rel="prev" when offset > 0, rel="next" while more areas remain. Each URL is an absolute path that repeats the request\'s own parameters, in their order, with only offset changed (offset added when the request had none).',
        "required": True,
        "schema": {
            "type": "string",
            "pattern": LINK_PATTERN,
            "examples": ['</v1/areas?limit=2&offset=0>; rel="first", </v1/areas?limit=2&offset=2>; rel="next", </v1/areas?limit=2&offset=936>; rel="last"'],
        },
    },
    "X-Total-Count": {
        "description": "Number of matching areas, as total in the JSON body: the same in every representation.",
        "required": True,
        "schema": {"type": "integer", "minimum": 0, "examples": [938]},
    },
    "Content-Disposition": {
        "description": "The export is a file to save: areas-YYYY-MM-DD with the format's extension (json, ndjson, csv, geojson), dated by the latest updated_at of the data served (plain areas.EXT when there are no areas).",
        "required": True,
        "schema": {
            "type": "string",
            "pattern": CONTENT_DISPOSITION_PATTERN,
            "examples": ['attachment; filename="areas-2026-11-22.csv"'],
        },
    },
    "RateLimit-Policy": {
        "description": f"The budget that applies, as draft-ietf-httpapi-ratelimit-headers-{RATELIMIT_DRAFT} writes it (an RFC 9651 structured-field list of one item): the policy's name, a string, with q, its requests per window, and w, the window in seconds ({RATELIMIT_WINDOW_S}: a token bucket refills from empty in a minute). For a valid key on a plan with a limit the name is the plan's (free, starter, growth; enterprise has no limit by default, and then no RateLimit fields) and q its requests per minute, as X-RateLimit-Limit gives it: `\"starter\";q=600;w={RATELIMIT_WINDOW_S}`. A request without a valid key (every 401, and 429 too_many_unknown_keys) is counted against its client's keyless budget: `\"{KEYLESS_POLICY}\";q={KEYLESS_PER_MINUTE};w={RATELIMIT_WINDOW_S}`, and no X-RateLimit headers.",
        "required": True,
        "schema": {
            "type": "string",
            "pattern": RATELIMIT_POLICY_PATTERN,
            "examples": [f'"starter";q=600;w={RATELIMIT_WINDOW_S}', f'"{KEYLESS_POLICY}";q={KEYLESS_PER_MINUTE};w={RATELIMIT_WINDOW_S}'],
        },
    },
    "RateLimit": {
        "description": f"What is left of the budget RateLimit-Policy names (draft-ietf-httpapi-ratelimit-headers-{RATELIMIT_DRAFT}, an RFC 9651 structured-field list of one item): the same policy name, with r, the requests left (as X-RateLimit-Remaining), and t, the seconds until the token bucket is full again (as X-RateLimit-Reset; a token comes back every w/q seconds, so a client that has spent its budget may send again after Retry-After, long before t). On 429 r is 0.",
        "required": True,
        "schema": {
            "type": "string",
            "pattern": RATELIMIT_PATTERN,
            "examples": ['"starter";r=599;t=1', f'"{KEYLESS_POLICY}";r=0;t={RATELIMIT_WINDOW_S}'],
        },
    },
    "X-RateLimit-Limit": {
        "description": "Requests per minute of the key's plan (free 60, starter 600, growth 3000 by default). Present on every answer to a valid key whose plan has a limit (enterprise has none by default), beside RateLimit-Policy and RateLimit; never on an answer to a request without a valid key. Without Redis, limits are kept per server process (behind a balancer, per replica); with Redis named (AREA_REDIS), one budget per key is shared by every server.",
        "required": False,
        "schema": {"type": "integer", "minimum": 0},
    },
    "X-RateLimit-Remaining": {
        "description": "Requests left in the key's token bucket (with X-RateLimit-Limit).",
        "required": False,
        "schema": {"type": "integer", "minimum": 0},
    },
    "X-RateLimit-Reset": {
        "description": "Seconds until the bucket is full again (with X-RateLimit-Limit).",
        "required": False,
        "schema": {"type": "integer", "minimum": 0},
    },
    "Retry-After": {
        "description": "Whole seconds to wait before retrying.",
        "required": True,
        "schema": {"type": "integer", "minimum": 0},
    },
    "Upgrade": {
        "description": "The protocol to send the request with.",
        "required": True,
        "schema": {"type": "string", "const": "HTTP/1.1"},
    },
    "WWW-Authenticate": {
        "description": "The scheme to authenticate with.",
        "required": True,
        "schema": {"type": "string", "pattern": "^Bearer"},
    },
    "Access-Control-Allow-Origin": {
        "description": "CORS: any origin may read responses (authentication is by bearer key, never by cookie).",
        "required": True,
        "schema": {"type": "string", "const": "*"},
    },
    "Access-Control-Expose-Headers": {
        "description": "CORS: the response headers a browser script may read: " + ", ".join(EXPOSED_HEADERS) + ".",
        "required": True,
        "schema": {"type": "string", "pattern": "ETag"},
    },
    "Access-Control-Allow-Methods": {
        "description": "CORS preflight: the methods allowed on the path.",
        "required": True,
        "schema": {"type": "string", "pattern": "GET"},
    },
    "Access-Control-Allow-Headers": {
        "description": "CORS preflight: the request headers allowed (Authorization, If-None-Match, X-Request-Id).",
        "required": True,
        "schema": {"type": "string", "pattern": "(?i)authorization"},
    },
    "Allow": {
        "description": "The methods the path answers.",
        "required": True,
        "schema": {"type": "string", "const": "GET, HEAD, OPTIONS"},
    },
    "Access-Control-Max-Age": {
        "description": "CORS preflight: seconds a browser may cache this answer.",
        "required": False,
        "schema": {"type": "integer", "minimum": 0},
    },
}


def optional(name):
    """A header of HEADERS that may be absent on this response."""
    h = dict(HEADERS[name])
    h["required"] = False
    return {k: v for k, v in h.items()}


# Components that describe one header in two ways are named apart; the header they describe:
HEADER_NAME = {"Cache-Control-NoStore": "Cache-Control", "Vary-Negotiated": "Vary", "Vary-Coding": "Vary"}


def headers(*names, optional_names=()):
    out = {}
    for n in names:
        out[HEADER_NAME.get(n, n)] = ref("headers", n)
    for n in optional_names:
        out[HEADER_NAME.get(n, n)] = ref("headers", f"{n}-optional")
    return out


for _n in list(HEADERS):
    HEADERS[f"{_n}-optional"] = optional(_n)

COMMON = ("X-Request-Id", "Access-Control-Allow-Origin", "Access-Control-Expose-Headers")
# A key's budget, on every answer to a valid key whose plan has a limit.
RATE = ("RateLimit-Policy", "RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
# The keyless budget, on every answer to a request without a valid key.
KEYLESS_RATE = ("RateLimit-Policy", "RateLimit")
CACHE = ("ETag", "Cache-Control", "Vary")

JSON_TYPE = "application/json"


def json_response(description, schema_name, hdrs):
    return {
        "description": description,
        "headers": hdrs,
        "content": {JSON_TYPE: {"schema": ref("schemas", schema_name)}},
    }


def error_response(description, schema_name, *names, optional_names=()):
    """An error answer: the common headers, no caching, and the status's own headers."""
    return json_response(
        description,
        schema_name,
        headers(*COMMON, "Cache-Control-NoStore", *names, optional_names=tuple(optional_names)),
    )


RESPONSES = {
    "NotModified": {
        "description": "The ETag in If-None-Match (or `*`) is the current one: no body.",
        "headers": headers(*COMMON, *CACHE, optional_names=RATE),
    },
    "InvalidParameter": error_response(
        "invalid_parameter: a query parameter out of bounds, of the wrong type or grammar, of an unknown value, given twice, or not one of the operation's parameters, a list of more items than it takes, or a query of more pairs than the operation has parameters; `param` names it (for too many pairs, the first of them that is unknown or repeated), and `allowed` lists the words it may take where they are a set.",
        "ErrorInvalidParameter",
        optional_names=RATE,
    ),
    "Unauthorized": error_response(
        f"missing_api_key: no Authorization header, or not `Bearer <key>` (the scheme in any case); invalid_api_key: a key that is unknown or revoked. Each such request is counted against its client's keyless budget ({KEYLESS_PER_MINUTE} a minute per client address), which RateLimit-Policy and RateLimit announce; past it the answer is 429 too_many_unknown_keys.",
        "ErrorUnauthorized",
        "WWW-Authenticate",
        *KEYLESS_RATE,
    ),
    "PlanUpgradeRequired": error_response(
        "plan_upgrade_required: score history (the history endpoint, or include=history) and the export need the growth plan or above; `required_plan` names the plan needed, `plan` the key's, and `param` the parameter that asked for it (include), where one did.",
        "ErrorPlanUpgradeRequired",
        optional_names=RATE,
    ),
    "AreaNotFound": error_response(
        "area_not_found: no area has this id; `ids` lists it (Compare: every unknown id, in the order of ids), and so does the message.",
        "ErrorAreaNotFound",
        optional_names=RATE,
    ),
    "UriTooLong": error_response(
        "uri_too_long: the request target is over 8 KiB (answered by the server after reading it, and by the nginx front before passing it on).",
        "ErrorUriTooLong",
    ),
    "HeadersTooLarge": error_response(
        "headers_too_large: the request headers are over 16 KiB in all (answered by the server after reading them, and by the nginx front before passing them on).",
        "ErrorHeadersTooLarge",
    ),
    "RateLimited": error_response(
        f"rate_limited: the key has used up its plan's requests per minute; retry after Retry-After seconds. The answer carries the key's RateLimit-Policy and RateLimit (r=0) and X-RateLimit headers. too_many_unknown_keys: the client address has used up its {KEYLESS_PER_MINUTE} requests a minute without a valid key (a missing, unknown or revoked key); its key will not become valid by waiting, so the answer carries WWW-Authenticate like a 401, and the keyless RateLimit-Policy and RateLimit, but no X-RateLimit headers. The nginx front's own 429 rate_limited (too many requests in flight from one address) carries none of these but Retry-After.",
        "ErrorRateLimited",
        "Retry-After",
        optional_names=("WWW-Authenticate", *RATE),
    ),
    "UnknownKeysRateLimited": error_response(
        f"too_many_unknown_keys: the client address has used up its {KEYLESS_PER_MINUTE} requests a minute without a valid key (a missing, unknown or revoked key), with WWW-Authenticate and the keyless RateLimit-Policy and RateLimit. This operation takes nothing from a key's budget, so the server never answers it rate_limited; only the nginx front's own 429 rate_limited (too many requests in flight from one address) may, with Retry-After alone.",
        "ErrorRateLimited",
        "Retry-After",
        optional_names=("WWW-Authenticate", *KEYLESS_RATE),
    ),
    "InternalError": error_response(
        "internal_error: something unexpected; the message holds no internals.",
        "ErrorInternal",
        optional_names=RATE,
    ),
    "BadGateway": error_response(
        "bad_gateway: behind the nginx front of deploy/ only: no replica answered. Retry after Retry-After seconds.",
        "ErrorBadGateway",
        "Retry-After",
    ),
    "GatewayTimeout": error_response(
        "gateway_timeout: behind the nginx front of deploy/ only: no replica answered in time. Retry after Retry-After seconds.",
        "ErrorGatewayTimeout",
        "Retry-After",
    ),
    "ServiceUnavailable": error_response(
        "service_unavailable: the database cannot be read right now (file removed, corrupt or locked, or every connection busy), or (export) too many exports are in flight (4 per server, 2 per key by default), or the server is stopping; retry after Retry-After seconds.",
        "ErrorServiceUnavailable",
        "Retry-After",
        optional_names=RATE,
    ),
    "UpgradeRequired": error_response(
        "upgrade_required: the export is sent in chunks, which HTTP/1.0 has not; send the request as HTTP/1.1 (Upgrade: HTTP/1.1).",
        "ErrorUpgradeRequired",
        "Upgrade",
    ),
}

# HEAD answers like GET without a body: the same statuses and headers.
for _name in list(RESPONSES):
    RESPONSES[f"{_name}Head"] = {k: v for k, v in RESPONSES[_name].items() if k != "content"}


def without_content(response):
    """The HEAD form of a response: a component's Head twin, or the inline one without content."""
    if "$ref" in response:
        return {"$ref": response["$ref"] + "Head"}
    return {k: v for k, v in response.items() if k not in ("content", "links")}


# ---------------------------------------------------------------------------
# Parameters
# ---------------------------------------------------------------------------


def query(name, schema, description, required=False, **extra):
    p = {"name": name, "in": "query", "required": required, "description": description, "schema": schema}
    p.update(extra)
    return p


PARAMETERS = {
    "AreaId": {
        "name": "area_id",
        "in": "path",
        "required": True,
        "description": "The area's id (slug). Any other text answers 404 area_not_found.",
        "schema": AREA_ID_PARAM,
    },
    "IfNoneMatch": {
        "name": "If-None-Match",
        "in": "header",
        "required": False,
        "description": "ETags from earlier answers (comma-separated, W/ prefixes ignored) or `*`: when one is current the answer is 304 with no body.",
        "schema": {"type": "string"},
    },
    "AcceptEncoding": {
        "name": "Accept-Encoding",
        "in": "header",
        "required": False,
        "description": "Content codings you take, with q-values (RFC 9110): gzip (or x-gzip) with q above 0, and not below identity's where identity is named, gets a gzip body once it is long enough (see Content-Encoding). Anything else, or none, gets the body as it is: never 406.",
        "schema": {"type": "string"},
    },
    "XRequestId": {
        "name": "X-Request-Id",
        "in": "header",
        "required": False,
        "description": "Your id for the request. Echoed back when it is 1 to 64 letters, digits, '-', '_' or '.'; otherwise ignored and a new id is made.",
        "schema": {"type": "string"},
    },
}

REQUEST_HEADERS = [ref("parameters", "IfNoneMatch"), ref("parameters", "AcceptEncoding"), ref("parameters", "XRequestId")]

NUMBER_NOTE = " Written as JSON writes numbers (-33.9249, 5, 1e-05, 2.5E1), also with a bare point (.5, 2.); a leading '+', nan and inf are 400."
INTEGER_NOTE = " Plain decimal digits with an optional leading '-'."


def media(schema, example=None):
    m = {"schema": schema}
    if example is not None:
        m["example"] = example
    return m


def csv_schema(columns, optional_column=None):
    header = ",".join(columns)
    extra = f"(?:,{optional_column})?" if optional_column else ""
    also = f" ({optional_column} only when lat and lng are given)" if optional_column else ""
    return {
        "type": "string",
        "pattern": f"^{header}{extra}\r\n",
        "description": f"RFC 4180 CSV in UTF-8 with CRLF line ends: a header row {header}{also}, then one row per area; fields holding a comma, a quote or a line break are quoted, quotes doubled.",
    }


LIST_CSV_COLUMNS = ["id", "name", "province", "municipality", "truth_score", "updated_at", "lat", "lng"]
EXPORT_CSV_COLUMNS = LIST_CSV_COLUMNS + DIMENSIONS


def success(description, schema_name, links=None):
    r = json_response(description, schema_name, headers(*COMMON, *CACHE, "Content-Encoding", optional_names=RATE))
    if links:
        r["links"] = links
    return r


# The seed's Cape Town in the list form (search?q=cape+town&limit=1).
PAGE_EXAMPLE_AREA = {
    "id": "cape-town",
    "name": "Cape Town",
    "province": "Western Cape",
    "municipality": "City of Cape Town",
    "truth_score": 5.94,
    "updated_at": "2026-11-22T00:00:00Z",
}
PAGE_EXAMPLE_CENTRE = {"lat": -33.92584, "lng": 18.42322}
# How that search found it (JSON and GeoJSON only).
PAGE_EXAMPLE_MATCH = {"match": {"tier": "exact", "other_name": None, "words": ["cape", "town"]}}


def page_success(description, schema_name, collection_name, links, csv_optional=None, item_extra=None):
    """A page of List or Search in each of LIST_FORMATS, with its paging headers."""
    centre = PAGE_EXAMPLE_CENTRE
    row = {**PAGE_EXAMPLE_AREA, **centre}
    area = {**PAGE_EXAMPLE_AREA, **(item_extra or {})}
    schemas = {
        "json": ref("schemas", schema_name),
        "geojson": ref("schemas", collection_name),
        "csv": csv_schema(LIST_CSV_COLUMNS, csv_optional),
    }
    examples = {
        "json": {"data": [area], "total": 25, "limit": 1, "offset": 0},
        "geojson": {
            "type": "FeatureCollection",
            "features": [
                {
                    "type": "Feature",
                    "id": area["id"],
                    "geometry": {"type": "Point", "coordinates": [centre["lng"], centre["lat"]]},
                    "properties": area,
                }
            ],
            "total": 25,
            "limit": 1,
            "offset": 0,
        },
        "csv": ",".join(LIST_CSV_COLUMNS) + "\r\n" + ",".join(str(row[c]) for c in LIST_CSV_COLUMNS) + "\r\n",
    }
    return {
        "description": description + " JSON unless format= (which wins) or Accept asks for GeoJSON or CSV; any other Accept gets JSON.",
        "headers": headers(*COMMON, "ETag", "Cache-Control", "Vary-Negotiated", "Content-Encoding", "Link", "X-Total-Count", optional_names=RATE),
        "content": {FORMATS[f][0]: media(schemas[f], examples[f]) for f in LIST_FORMATS},
        "links": links,
    }


# The seed's Aberdeen, as the export writes it (dated, as docs/api.md's
# examples are, by an init on 2026-11-22).
EXPORT_EXAMPLE_AREA = {
    "id": "aberdeen",
    "name": "Aberdeen",
    "province": "Eastern Cape",
    "municipality": "Sarah Baartman District Municipality",
    "truth_score": 4.31,
    "updated_at": "2026-11-22T00:00:00Z",
    "lat": -32.47588,
    "lng": 24.06525,
    "safety": 2.8,
    "infrastructure": 4.3,
    "service_delivery": 3.6,
    "market": 5.9,
    "amenities": 3.1,
    "environment": 6.0,
    "sentiment": 6.2,
}


def export_success():
    area = EXPORT_EXAMPLE_AREA
    csv_row = ",".join("" if area[c] is None else str(area[c]) for c in EXPORT_CSV_COLUMNS)
    feature_properties = {k: v for k, v in area.items() if k not in ("lat", "lng")}
    media_types = {
        "json": media(ref("schemas", "ExportPage"), {"data": [area], "total": 1}),
        "ndjson": media(
            {"type": "string", "description": "One ExportArea object a line, each line ended by a newline; no total."},
            json.dumps(area, ensure_ascii=False, separators=(",", ":")) + "\n",
        ),
        "csv": media(csv_schema(EXPORT_CSV_COLUMNS), ",".join(EXPORT_CSV_COLUMNS) + "\r\n" + csv_row + "\r\n"),
        "geojson": media(
            ref("schemas", "ExportFeatureCollection"),
            {
                "type": "FeatureCollection",
                "features": [
                    {
                        "type": "Feature",
                        "id": area["id"],
                        "geometry": {"type": "Point", "coordinates": [area["lng"], area["lat"]]},
                        "properties": feature_properties,
                    }
                ],
                "total": 1,
            },
        ),
    }
    return {
        "description": "Every area (of the province, if given), ordered by id. JSON unless format= (which wins) or Accept asks for another of the export's representations.",
        # X-Total-Count is counted as the body starts, so HEAD and 304 go without it.
        "headers": headers(*COMMON, "ETag", "Cache-Control", "Vary-Negotiated", "Content-Encoding", "Content-Disposition", optional_names=(*RATE, "X-Total-Count")),
        "content": {FORMATS[f][0]: media_types[f] for f in EXPORT_FORMATS},
    }


def format_param(offered, note):
    return query(
        "format",
        {"type": "string", "enum": offered, "default": offered[0], "examples": [offered[-1]]},
        "The representation: " + ", ".join(f"{f} ({FORMATS[f][0]})" for f in offered) + ". Wins over Accept; without it, Accept chooses (an Accept naming none of them gets JSON). " + note,
    )


def province_param(description="Only areas of this province (filter slug)."):
    return query(
        "province",
        {"type": "string", "enum": PROVINCES, "examples": ["western-cape"]},
        description,
    )


def offset_param():
    return query(
        "offset",
        {"type": "integer", "minimum": OFFSET_MIN, "maximum": OFFSET_MAX, "default": OFFSET_DEFAULT, "examples": [20]},
        f"Areas to skip, {OFFSET_MIN} or more; an offset past the end gives an empty page." + INTEGER_NOTE,
    )


def link(operation_id, area_id_expression, description):
    """An OpenAPI link: an id from this answer into the area_id of another operation."""
    return {
        "operationId": operation_id,
        "parameters": {"path.area_id": area_id_expression},
        "description": description,
    }


def api_responses(ok, *, plan=False, area=False, validated=True, spends=True):
    r = {"200": ok}
    if validated:
        r["304"] = ref("responses", "NotModified")
    r.update(
        {
            "400": ref("responses", "InvalidParameter"),
            "401": ref("responses", "Unauthorized"),
        }
    )
    if plan:
        r["403"] = ref("responses", "PlanUpgradeRequired")
    if area:
        r["404"] = ref("responses", "AreaNotFound")
    r.update(
        {
            "414": ref("responses", "UriTooLong"),
            "429": ref("responses", "RateLimited" if spends else "UnknownKeysRateLimited"),
            "431": ref("responses", "HeadersTooLarge"),
            "500": ref("responses", "InternalError"),
            "502": ref("responses", "BadGateway"),
            "503": ref("responses", "ServiceUnavailable"),
            "504": ref("responses", "GatewayTimeout"),
        }
    )
    return r


def public_responses(ok, *, extra=None):
    """No key, no rate limit; any query parameter is 400."""
    r = {"200": ok}
    r.update(extra or {})
    r.update(
        {
            "400": ref("responses", "InvalidParameter"),
            "414": ref("responses", "UriTooLong"),
            "431": ref("responses", "HeadersTooLarge"),
            "500": ref("responses", "InternalError"),
        }
    )
    return r


def head_of(get_op):
    """HEAD works wherever GET does: the same answer without its body."""
    op = dict(get_op)
    op["operationId"] = get_op["operationId"] + "Head"
    op["summary"] = get_op["summary"] + " (headers only)"
    op["description"] = "HEAD: the answer GET would give, without its body."
    op["responses"] = {status: without_content(resp) for status, resp in get_op["responses"].items()}
    op.pop("x-codeSamples", None)
    return op


def preflight(label):
    return {
        "operationId": f"preflight{label}",
        "summary": "CORS preflight",
        "description": "Answers a browser's preflight without an API key.",
        "tags": ["cors"],
        "security": [],
        "responses": {
            "204": {
                "description": "The methods and request headers a browser may use here.",
                "headers": headers(
                    *COMMON,
                    "Access-Control-Allow-Methods",
                    "Access-Control-Allow-Headers",
                    "Allow",
                    optional_names=("Access-Control-Max-Age",),
                ),
            },
            "414": ref("responses", "UriTooLongHead"),
            "431": ref("responses", "HeadersTooLargeHead"),
        },
    }


SEARCH_RULE = "At least one of q, lat and lng, bbox, min_score, or province is required (else 400 with param q); lat and lng come together; radius needs them. Every criterion given must hold."

SEARCH_PARAMETERS = [
    query(
        "q",
        {
            "type": "string",
            "minLength": Q_CHARS_MIN,
            "maxLength": Q_CHARS_MAX,
            "pattern": ALNUM,
            "examples": ["cape town"],
        },
        f"Text: {Q_CHARS_MIN} to {Q_CHARS_MAX} characters holding at least one letter or digit: a character with the Unicode Alphabetic or Numeric property (Rust's char::is_alphanumeric), which besides letters and digits takes in letter-like symbols such as \u24b6 and combining vowel signs. Its words (runs of letters and digits) are matched as prefixes, all of them, over name, municipality and province, folding case and diacritics; by default also through an area's other names and with typos (see match). Any character may appear and is taken as text, never as query syntax.",
    ),
    query(
        "lat",
        {"type": "number", "minimum": LAT_MIN, "maximum": LAT_MAX, "examples": [-33.9249]},
        f"Latitude of the centre in degrees, {LAT_MIN} to {LAT_MAX}; needs lng." + NUMBER_NOTE,
    ),
    query(
        "lng",
        {"type": "number", "minimum": LNG_MIN, "maximum": LNG_MAX, "examples": [18.4241]},
        f"Longitude of the centre in degrees, {LNG_MIN} to {LNG_MAX}; needs lat." + NUMBER_NOTE,
    ),
    # No schema `default`: generated clients send a default on every call,
    # and radius without lat and lng is 400.
    query(
        "radius",
        {
            "type": "number",
            "exclusiveMinimum": RADIUS_KM_MIN,
            "maximum": RADIUS_KM_MAX,
            "examples": [5],
        },
        f"Radius in km, greater than {RADIUS_KM_MIN} and at most {RADIUS_KM_MAX}; {RADIUS_KM_DEFAULT} when lat and lng are given without it. Needs lat and lng. An area is in when its haversine distance (Earth radius 6371.0088 km) is at most radius." + NUMBER_NOTE,
    ),
    query(
        "bbox",
        {"type": "string", "pattern": BBOX, "examples": ["18.3,-34.2,18.7,-33.7"]},
        f"A map viewport: minLng,minLat,maxLng,maxLat ({BBOX_NUMBERS} comma-separated numbers, GeoJSON's order, in degrees; longitudes {LNG_MIN} to {LNG_MAX}, latitudes {LAT_MIN} to {LAT_MAX}). An area is in when its centre lies in the box, edges included. minLng greater than maxLng is a box that crosses the antimeridian; minLat greater than maxLat, a value out of range, or other than exactly {BBOX_NUMBERS} numbers is 400 with param bbox. Each number is written as for lat and lng.",
    ),
    query(
        "min_score",
        {"type": "number", "minimum": MIN_SCORE_MIN, "maximum": MIN_SCORE_MAX, "examples": [5]},
        f"Minimum truth_score, {MIN_SCORE_MIN} to {MIN_SCORE_MAX}." + NUMBER_NOTE,
    ),
    province_param(
        "Only areas of this province: the filter slugs List Areas takes. Combines with every other criterion; any other value is 400 with param province."
    ),
    query(
        "limit",
        {"type": "integer", "minimum": SEARCH_LIMIT_MIN, "maximum": SEARCH_LIMIT_MAX, "default": SEARCH_LIMIT_DEFAULT, "examples": [5]},
        f"Page size, {SEARCH_LIMIT_MIN} to {SEARCH_LIMIT_MAX}." + INTEGER_NOTE,
    ),
    offset_param(),
    format_param(LIST_FORMATS, "CSV and GeoJSON carry distance_km too when lat and lng are given; GeoJSON carries match too when q is given (CSV keeps its columns)."),
    query(
        "match",
        {"type": "string", "enum": MATCHINGS, "default": MATCHING_DEFAULT},
        f"How the words of q match. forgiving: after the areas every word matches exactly or as a prefix come, in tiers, those found through an other name (Get Area's other_names), then with one typo (a word of {TYPO_ONE_FROM} letters or more one edit away: a letter added, dropped, changed, or two neighbours swapped) or two words joined or one split (each part at least {SPLIT_PART_MIN} letters), then with two typos (a word of {TYPO_TWO_FROM} letters or more). An area's tier is that of its weakest word; every word but the last must match a whole word to count a typo, the last matches as a prefix. A word of under {TYPO_ONE_FROM} letters gets no typo of its own, and a q of more than {FORGIVING_WORDS_MAX} words matches exactly. exact: the first tier only. Each item of a search with q says how it matched (match). Other criteria bind every tier alike; without q, match changes nothing.",
    ),
]

AREAS_PATH_NOTE = "Answers 404 area_not_found when no area has the id."

GET_OPS = {
    "/v1/areas": {
        "operationId": "listAreas",
        "summary": "List areas",
        "description": "A page of areas, optionally of one province. Sorting is stable: ties are broken by id ascending, so paging never repeats or skips an area. `name` sorts case-insensitively (ASCII folding).",
        "tags": ["areas"],
        "parameters": [
            province_param(),
            query(
                "limit",
                {"type": "integer", "minimum": LIST_LIMIT_MIN, "maximum": LIST_LIMIT_MAX, "default": LIST_LIMIT_DEFAULT, "examples": [50]},
                f"Page size, {LIST_LIMIT_MIN} to {LIST_LIMIT_MAX}." + INTEGER_NOTE,
            ),
            offset_param(),
            query("sort", {"type": "string", "enum": SORTS, "default": SORT_DEFAULT}, "Sort key."),
            query("order", {"type": "string", "enum": ORDERS, "default": ORDER_DEFAULT}, "Sort direction."),
            format_param(LIST_FORMATS, "Every representation carries X-Total-Count and Link."),
            *REQUEST_HEADERS,
        ],
        "responses": api_responses(
            page_success(
                "A page of areas.",
                "AreaPage",
                "AreaFeatureCollection",
                links={
                    "FirstArea": link("getArea", "$response.body#/data/0/id", "The first area of the page (JSON answers)."),
                    "FirstAreaHistory": link("getAreaHistory", "$response.body#/data/0/id", "The history of the first area of the page (JSON answers)."),
                },
            )
        ),
    },
    "/v1/areas/search": {
        "operationId": "searchAreas",
        "summary": "Search areas",
        "description": "By text, by circle, by viewport, by minimum score, by province, or any of them together. " + SEARCH_RULE + " Order: by relevance when q is given (the tiers of match in order; within each, areas whose name holds every word first), else by distance when lat/lng are given, else by truth_score descending; ties by id. Pages at any offset; an offset past the end gives an empty page.",
        "tags": ["areas"],
        "parameters": [*SEARCH_PARAMETERS, *REQUEST_HEADERS],
        "responses": api_responses(
            page_success(
                "Matching areas.",
                "SearchPage",
                "SearchFeatureCollection",
                links={"BestMatch": link("getArea", "$response.body#/data/0/id", "The first match (JSON answers).")},
                csv_optional="distance_km",
                item_extra=PAGE_EXAMPLE_MATCH,
            )
        ),
    },
    "/v1/areas/export": {
        "operationId": "exportAreas",
        "summary": "Export areas",
        "description": "Every area, or every area of one province, ordered by id, each with the list form's fields, its centre (lat, lng) and each dimension's score, in one answer to save as a file. Growth plan and above. When too many exports are in flight the answer is 503 service_unavailable with Retry-After.",
        "tags": ["areas"],
        "parameters": [
            province_param(),
            format_param(EXPORT_FORMATS, "ndjson is one JSON object a line."),
            *REQUEST_HEADERS,
        ],
        "responses": {
            **api_responses(export_success(), plan=True),
            "426": ref("responses", "UpgradeRequired"),
        },
    },
    "/v1/areas/compare": {
        "operationId": "compareAreas",
        "summary": "Compare areas",
        "description": f"{COMPARE_IDS_MIN} to {COMPARE_IDS_MAX} areas side by side, with the winner overall and per dimension. A winner has the highest score; a tie goes to the area listed first in ids.",
        "tags": ["areas"],
        "parameters": [
            query(
                "ids",
                {"type": "string", "pattern": IDS, "examples": ["cape-town,stellenbosch"]},
                f"{COMPARE_IDS_MIN} to {COMPARE_IDS_MAX} distinct area ids, comma-separated, taken as given (no empty item, no item twice; whitespace and case are not folded). Unknown ids answer 404 area_not_found naming every one of them.",
                required=True,
            ),
            query(
                "dimensions",
                {"type": "string", "pattern": DIMENSION_LIST, "examples": ["safety,market"]},
                f"Dimension names to compare, comma-separated, each at most once ({', '.join(DIMENSIONS)}); they limit both areas[].dimensions and winner.by_dimension. Default: all {len(DIMENSIONS)}.",
            ),
            *REQUEST_HEADERS,
        ],
        "responses": api_responses(
            success(
                "The comparison.",
                "Comparison",
                links={"Winner": link("getArea", "$response.body#/winner/overall", "The overall winner.")},
            ),
            area=True,
        ),
    },
    "/v1/areas/{area_id}": {
        "operationId": "getArea",
        "summary": "Get an area",
        "description": "One area with its dimension breakdown; optionally nearby areas and (growth plan and above) its last 30 days of history. " + AREAS_PATH_NOTE,
        "tags": ["areas"],
        "parameters": [
            query(
                "include",
                {"type": "string", "pattern": INCLUDE, "examples": [",".join(reversed(INCLUDES))]},
                "Comma-separated extras, in any order, each at most once: " + " and/or ".join(INCLUDES) + ". history needs the growth plan or above (else 403).",
            ),
            *REQUEST_HEADERS,
        ],
        "responses": api_responses(
            success(
                "The area.",
                "AreaDetail",
                links={
                    "History": link("getAreaHistory", "$response.body#/id", "This area's history."),
                },
            ),
            plan=True,
            area=True,
        ),
    },
    "/v1/areas/{area_id}/history": {
        "operationId": "getAreaHistory",
        "summary": "Get an area's score history",
        "description": "The truth_score series of an area over a period ending on its latest history date. Growth plan and above. " + AREAS_PATH_NOTE,
        "tags": ["areas"],
        "parameters": [
            query("period", {"type": "string", "enum": PERIODS, "default": PERIOD_DEFAULT}, "Window: the last 7, 30, 90 or 365 days."),
            query("granularity", {"type": "string", "enum": GRANULARITIES, "default": GRANULARITY_DEFAULT}, "daily points, or weekly / monthly means."),
            *REQUEST_HEADERS,
        ],
        "responses": api_responses(
            success(
                "The history.",
                "AreaHistory",
                links={"Area": link("getArea", "$response.body#/area_id", "The area itself.")},
            ),
            plan=True,
            area=True,
        ),
    },
    "/v1/key": {
        "operationId": "getKey",
        "summary": "The calling key",
        "description": "The calling key's id, plan, rate limit with what is left of it, and its requests today. Any plan. Takes nothing from the key's budget, so a key that has spent it can still ask when it may go on: the answer carries the key's rate headers like any other, and is never 429 rate_limited. It still needs a valid key: a request without one is counted against its client's keyless budget like any other (401, then 429 too_many_unknown_keys). Never cached (Cache-Control: no-store), so it has no ETag and never answers 304.",
        "tags": ["keys"],
        "parameters": REQUEST_HEADERS,
        "responses": api_responses(
            json_response("The key.", "KeyInfo", headers(*COMMON, "Cache-Control-NoStore", "Vary-Coding", "Content-Encoding", optional_names=RATE)),
            validated=False,
            spends=False,
        ),
    },
    "/v1/openapi.json": {
        "operationId": "getOpenApi",
        "summary": "This document",
        "description": "The OpenAPI document of the API. No key needed, no rate limit.",
        "tags": ["meta"],
        "security": [],
        "parameters": REQUEST_HEADERS,
        "responses": public_responses(
            json_response("The OpenAPI 3.1 document.", "OpenApiDocument", headers(*COMMON, *CACHE, "Content-Encoding")),
            extra={"304": ref("responses", "NotModified")},
        ),
    },
    "/healthz": {
        "operationId": "health",
        "summary": "Health check",
        "description": "Whether the database answers, and which data it serves (when the dataset was made, from which file and its SHA-256, by which build, how many areas, when it was loaded). No key needed, no rate limit; for load balancers and supervisors. After a refused reload the answer is still 200, with status degraded and a reason, until a reload succeeds.",
        "tags": ["meta"],
        "security": [],
        "parameters": [ref("parameters", "AcceptEncoding"), ref("parameters", "XRequestId")],
        "responses": public_responses(
            json_response("The database answers.", "Health", headers(*COMMON, "Cache-Control-NoStore", "Vary-Coding", "Content-Encoding")),
            extra={"503": ref("responses", "ServiceUnavailable")},
        ),
    },
    "/metrics": {
        "operationId": "metrics",
        "summary": "Prometheus metrics",
        "description": "Prometheus text exposition format (0.0.4): requests by route and status, a latency histogram by route, the database pool's busy and idle connections, rate-limit refusals, the body bytes sent by content coding, the served dataset's load time and areas, refused reloads, keys loaded, the usage backlog, the build and the start time. No key needed. When serve is given --metrics-addr, /metrics moves to that address and answers 404 not_found here.",
        "tags": ["meta"],
        "security": [],
        "parameters": [ref("parameters", "AcceptEncoding"), ref("parameters", "XRequestId")],
        "responses": public_responses(
            {
                "description": "The metrics.",
                "headers": headers(*COMMON, "Cache-Control-NoStore", "Vary-Coding", "Content-Encoding"),
                "content": {"text/plain; version=0.0.4; charset=utf-8": {"schema": {"type": "string"}}},
            },
            extra={"404": json_response("not_found: /metrics was moved to --metrics-addr.", "ErrorNotFound", headers(*COMMON))},
        ),
    },
}

# A curl example per operation, as docs/api.md shows them (its examples are
# run and compared by tests/readme_examples.rs), in the x-codeSamples
# extension that API reference renderers read.
_AUTH = '-H "Authorization: Bearer $KEY"'
CURL = {
    "/v1/areas": [
        f'curl -s {_AUTH} "localhost:8080/v1/areas?province=gauteng&sort=truth_score&order=desc&limit=2"',
        f'curl -s -o /dev/null -w \'%header{{link}}\\n\' {_AUTH} "localhost:8080/v1/areas?limit=20&offset=40"',
    ],
    "/v1/areas/search": [
        f'curl -s {_AUTH} "localhost:8080/v1/areas/search?q=johannes&lat=-26.2041&lng=28.0473&radius=25&min_score=5"',
        f'curl -s {_AUTH} "localhost:8080/v1/areas/search?province=gauteng&min_score=7&limit=3"',
        f'curl -s {_AUTH} -H "Accept: application/geo+json" "localhost:8080/v1/areas/search?bbox=18.3,-34.0,18.6,-33.85&limit=2"',
        f'curl -s {_AUTH} "localhost:8080/v1/areas/search?q=cape&limit=10&offset=20&format=csv"',
        f'curl -s {_AUTH} "localhost:8080/v1/areas/search?lat=-26.2&lng=28.05&radius=1e-05"',
    ],
    "/v1/areas/export": [
        f'curl -s {_AUTH} "localhost:8080/v1/areas/export?province=northern-cape&format=csv" -o northern-cape.csv',
        f'curl -s {_AUTH} -H "Accept: application/x-ndjson" "localhost:8080/v1/areas/export" -o areas.ndjson',
    ],
    "/v1/areas/compare": [
        f'curl -s {_AUTH} "localhost:8080/v1/areas/compare?ids=johannesburg,pretoria,durban&dimensions=safety,market"',
    ],
    "/v1/areas/{area_id}": [f'curl -s {_AUTH} "localhost:8080/v1/areas/danielskuil?include=nearby"'],
    "/v1/areas/{area_id}/history": [
        f'curl -s {_AUTH} "localhost:8080/v1/areas/johannesburg/history?period=90d&granularity=monthly"',
    ],
    "/v1/key": [f'curl -s {_AUTH} "localhost:8080/v1/key"'],
    "/v1/openapi.json": ['curl -s "localhost:8080/v1/openapi.json"'],
    "/healthz": ['curl -s "localhost:8080/healthz"'],
    "/metrics": ['curl -s "localhost:8080/metrics"'],
}

PATHS = {}
for _path, _get in GET_OPS.items():
    _get["x-codeSamples"] = [{"lang": "Shell", "label": "curl", "source": c} for c in CURL[_path]]
    _label = _get["operationId"][0].upper() + _get["operationId"][1:]
    item = {}
    if "{area_id}" in _path:
        item["parameters"] = [ref("parameters", "AreaId")]
    item["get"] = _get
    item["head"] = head_of(_get)
    item["options"] = preflight(_label)
    PATHS[_path] = item


DESCRIPTION = f"""\
Read-only JSON API over scored geographic areas (South African places with a
truth_score from 0 to 10 and its breakdown by seven dimensions).

Conventions, for every operation:

* **Authentication**: `Authorization: Bearer <API key>` (scheme in any case).
  Keys are on a plan: free, starter, growth, enterprise. Score history and
  the export need growth or above. /healthz, /metrics, /v1/openapi.json and OPTIONS need no key.
* **Errors** have one shape, `{{"error": {{"code", "message", "status", "param"?, ...}}}}`,
  where `status` equals the HTTP status and `param` names the offending query
  parameter. Beside the message, for a person, some errors carry fields for a
  client's code: 400 invalid_parameter `allowed` (the words the parameter may
  take, where they are a set), 403 plan_upgrade_required `required_plan` and
  `plan` (and `param` where a parameter asked for it), 404 area_not_found
  `ids` (the unknown ids). Checks run in this order and the first that fails answers:
  request size (414, 431), authentication (401, or 429 too_many_unknown_keys
  once the client has spent its keyless budget), rate limit (429 rate_limited), path
  (404 not_found), method (405 method_not_allowed, with
  `Allow: GET, HEAD, OPTIONS`), parameters (400), plan (403), area
  (404 area_not_found). Error answers are never cached. No operation takes a
  request body: a request that carries one (any `Transfer-Encoding`, or a
  `Content-Length` above 0) is answered 400 body_not_allowed with
  `Connection: close`, and nothing it sent after is read. A request the
  HTTP layer cannot take is answered before any other check, with
  `Connection: close`: 400 bad_request (a malformed request line or head, a
  folded header, a header name or request target with a byte outside ASCII,
  two Authorization headers), 505 http_version_not_supported (a version
  other than HTTP/1.0 and HTTP/1.1) and 417 expectation_failed (an `Expect`
  other than `100-continue`). A connection past the server's connection caps
  is answered 503 service_unavailable with `Retry-After: 1`.
* **Parameters**: query strings are form-decoded (`+` is a space, percent-escapes
  are decoded in names and values; invalid UTF-8 is 400). A parameter that is
  unknown to the operation, or given twice, is 400. A query of more pairs
  than the operation has parameters is 400 naming the first of them that
  is unknown or repeated, found before any value is read; a list of more items than it takes (ids {COMPARE_IDS_MAX}, include {len(INCLUDES)},
  dimensions {len(DIMENSIONS)}, bbox exactly {BBOX_NUMBERS}) is 400 before any item is. Integers are plain decimal
  digits with an optional leading `-`; numbers are written as JSON writes them
  (`-33.9`, `1e-05`, `2.5E1`; also `.5` and `2.`; a leading `+`, nan and inf
  are 400). Comma-separated values (ids, dimensions, include, bbox) are one
  string each, taken as given: an empty or repeated item is 400.
* **Representations**: JSON unless asked otherwise. List and Search also
  answer GeoJSON (RFC 7946, `application/geo+json`) and CSV (RFC 4180,
  `text/csv`), Export also NDJSON (`application/x-ndjson`): `format=` chooses
  and wins, else Accept does; an Accept naming none of them gets JSON. Errors
  are always the JSON error body.
* **Paging**: every List and Search answer carries `X-Total-Count` and an
  RFC 8288 `Link` header (rel first, last, and prev and next where they
  exist) whose URLs repeat the request's parameters with only offset changed.
* **Caching**: successful answers carry a strong ETag and
  `Cache-Control: private, max-age=60`, and `Vary: Authorization, Accept-Encoding`
  (List, Search and Export: `Vary: Authorization, Accept, Accept-Encoding`);
  `If-None-Match` with the current ETag answers 304 without a body.
* **Compression**: with `Accept-Encoding` taking gzip (q-values read; `gzip;q=0`
  refuses it), bodies of {GZIP_MIN_BYTES} bytes or more, and exports, come gzipped
  (`Content-Encoding: gzip`) with their own ETag (`-gzip` inside the quotes);
  otherwise, and without Accept-Encoding, as they are.
* **Rate limits**: per key, a token bucket sized by the plan's requests per
  minute (free 60, starter 600, growth 3000, enterprise unlimited by default).
  Every answer to a key on a plan with a limit carries `RateLimit-Policy` and
  `RateLimit` (draft-ietf-httpapi-ratelimit-headers-{RATELIMIT_DRAFT}: `"starter";q=600;w={RATELIMIT_WINDOW_S}` and
  `"starter";r=599;t=1`, where `t` is the seconds until the bucket is full),
  and X-RateLimit-Limit, -Remaining and -Reset, which say the same; over
  the limit the answer is 429 rate_limited with Retry-After and those headers.
  GET /v1/key takes nothing from the budget. Requests without a valid key
  (missing, unknown or revoked) are counted per client address,
  {KEYLESS_PER_MINUTE} a minute, and their answers carry `RateLimit-Policy: "{KEYLESS_POLICY}";q={KEYLESS_PER_MINUTE};w={RATELIMIT_WINDOW_S}`
  and `RateLimit: "{KEYLESS_POLICY}";r=N;t=M`; past that budget the answer is
  429 too_many_unknown_keys, with `WWW-Authenticate: Bearer` and Retry-After: a
  client should fix its key rather than retry. Without Redis, limits are kept
  in each server process: behind a balancer they apply per replica. With
  Redis named (AREA_REDIS), one budget per key is shared by every server;
  requests without a valid key are still limited by each server.
* **CORS**: every answer carries `Access-Control-Allow-Origin: *` and exposes
  {", ".join(EXPOSED_HEADERS)}; OPTIONS on any API path
  answers 204 without a key.
* Every answer carries `X-Request-Id`. HEAD works wherever GET does.
* **Public routes** (/v1/openapi.json, /healthz, /metrics) need no key, are not
  rate-limited, and take no query parameters (any is 400).
* **Browser pages** at `/` (HTML for a browser, a JSON index of links
  otherwise), `/docs` (this document as an API reference with try-it) and
  `/explore` (an area explorer) need no key and are not part of this API: every
  path under /v1 answers JSON. They answer GET and HEAD and ignore a query
  string. `/docs/` and `/explore/`, as people type them, answer 308 with
  `Location: /docs` or `/explore`, also without a key.
* Behind the nginx front of deploy/ (docs/deployment.md), the front answers
  some requests itself, in the same error shape: a request line over 8 KiB is
  414 uri_too_long, headers over 16 KiB are 431 headers_too_large, more than 20
  requests in flight from one address are 429 rate_limited, and when no replica
  answers the result is 502 bad_gateway or 504 gateway_timeout. It also answers
  404 not_found to /metrics.
* Patterns are ECMA-262 regular expressions that Python's `re` reads the same
  way; `q`'s is the explicit class of every code point with the Unicode
  Alphabetic or Numeric property.
"""

DOCUMENT = {
    "openapi": "3.1.0",
    "info": {
        "title": "Area Scoring API",
        "version": "1.0.0",
        "summary": "Scored areas: list, get, search, compare, history, export.",
        "description": DESCRIPTION,
        "license": {"name": "MIT", "identifier": "MIT"},
    },
    "servers": [{"url": "/", "description": "The server that serves this document (make run: http://127.0.0.1:8080)."}],
    "security": [{"bearerAuth": []}],
    "tags": [
        {"name": "areas", "description": "The scored areas."},
        {"name": "keys", "description": "The calling API key: its plan, limit and usage."},
        {"name": "meta", "description": "Health, metrics and this document; no key needed."},
        {"name": "cors", "description": "Browser preflight."},
    ],
    "paths": PATHS,
    "components": {
        "securitySchemes": {
            "bearerAuth": {
                "type": "http",
                "scheme": "bearer",
                "description": "An API key issued with `area-scoring keys create --plan PLAN`.",
            }
        },
        "schemas": SCHEMAS,
        "headers": HEADERS,
        "parameters": PARAMETERS,
        "responses": RESPONSES,
    },
}


def render():
    return json.dumps(DOCUMENT, indent=2, ensure_ascii=False) + "\n"


def main(argv):
    text = render()
    if "--check" in argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is stale: run python3 contract/build_openapi.py", file=sys.stderr)
            return 1
        return 0
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
