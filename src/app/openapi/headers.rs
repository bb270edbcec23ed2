//! The document's response headers: each once as a component, and again as
//! its `-optional` twin for the answers that may go without it; and the sets
//! of them that answers share.

use serde_json::{Map, Value, json};

use super::{patterns, reference};
use crate::access::buckets::REFILL;
use crate::access::ratelimit::ANONYMOUS_PER_MINUTE;
use crate::api::router::ALLOWED_METHODS;
use crate::app::KEYLESS_POLICY;
use crate::app::caching::PRIVATE_CACHE_CONTROL;
use crate::app::encoding::GZIP_MIN_BYTES;
use crate::app::http::CORS_HEADERS;

/// The version of draft-ietf-httpapi-ratelimit-headers whose fields the server sends.
pub const RATELIMIT_DRAFT: u32 = 10;

/// The headers every answer carries.
pub const COMMON: [&str; 3] = [
    "X-Request-Id",
    "Access-Control-Allow-Origin",
    "Access-Control-Expose-Headers",
];
/// A key's budget, on every answer to a valid key whose plan has a limit.
pub const RATE: [&str; 5] = [
    "RateLimit-Policy",
    "RateLimit",
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
];
/// The keyless budget, on every answer to a request without a valid key.
pub const KEYLESS_RATE: [&str; 2] = ["RateLimit-Policy", "RateLimit"];
pub const CACHE: [&str; 3] = ["ETag", "Cache-Control", "Vary"];

/// The headers a browser script may read, as the server exposes them.
pub fn exposed() -> &'static str {
    CORS_HEADERS
        .iter()
        .find(|(name, _)| *name == "Access-Control-Expose-Headers")
        .map(|(_, value)| *value)
        .expect("CORS exposes headers")
}

/// The window of every budget, in seconds.
pub fn window() -> u64 {
    REFILL.as_secs()
}

/// The keyless budget's RateLimit-Policy field, as the server sends it.
pub fn keyless_policy() -> String {
    format!(
        "\"{KEYLESS_POLICY}\";q={ANONYMOUS_PER_MINUTE};w={}",
        window()
    )
}

/// A header: its description, whether it is always there, its schema.
fn header(description: &str, required: bool, schema: Value) -> Value {
    json!({"description": description, "required": required, "schema": schema})
}

fn constant(value: &str) -> Value {
    json!({"type": "string", "const": value})
}

fn pattern(pattern: &str) -> Value {
    json!({"type": "string", "pattern": pattern})
}

fn whole() -> Value {
    json!({"type": "integer", "minimum": 0})
}

/// Every header component, the `-optional` twins last.
pub fn all() -> Value {
    let (w, keyless) = (window(), keyless_policy());
    let link = json!({"type": "string", "pattern": patterns::link(), "examples": ["</v1/areas?limit=2&offset=0>; rel=\"first\", </v1/areas?limit=2&offset=2>; rel=\"next\", </v1/areas?limit=2&offset=936>; rel=\"last\""]});
    let disposition = json!({"type": "string", "pattern": patterns::content_disposition(), "examples": ["attachment; filename=\"areas-2026-11-22.csv\""]});
    let policy = json!({"type": "string", "pattern": patterns::ratelimit_policy(KEYLESS_POLICY, ANONYMOUS_PER_MINUTE, w), "examples": [format!("\"starter\";q=600;w={w}"), keyless]});
    let left = json!({"type": "string", "pattern": patterns::ratelimit(KEYLESS_POLICY), "examples": ["\"starter\";r=599;t=1", format!("\"{KEYLESS_POLICY}\";r=0;t={w}")]});
    let mut all = json!({
        "X-Request-Id": header("The request's id: the client's own X-Request-Id when it is 1 to 64 letters, digits, '-', '_' or '.', else a new one. Also in the server's log line.", true, pattern(r"^[A-Za-z0-9._-]{1,64}$")),
        "ETag": header("Strong validator of the representation: one per content coding (gzip's ends in -gzip inside the quotes). Send it back in If-None-Match to get 304 when nothing changed.", true, pattern(r#"^"[\x21\x23-\x7e]*"$"#)),
        "Cache-Control": header("Bodies depend on the API key, so shared caches must not keep them.", true, constant(PRIVATE_CACHE_CONTROL)),
        "Cache-Control-NoStore": header("Never cached.", true, constant("no-store")),
        "Vary": header("The body depends on the Authorization header, and its content coding on Accept-Encoding (the JSON paths of List, Search and Export name Accept too).", true, pattern("^Authorization(, Accept)?, Accept-Encoding$")),
        "Vary-Negotiated": header("The body depends on the Authorization header, and (without format=) on Accept; its content coding on Accept-Encoding.", true, constant("Authorization, Accept, Accept-Encoding")),
        "Vary-Coding": header("The content coding depends on Accept-Encoding.", true, constant("Accept-Encoding")),
        "Content-Encoding": header(&format!("gzip when the request's Accept-Encoding takes gzip (q above 0, and not below identity's where identity is named) and the body is {GZIP_MIN_BYTES} bytes or more; an export whenever Accept-Encoding takes gzip. Absent: the body is as it is (identity)."), false, constant("gzip")),
        "Link": header("RFC 8288 links to other pages of the same request: rel=\"first\" and rel=\"last\" always, rel=\"prev\" when offset > 0, rel=\"next\" while more areas remain. Each URL is an absolute path that repeats the request's own parameters, in their order, with only offset changed (offset added when the request had none).", true, link),
        "X-Missing-Ids": header("List with ids only: the ids given that the answer does not hold, as missing in the JSON body, comma-separated in the order given, each percent-encoded but for letters, digits, '-', '.', '_' and '~' (an area id needs no encoding); empty when every area was found.", true, json!({"type": "string", "pattern": "^[A-Za-z0-9._~%-]*(,[A-Za-z0-9._~%-]+)*$", "examples": ["no-such-area"]})),
        "X-Total-Count": header("Number of matching areas, as total in the JSON body: the same in every representation.", true, json!({"type": "integer", "minimum": 0, "examples": [938]})),
        "Content-Disposition": header("The export is a file to save: areas-YYYY-MM-DD with the format's extension (json, ndjson, csv, geojson), dated by the latest updated_at of the data served (plain areas.EXT when there are no areas).", true, disposition),
        "RateLimit-Policy": header(&format!("The budget that applies, as draft-ietf-httpapi-ratelimit-headers-{RATELIMIT_DRAFT} writes it (an RFC 9651 structured-field list of one item): the policy's name, a string, with q, its requests per window, and w, the window in seconds ({w}: a token bucket refills from empty in a minute). For a valid key on a plan with a limit the name is the plan's (free, starter, growth; enterprise has no limit by default, and then no RateLimit fields) and q its requests per minute, as X-RateLimit-Limit gives it: `\"starter\";q=600;w={w}`. A request without a valid key (every 401, and 429 too_many_unknown_keys) is counted against its client's keyless budget: `{keyless}`, and no X-RateLimit headers."), true, policy),
        "RateLimit": header(&format!("What is left of the budget RateLimit-Policy names (draft-ietf-httpapi-ratelimit-headers-{RATELIMIT_DRAFT}, an RFC 9651 structured-field list of one item): the same policy name, with r, the requests left (as X-RateLimit-Remaining), and t, the seconds until the token bucket is full again (as X-RateLimit-Reset; a token comes back every w/q seconds, so a client that has spent its budget may send again after Retry-After, long before t). On 429 r is 0."), true, left),
        "X-RateLimit-Limit": header("Requests per minute of the key's plan (free 60, starter 600, growth 3000 by default). Present on every answer to a valid key whose plan has a limit (enterprise has none by default), beside RateLimit-Policy and RateLimit; never on an answer to a request without a valid key. Without Redis, limits are kept per server process (behind a balancer, per replica); with Redis named (AREA_REDIS), one budget per key is shared by every server.", false, whole()),
        "X-RateLimit-Remaining": header("Requests left in the key's token bucket (with X-RateLimit-Limit).", false, whole()),
        "X-RateLimit-Reset": header("Seconds until the bucket is full again (with X-RateLimit-Limit).", false, whole()),
        "Retry-After": header("Whole seconds to wait before retrying.", true, whole()),
        "Upgrade": header("The protocol to send the request with.", true, constant("HTTP/1.1")),
        "WWW-Authenticate": header("The scheme to authenticate with.", true, pattern("^Bearer")),
        "Access-Control-Allow-Origin": header("CORS: any origin may read responses (authentication is by bearer key, never by cookie).", true, constant("*")),
        "Access-Control-Expose-Headers": header(&format!("CORS: the response headers a browser script may read: {}.", exposed()), true, pattern("ETag")),
        "Access-Control-Allow-Methods": header("CORS preflight: the methods allowed on the path.", true, pattern("GET")),
        "Access-Control-Allow-Headers": header("CORS preflight: the request headers allowed (Authorization, If-None-Match, X-Request-Id).", true, pattern("(?i)authorization")),
        "Allow": header("The methods the path answers.", true, constant(ALLOWED_METHODS)),
        "Access-Control-Max-Age": header("CORS preflight: seconds a browser may cache this answer.", false, whole()),
    });
    let members = all.as_object_mut().expect("the headers");
    let twins: Vec<(String, Value)> = members
        .iter()
        .map(|(name, h)| (format!("{name}-optional"), with_required(h, false)))
        .collect();
    members.extend(twins);
    all
}

fn with_required(header: &Value, required: bool) -> Value {
    let mut twin = header.clone();
    twin["required"] = json!(required);
    twin
}

/// Components that describe one header in two ways are named apart: the
/// header each describes.
fn header_name(component: &str) -> &str {
    match component {
        "Cache-Control-NoStore" => "Cache-Control",
        "Vary-Negotiated" | "Vary-Coding" => "Vary",
        other => other,
    }
}

/// An answer's headers: `names` always there, `optional` perhaps.
pub fn set(names: &[&str], optional: &[&str]) -> Value {
    let mut out = Map::new();
    for n in names {
        out.insert(header_name(n).to_string(), reference("headers", n));
    }
    for n in optional {
        out.insert(
            header_name(n).to_string(),
            reference("headers", &format!("{n}-optional")),
        );
    }
    Value::Object(out)
}
