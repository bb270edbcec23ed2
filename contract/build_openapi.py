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
# The query parameters' bounds and words, named as in src/api/contract.rs.
LIST_LIMIT_MIN, LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT = 1, 100, 20
SORTS, SORT_DEFAULT = ["name", "truth_score", "updated_at"], "name"
ORDERS, ORDER_DEFAULT = ["asc", "desc"], "asc"
INCLUDES = ["history", "nearby"]
Q_CHARS_MIN, Q_CHARS_MAX = 1, 200
SEARCH_LIMIT_MIN, SEARCH_LIMIT_MAX, SEARCH_LIMIT_DEFAULT = 1, 50, 10
RADIUS_KM_DEFAULT = "10"
COMPARE_IDS_MIN, COMPARE_IDS_MAX = 2, 5
PERIODS, PERIOD_DEFAULT = ["7d", "30d", "90d", "1y"], "30d"
GRANULARITIES, GRANULARITY_DEFAULT = ["daily", "weekly", "monthly"], "daily"

# ---------------------------------------------------------------------------
# Number grammars. The server reads numbers in plain decimal notation only
# (`-12.5`, `3`, `.5`, `2.`; no exponent, no sign '+', no nan or inf), so the
# numeric query parameters are described as strings whose pattern is exactly
# the set of accepted values: grammar and bounds in one regular expression.
# The bounds are those of src/api/contract.rs (LAT, LNG, RADIUS_KM, MIN_SCORE);
# tests/openapi_constants.rs probes each pattern at and around them against
# the server's own parser.
# ---------------------------------------------------------------------------

# |x| <= 90
LAT = r"^-?(?:0*(?:[1-8]?[0-9](?:\.[0-9]*)?|90(?:\.0*)?)|\.[0-9]+)$"
# |x| <= 180
LNG = r"^-?(?:0*(?:(?:1[0-7][0-9]|[1-9]?[0-9])(?:\.[0-9]*)?|180(?:\.0*)?)|\.[0-9]+)$"
# 0 < x <= 50 (no sign: a negative or zero radius is refused)
RADIUS = r"^0*(?:(?:[1-9]|[1-4][0-9])(?:\.[0-9]*)?|50(?:\.0*)?|\.[0-9]*[1-9][0-9]*)$"
# 0 <= x <= 10 (a negative zero such as -0 or -0.0 is zero, and accepted)
MIN_SCORE = r"^(?:0*(?:[0-9](?:\.[0-9]*)?|10(?:\.0*)?)|\.[0-9]+|-(?:0+\.?0*|\.0+))$"


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
TEXT = {"type": "string", "minLength": 1, "maxLength": 200, "pattern": r"^[^\x00-\x1f\x7f-\x9f]+$"}
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


def error_schema(status, codes, with_param=False, description=None):
    detail_props = {
        "code": {"type": "string", "enum": codes, "description": "Machine-readable code."},
        "message": {
            "type": "string",
            "minLength": 1,
            "description": "What was wrong and what is allowed; for a missing area it names the id.",
        },
        "status": {"type": "integer", "const": status, "description": "Equal to the HTTP status."},
    }
    required = ["code", "message", "status"]
    if with_param:
        detail_props["param"] = {
            "type": "string",
            "description": "The query parameter at fault.",
        }
        required.append("param")
    return obj(
        {"error": obj(detail_props, required)},
        description=description,
    )


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
            "id": AREA_ID,
            "name": TEXT,
            "province": PROVINCE_NAME,
            "municipality": TEXT,
            "truth_score": SCORE,
            "updated_at": TIMESTAMP,
            "distance_km": {
                "type": "number",
                "minimum": 0,
                "maximum": 50,
                "description": "Great-circle distance from (lat, lng) in km, 2 decimals. Present exactly when lat and lng are given.",
            },
        },
        required=["id", "name", "province", "municipality", "truth_score", "updated_at"],
        description="An area in list form, plus distance_km on a geo search.",
    ),
    "AreaPage": obj(
        {
            "data": {"type": "array", "items": ref("schemas", "AreaSummary"), "maxItems": LIST_LIMIT_MAX},
            "total": {"type": "integer", "minimum": 0, "description": "Number of areas matching the filter (not only this page)."},
            "limit": {"type": "integer", "minimum": LIST_LIMIT_MIN, "maximum": LIST_LIMIT_MAX, "description": "Page size in effect."},
            "offset": {"type": "integer", "minimum": 0, "description": "Offset in effect."},
        },
        description="One page of List Areas.",
    ),
    "SearchPage": obj(
        {
            "data": {"type": "array", "items": ref("schemas", "SearchHit"), "maxItems": SEARCH_LIMIT_MAX},
            "total": {"type": "integer", "minimum": 0, "description": "Number of matching areas (every match, not only this page)."},
            "limit": {"type": "integer", "minimum": SEARCH_LIMIT_MIN, "maximum": SEARCH_LIMIT_MAX, "description": "Page size in effect."},
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
        required=["id", "name", "province", "municipality", "truth_score", "dimensions", "coordinates", "updated_at"],
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
    "Health": obj(
        {
            "status": {"type": "string", "const": "ok"},
            "areas": {"type": "integer", "minimum": 0, "description": "Number of areas being served."},
        }
    ),
    # Filled in below, once SEARCH_CRITERIA is defined.
    "SearchCriteria": None,
    "OpenApiDocument": {
        "type": "object",
        "description": "This document.",
        "required": ["openapi", "info", "paths"],
        "properties": {"openapi": {"type": "string", "pattern": r"^3\.1\."}},
    },
    # Errors: one body shape, with the codes each status can carry.
    "ErrorInvalidParameter": error_schema(400, ["invalid_parameter"], with_param=True),
    "ErrorUnauthorized": error_schema(401, ["missing_api_key", "invalid_api_key"]),
    "ErrorPlanUpgradeRequired": error_schema(403, ["plan_upgrade_required"]),
    "ErrorAreaNotFound": error_schema(
        404,
        ["area_not_found", "not_found"],
        description="area_not_found names every unknown id; not_found answers a path that no route has (an id that changes the path's shape, such as one with a slash).",
    ),
    "ErrorNotFound": error_schema(404, ["not_found"]),
    "ErrorUriTooLong": error_schema(414, ["uri_too_long"]),
    "ErrorRateLimited": error_schema(429, ["rate_limited"]),
    "ErrorHeadersTooLarge": error_schema(431, ["headers_too_large"]),
    "ErrorInternal": error_schema(500, ["internal_error"]),
    "ErrorBadGateway": error_schema(
        502, ["bad_gateway"], description="Answered by the nginx front of deploy/ when no replica answers (deployments behind it only)."
    ),
    "ErrorServiceUnavailable": error_schema(503, ["service_unavailable"]),
    "ErrorGatewayTimeout": error_schema(
        504, ["gateway_timeout"], description="Answered by the nginx front of deploy/ when no replica answers in time (deployments behind it only)."
    ),
}

# ---------------------------------------------------------------------------
# Headers
# ---------------------------------------------------------------------------

HEADERS = {
    "X-Request-Id": {
        "description": "The request's id: the client's own X-Request-Id when it is 1 to 64 letters, digits, '-', '_' or '.', else a new one. Also in the server's log line.",
        "required": True,
        "schema": {"type": "string", "pattern": r"^[A-Za-z0-9._-]{1,64}$"},
    },
    "ETag": {
        "description": "Strong validator of the body. Send it back in If-None-Match to get 304 when nothing changed.",
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
        "description": "The body depends on the Authorization header.",
        "required": True,
        "schema": {"type": "string", "pattern": "Authorization"},
    },
    "X-RateLimit-Limit": {
        "description": "Requests per minute of the key's plan (free 60, starter 600, growth 3000 by default). Present on every answer to a valid key whose plan has a limit (enterprise has none by default). Limits are kept per server process: behind a balancer, per replica.",
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
        "description": "CORS: the response headers a browser script may read: ETag, X-Request-Id and the X-RateLimit headers (and Retry-After).",
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
HEADER_NAME = {"Cache-Control-NoStore": "Cache-Control"}


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
RATE = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
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
        "invalid_parameter: a query parameter out of bounds, of the wrong type or grammar, of an unknown value, given twice, or not one of the operation's parameters; `param` names it.",
        "ErrorInvalidParameter",
        optional_names=RATE,
    ),
    "Unauthorized": error_response(
        "missing_api_key: no Authorization header, or not `Bearer <key>` (the scheme in any case); invalid_api_key: a key that is unknown or revoked.",
        "ErrorUnauthorized",
        "WWW-Authenticate",
    ),
    "PlanUpgradeRequired": error_response(
        "plan_upgrade_required: score history (the history endpoint, or include=history) needs the growth plan or above.",
        "ErrorPlanUpgradeRequired",
        optional_names=RATE,
    ),
    "AreaNotFound": error_response(
        "area_not_found: no area has this id (the message names it; Compare names every unknown id).",
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
        "rate_limited: the key has used up its plan's requests per minute, or (without a valid key) the client address has used up its 60 a minute. Retry after Retry-After seconds.",
        "ErrorRateLimited",
        "Retry-After",
        optional_names=RATE,
    ),
    "InternalError": error_response(
        "internal_error: something unexpected; the message holds no internals.",
        "ErrorInternal",
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
        "service_unavailable: the database cannot be read right now (file removed, corrupt or locked, or every connection busy); retry after Retry-After seconds.",
        "ErrorServiceUnavailable",
        "Retry-After",
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
    "XRequestId": {
        "name": "X-Request-Id",
        "in": "header",
        "required": False,
        "description": "Your id for the request. Echoed back when it is 1 to 64 letters, digits, '-', '_' or '.'; otherwise ignored and a new id is made.",
        "schema": {"type": "string"},
    },
}

REQUEST_HEADERS = [ref("parameters", "IfNoneMatch"), ref("parameters", "XRequestId")]

NUMBER_NOTE = " Decimal notation only: digits with an optional leading '-' and an optional '.' (no exponent, no '+', no nan or inf)."


def success(description, schema_name, links=None):
    r = json_response(description, schema_name, headers(*COMMON, *CACHE, optional_names=RATE))
    if links:
        r["links"] = links
    return r


def link(operation_id, area_id_expression, description):
    """An OpenAPI link: an id from this answer into the area_id of another operation."""
    return {
        "operationId": operation_id,
        "parameters": {"path.area_id": area_id_expression},
        "description": description,
    }


def api_responses(ok, *, plan=False, area=False):
    r = {
        "200": ok,
        "304": ref("responses", "NotModified"),
        "400": ref("responses", "InvalidParameter"),
        "401": ref("responses", "Unauthorized"),
    }
    if plan:
        r["403"] = ref("responses", "PlanUpgradeRequired")
    if area:
        r["404"] = ref("responses", "AreaNotFound")
    r.update(
        {
            "414": ref("responses", "UriTooLong"),
            "429": ref("responses", "RateLimited"),
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


SEARCH_CRITERIA = {
    "type": "object",
    "description": "The search criteria, each its own query parameter (form style, exploded). At least one of q, lat+lng or min_score; lat and lng come together; radius needs them. Every criterion given must hold.",
    "properties": {
        "q": {
            "type": "string",
            "minLength": Q_CHARS_MIN,
            "maxLength": Q_CHARS_MAX,
            "pattern": ALNUM,
            "description": f"Text: {Q_CHARS_MIN} to {Q_CHARS_MAX} characters holding at least one letter or digit: a character with the Unicode Alphabetic or Numeric property (Rust's char::is_alphanumeric), which besides letters and digits takes in letter-like symbols such as \u24b6 and combining vowel signs. Its words (runs of letters and digits) are matched as prefixes, all of them, over name, municipality and province, folding case and diacritics. Any character may appear and is taken as text, never as query syntax.",
            "examples": ["cape town", "danielskuil"],
        },
        "lat": {
            "type": "string",
            "pattern": LAT,
            "description": "Latitude of the centre, -90 to 90, given together with lng." + NUMBER_NOTE,
            "examples": ["-33.9249"],
        },
        "lng": {
            "type": "string",
            "pattern": LNG,
            "description": "Longitude of the centre, -180 to 180, given together with lat." + NUMBER_NOTE,
            "examples": ["18.4241"],
        },
        "radius": {
            "type": "string",
            "pattern": RADIUS,
            "default": RADIUS_KM_DEFAULT,
            "description": f"Radius in km, greater than 0 and at most 50; default {RADIUS_KM_DEFAULT}. Needs lat and lng. An area is in when its haversine distance (Earth radius 6371.0088 km) is at most radius." + NUMBER_NOTE,
            "examples": ["5"],
        },
        "min_score": {
            "type": "string",
            "pattern": MIN_SCORE,
            "description": "Minimum truth_score, 0 to 10." + NUMBER_NOTE,
            "examples": ["7.5"],
        },
    },
    "additionalProperties": False,
    "anyOf": [
        {"required": ["lat", "lng"]},
        {
            "allOf": [
                {"not": {"anyOf": [{"required": ["lat"]}, {"required": ["lng"]}, {"required": ["radius"]}]}},
                {"anyOf": [{"required": ["q"]}, {"required": ["min_score"]}]},
            ]
        },
    ],
}

SCHEMAS["SearchCriteria"] = SEARCH_CRITERIA

AREAS_PATH_NOTE = "Answers 404 area_not_found when no area has the id."

GET_OPS = {
    "/v1/areas": {
        "operationId": "listAreas",
        "summary": "List areas",
        "description": "A page of areas, optionally of one province. Sorting is stable: ties are broken by id ascending, so paging never repeats or skips an area. `name` sorts case-insensitively (ASCII folding).",
        "tags": ["areas"],
        "parameters": [
            query("province", {"type": "string", "enum": PROVINCES}, "Only areas of this province (filter slug)."),
            query(
                "limit",
                {"type": "integer", "minimum": LIST_LIMIT_MIN, "maximum": LIST_LIMIT_MAX, "default": LIST_LIMIT_DEFAULT},
                f"Page size, {LIST_LIMIT_MIN} to {LIST_LIMIT_MAX}. Plain decimal digits.",
            ),
            query("offset", {"type": "integer", "minimum": 0, "maximum": 9223372036854775807, "default": 0}, "Areas to skip, 0 or more. Plain decimal digits."),
            query("sort", {"type": "string", "enum": SORTS, "default": SORT_DEFAULT}, "Sort key."),
            query("order", {"type": "string", "enum": ORDERS, "default": ORDER_DEFAULT}, "Sort direction."),
            *REQUEST_HEADERS,
        ],
        "responses": api_responses(
            success(
                "A page of areas.",
                "AreaPage",
                links={
                    "FirstArea": link("getArea", "$response.body#/data/0/id", "The first area of the page."),
                    "FirstAreaHistory": link("getAreaHistory", "$response.body#/data/0/id", "The history of the first area of the page."),
                },
            )
        ),
    },
    "/v1/areas/search": {
        "operationId": "searchAreas",
        "summary": "Search areas",
        "description": "By text, by circle, by minimum score, or any of them together (every criterion given must hold). Order: by relevance when q is given (areas whose name holds every word first), else by distance when lat/lng are given, else by truth_score descending; ties by id.",
        "tags": ["areas"],
        "parameters": [
            {
                "name": "criteria",
                "in": "query",
                "required": True,
                "style": "form",
                "explode": True,
                "description": "q, lat, lng, radius and min_score, each sent as its own query parameter.",
                "schema": ref("schemas", "SearchCriteria"),
            },
            query(
                "limit",
                {"type": "integer", "minimum": SEARCH_LIMIT_MIN, "maximum": SEARCH_LIMIT_MAX, "default": SEARCH_LIMIT_DEFAULT},
                f"Page size, {SEARCH_LIMIT_MIN} to {SEARCH_LIMIT_MAX}. Plain decimal digits.",
            ),
            *REQUEST_HEADERS,
        ],
        "responses": api_responses(
            success(
                "Matching areas.",
                "SearchPage",
                links={"BestMatch": link("getArea", "$response.body#/data/0/id", "The first match.")},
            )
        ),
    },
    "/v1/areas/compare": {
        "operationId": "compareAreas",
        "summary": "Compare areas",
        "description": f"{COMPARE_IDS_MIN} to {COMPARE_IDS_MAX} areas side by side, with the winner overall and per dimension. A winner has the highest score; a tie goes to the area listed first in ids.",
        "tags": ["areas"],
        "parameters": [
            query(
                "ids",
                {
                    "type": "array",
                    "minItems": COMPARE_IDS_MIN,
                    "maxItems": COMPARE_IDS_MAX,
                    "uniqueItems": True,
                    "items": {"type": "string", "minLength": 1, "pattern": "^[^,]+$"},
                },
                f"{COMPARE_IDS_MIN} to {COMPARE_IDS_MAX} distinct area ids, comma-separated, taken as given (no empty item, no item twice; whitespace and case are not folded). Unknown ids answer 404 area_not_found naming every one of them.",
                required=True,
                style="form",
                explode=False,
                examples={"two": {"value": ["cape-town", "stellenbosch"]}},
            ),
            query(
                "dimensions",
                {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 7,
                    "uniqueItems": True,
                    "items": {"type": "string", "enum": DIMENSIONS},
                },
                "Dimension names to compare, comma-separated, no repeats; they limit both areas[].dimensions and winner.by_dimension. Default: all seven.",
                style="form",
                explode=False,
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
                {"type": "string", "enum": [*INCLUDES, ",".join(INCLUDES), ",".join(reversed(INCLUDES))]},
                "Comma-separated extras: history (growth plan and above, else 403) and/or nearby, each at most once.",
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
    "/v1/openapi.json": {
        "operationId": "getOpenApi",
        "summary": "This document",
        "description": "The OpenAPI document of the API. No key needed, no rate limit.",
        "tags": ["meta"],
        "security": [],
        "parameters": REQUEST_HEADERS,
        "responses": public_responses(
            json_response("The OpenAPI 3.1 document.", "OpenApiDocument", headers(*COMMON, *CACHE)),
            extra={"304": ref("responses", "NotModified")},
        ),
    },
    "/healthz": {
        "operationId": "health",
        "summary": "Health check",
        "description": "Whether the database answers. No key needed, no rate limit; for load balancers and supervisors.",
        "tags": ["meta"],
        "security": [],
        "parameters": [ref("parameters", "XRequestId")],
        "responses": public_responses(
            json_response("The database answers.", "Health", headers(*COMMON, "Cache-Control-NoStore")),
            extra={"503": ref("responses", "ServiceUnavailable")},
        ),
    },
    "/metrics": {
        "operationId": "metrics",
        "summary": "Prometheus metrics",
        "description": "Prometheus text exposition format (0.0.4): requests by route and status, a latency histogram by route, the database pool's busy and idle connections, and rate-limit refusals. No key needed. When serve is given --metrics-addr, /metrics moves to that address and answers 404 not_found here.",
        "tags": ["meta"],
        "security": [],
        "parameters": [ref("parameters", "XRequestId")],
        "responses": public_responses(
            {
                "description": "The metrics.",
                "headers": headers(*COMMON, "Cache-Control-NoStore"),
                "content": {"text/plain; version=0.0.4; charset=utf-8": {"schema": {"type": "string"}}},
            },
            extra={"404": json_response("not_found: /metrics was moved to --metrics-addr.", "ErrorNotFound", headers(*COMMON))},
        ),
    },
}

PATHS = {}
for _path, _get in GET_OPS.items():
    _label = _get["operationId"][0].upper() + _get["operationId"][1:]
    item = {}
    if "{area_id}" in _path:
        item["parameters"] = [ref("parameters", "AreaId")]
    item["get"] = _get
    item["head"] = head_of(_get)
    item["options"] = preflight(_label)
    PATHS[_path] = item


DESCRIPTION = """\
Read-only JSON API over scored geographic areas (South African places with a
truth_score from 0 to 10 and its breakdown by seven dimensions).

Conventions, for every operation:

* **Authentication**: `Authorization: Bearer <API key>` (scheme in any case).
  Keys are on a plan: free, starter, growth, enterprise. Score history needs
  growth or above. /healthz, /metrics, /v1/openapi.json and OPTIONS need no key.
* **Errors** have one shape, `{"error": {"code", "message", "status", "param"?}}`,
  where `status` equals the HTTP status and `param` names the offending query
  parameter. Checks run in this order and the first that fails answers:
  request size (414, 431), authentication (401), rate limit (429), path
  (404 not_found), method (405 method_not_allowed, with
  `Allow: GET, HEAD, OPTIONS`), parameters (400), plan (403), area
  (404 area_not_found). Error answers are never cached.
* **Parameters**: query strings are form-decoded (`+` is a space, percent-escapes
  are decoded in names and values; invalid UTF-8 is 400). A parameter that is
  unknown to the operation, or given twice, is 400. Integers are plain decimal
  digits with an optional leading `-`; numbers are decimal notation (no exponent,
  nan or inf). Comma-separated values are taken as given: an empty or repeated
  item is 400.
* **Caching**: successful answers carry a strong ETag and
  `Cache-Control: private, max-age=60`; `If-None-Match` with the current ETag
  answers 304 without a body.
* **Rate limits**: per key, a token bucket sized by the plan's requests per
  minute (free 60, starter 600, growth 3000, enterprise unlimited by default).
  Authenticated answers carry X-RateLimit-Limit, -Remaining and -Reset; over
  the limit the answer is 429 rate_limited with Retry-After. Requests without a
  valid key are limited per client address. Limits are kept in each server
  process: behind a balancer they apply per replica.
* **CORS**: every answer carries `Access-Control-Allow-Origin: *` and exposes
  ETag, X-Request-Id and the X-RateLimit headers; OPTIONS on any API path
  answers 204 without a key.
* Every answer carries `X-Request-Id`. HEAD works wherever GET does.
* **Public routes** (/v1/openapi.json, /healthz, /metrics) need no key, are not
  rate-limited, and take no query parameters (any is 400).
* Behind the nginx front of deploy/ (docs/deployment.md), the front answers
  some requests itself, in the same error shape: a request line over 8 KiB is
  414 uri_too_long, headers over 16 KiB are 431 headers_too_large, more than 20
  requests in flight from one address are 429 rate_limited, and when no replica
  answers the result is 502 bad_gateway or 504 gateway_timeout. It also answers
  400 bad_request to a request target holding bytes outside printable ASCII
  (percent-encode them) and 404 not_found to /metrics.
* Patterns are ECMA-262 regular expressions that Python's `re` reads the same
  way; `q`'s is the explicit class of every code point with the Unicode
  Alphabetic or Numeric property.
"""

DOCUMENT = {
    "openapi": "3.1.0",
    "info": {
        "title": "Area Scoring API",
        "version": "1.0.0",
        "summary": "Scored areas: list, get, search, compare, history.",
        "description": DESCRIPTION,
        "license": {"name": "MIT", "identifier": "MIT"},
    },
    "servers": [{"url": "http://127.0.0.1:8080", "description": "Local development server (make run)."}],
    "security": [{"bearerAuth": []}],
    "tags": [
        {"name": "areas", "description": "The scored areas."},
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
