//! The document's account of what holds for every operation (its
//! `info.description`): authentication, errors and the order of the checks,
//! parameters, representations, paging, caching, compression, rate limits,
//! CORS, the public routes and pages, and the nginx front.

use super::headers::{RATELIMIT_DRAFT, exposed, window};
use crate::access::ratelimit::ANONYMOUS_PER_MINUTE;
use crate::api::contract::{
    BBOX_NUMBERS, COMPARE_IDS_MAX, DIMENSIONS, INCLUDES, LIST_IDS_MAX, Plan,
};
use crate::api::router::ALLOWED_METHODS;
use crate::app::KEYLESS_POLICY;
use crate::app::encoding::GZIP_MIN_BYTES;

pub fn text() -> String {
    let plans: Vec<&str> = Plan::ALL.iter().map(|p| p.name()).collect();
    let plans = plans.join(", ");
    let plan = crate::api::contract::HISTORY_PLAN.name();
    let (includes, dimensions) = (INCLUDES.len(), DIMENSIONS.len());
    let (exposed, window) = (exposed(), window());
    format!(
        r#"Read-only JSON API over scored geographic areas (South African places with a
truth_score from 0 to 10 and its breakdown by seven dimensions).

Conventions, for every operation:

* **Authentication**: `Authorization: Bearer <API key>` (scheme in any case).
  Keys are on a plan: {plans}. Score history and
  the export need {plan} or above. /healthz, /metrics, /v1/openapi.json and OPTIONS need no key.
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
  `Allow: {ALLOWED_METHODS}`), parameters (400), plan (403), area
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
  is unknown or repeated, found before any value is read; a list of more items than it takes (Compare's ids {COMPARE_IDS_MAX}, List's {LIST_IDS_MAX}, include {includes},
  dimensions {dimensions}, bbox exactly {BBOX_NUMBERS}) is 400 before any item is. Integers are plain decimal
  digits with an optional leading `-`; numbers are written as JSON writes them
  (`-33.9`, `1e-05`, `2.5E1`; also `.5` and `2.`; a leading `+`, nan and inf
  are 400). Comma-separated values (ids, dimensions, include, bbox) are one
  string each, taken as given: an empty or repeated item is 400.
* **Representations**: JSON unless asked otherwise. List and Search also
  answer GeoJSON (RFC 7946, `application/geo+json`) and CSV (RFC 4180,
  `text/csv`), Export also NDJSON (`application/x-ndjson`), each at a path
  of its own: the JSON path with the format's extension (`/v1/areas.csv`,
  `/v1/areas/search.geojson`, `/v1/areas/export.ndjson`), an operation with
  one media type. There `format=` is an unknown parameter and Accept chooses
  nothing. The JSON paths still take the deprecated `format=`, which wins,
  and Accept, for older clients; an Accept naming none of the formats gets
  JSON. Errors are always the JSON error body.
* **Paging**: every List and Search answer carries `X-Total-Count` and an
  RFC 8288 `Link` header (rel first, last, and prev and next where they
  exist) whose URLs repeat the request's parameters with only offset changed;
  List with ids, one page, carries `X-Missing-Ids` instead of `Link`.
* **Caching**: successful answers carry a strong ETag and
  `Cache-Control: private, max-age=60`, and `Vary: Authorization, Accept-Encoding`
  (the JSON paths of List, Search and Export: `Vary: Authorization, Accept, Accept-Encoding`);
  `If-None-Match` with the current ETag answers 304 without a body.
* **Compression**: with `Accept-Encoding` taking gzip (q-values read; `gzip;q=0`
  refuses it), bodies of {GZIP_MIN_BYTES} bytes or more, and exports, come gzipped
  (`Content-Encoding: gzip`) with their own ETag (`-gzip` inside the quotes);
  otherwise, and without Accept-Encoding, as they are.
* **Rate limits**: per key, a token bucket sized by the plan's requests per
  minute (free 60, starter 600, growth 3000, enterprise unlimited by default).
  Every answer to a key on a plan with a limit carries `RateLimit-Policy` and
  `RateLimit` (draft-ietf-httpapi-ratelimit-headers-{RATELIMIT_DRAFT}: `"starter";q=600;w={window}` and
  `"starter";r=599;t=1`, where `t` is the seconds until the bucket is full),
  and X-RateLimit-Limit, -Remaining and -Reset, which say the same; over
  the limit the answer is 429 rate_limited with Retry-After and those headers.
  GET /v1/key takes nothing from the budget. Requests without a valid key
  (missing, unknown or revoked) are counted per client address,
  {ANONYMOUS_PER_MINUTE} a minute, and their answers carry `RateLimit-Policy: "{KEYLESS_POLICY}";q={ANONYMOUS_PER_MINUTE};w={window}`
  and `RateLimit: "{KEYLESS_POLICY}";r=N;t=M`; past that budget the answer is
  429 too_many_unknown_keys, with `WWW-Authenticate: Bearer` and Retry-After: a
  client should fix its key rather than retry. Without Redis, limits are kept
  in each server process: behind a balancer they apply per replica. With
  Redis named (AREA_REDIS), one budget per key is shared by every server;
  requests without a valid key are still limited by each server.
* **CORS**: every answer carries `Access-Control-Allow-Origin: *` and exposes
  {exposed}; OPTIONS on any API path
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
"#
    )
}
