//! The answers operations share: 304 and every error, each also as its
//! `Head` twin (HEAD answers like GET, without a body).

use serde_json::{Value, json};

use super::headers::{self, CACHE, COMMON, KEYLESS_RATE, RATE};
use super::reference;
use crate::access::ratelimit::ANONYMOUS_PER_MINUTE;
use crate::api::contract::{EXPORT_PLAN, HISTORY_PLAN};
use crate::app::exports::{DEFAULT_MAX_EXPORTS_PER_KEY, MAX_EXPORTS};
use crate::error::{MAX_HEADER_BYTES, MAX_TARGET_BYTES};

/// A JSON answer of `schema` with `headers`.
pub fn json_response(description: &str, schema: &str, headers: Value) -> Value {
    json!({
        "description": description,
        "headers": headers,
        "content": {crate::api::format::Format::Json.media_type(): {"schema": reference("schemas", schema)}},
    })
}

/// An error answer: the common headers, no caching, and the status's own
/// headers (`names`, always; `optional`, perhaps).
fn error(description: &str, schema: &str, names: &[&str], optional: &[&str]) -> Value {
    let always = [&COMMON[..], &["Cache-Control-NoStore"], names].concat();
    json_response(description, schema, headers::set(&always, optional))
}

/// The HEAD form of an answer: without its body (and links).
pub fn without_content(response: &Value) -> Value {
    if let Some(r) = response.get("$ref").and_then(Value::as_str) {
        return json!({"$ref": format!("{r}Head")});
    }
    let mut out = response.clone();
    let members = out.as_object_mut().expect("an answer is an object");
    members.shift_remove("content");
    members.shift_remove("links");
    out
}

/// Every shared answer, then its Head twin.
pub fn all() -> Value {
    let (target_kib, header_kib) = (MAX_TARGET_BYTES / 1024, MAX_HEADER_BYTES / 1024);
    let keyless = ANONYMOUS_PER_MINUTE;
    assert_eq!(
        HISTORY_PLAN, EXPORT_PLAN,
        "the description names one plan for both"
    );
    let plan = HISTORY_PLAN.name();
    let limited_optional = [&["WWW-Authenticate"][..], &RATE].concat();
    let keyless_optional = [&["WWW-Authenticate"][..], &KEYLESS_RATE].concat();
    let unauthorized = [&["WWW-Authenticate"][..], &KEYLESS_RATE].concat();
    let mut all = json!({
        "NotModified": {"description": "The ETag in If-None-Match (or `*`) is the current one: no body.", "headers": headers::set(&[&COMMON[..], &CACHE[..]].concat(), &RATE)},
        "InvalidParameter": error("invalid_parameter: a query parameter out of bounds, of the wrong type or grammar, of an unknown value, given twice, or not one of the operation's parameters, a list of more items than it takes, or a query of more pairs than the operation has parameters; `param` names it (for too many pairs, the first of them that is unknown or repeated), and `allowed` lists the words it may take where they are a set.", "ErrorInvalidParameter", &[], &RATE),
        "Unauthorized": error(&format!("missing_api_key: no Authorization header, or not `Bearer <key>` (the scheme in any case); invalid_api_key: a key that is unknown or revoked. Each such request is counted against its client's keyless budget ({keyless} a minute per client address), which RateLimit-Policy and RateLimit announce; past it the answer is 429 too_many_unknown_keys."), "ErrorUnauthorized", &unauthorized, &[]),
        "PlanUpgradeRequired": error(&format!("plan_upgrade_required: score history (the history endpoint, or include=history) and the export need the {plan} plan or above; `required_plan` names the plan needed, `plan` the key's, and `param` the parameter that asked for it (include), where one did."), "ErrorPlanUpgradeRequired", &[], &RATE),
        "AreaNotFound": error("area_not_found: no area has this id; `ids` lists it (Compare: every unknown id, in the order of ids), and so does the message.", "ErrorAreaNotFound", &[], &RATE),
        "NoAreaHere": error("no_area_here: no area's boundary holds the point or lies near it, and no area without a boundary has its centre within radius.", "ErrorNoAreaHere", &[], &RATE),
        "UriTooLong": error(&format!("uri_too_long: the request target is over {target_kib} KiB (answered by the server after reading it, and by the nginx front before passing it on)."), "ErrorUriTooLong", &[], &[]),
        "HeadersTooLarge": error(&format!("headers_too_large: the request headers are over {header_kib} KiB in all (answered by the server after reading them, and by the nginx front before passing them on)."), "ErrorHeadersTooLarge", &[], &[]),
        "RateLimited": error(&format!("rate_limited: the key has used up its plan's requests per minute; retry after Retry-After seconds. The answer carries the key's RateLimit-Policy and RateLimit (r=0) and X-RateLimit headers. too_many_unknown_keys: the client address has used up its {keyless} requests a minute without a valid key (a missing, unknown or revoked key); its key will not become valid by waiting, so the answer carries WWW-Authenticate like a 401, and the keyless RateLimit-Policy and RateLimit, but no X-RateLimit headers. The nginx front's own 429 rate_limited (too many requests in flight from one address) carries none of these but Retry-After."), "ErrorRateLimited", &["Retry-After"], &limited_optional),
        "UnknownKeysRateLimited": error(&format!("too_many_unknown_keys: the client address has used up its {keyless} requests a minute without a valid key (a missing, unknown or revoked key), with WWW-Authenticate and the keyless RateLimit-Policy and RateLimit. This operation takes nothing from a key's budget, so the server never answers it rate_limited; only the nginx front's own 429 rate_limited (too many requests in flight from one address) may, with Retry-After alone."), "ErrorRateLimited", &["Retry-After"], &keyless_optional),
        "InternalError": error("internal_error: something unexpected; the message holds no internals.", "ErrorInternal", &[], &RATE),
        "BadGateway": error("bad_gateway: behind the nginx front of deploy/ only: no replica answered. Retry after Retry-After seconds.", "ErrorBadGateway", &["Retry-After"], &[]),
        "GatewayTimeout": error("gateway_timeout: behind the nginx front of deploy/ only: no replica answered in time. Retry after Retry-After seconds.", "ErrorGatewayTimeout", &["Retry-After"], &[]),
        "ServiceUnavailable": error(&format!("service_unavailable: the database cannot be read right now (file removed, corrupt or locked, or every connection busy), or (export) too many exports are in flight ({MAX_EXPORTS} per server, {DEFAULT_MAX_EXPORTS_PER_KEY} per key by default), or the server is stopping; retry after Retry-After seconds."), "ErrorServiceUnavailable", &["Retry-After"], &RATE),
        "UpgradeRequired": error("upgrade_required: the export is sent in chunks, which HTTP/1.0 has not; send the request as HTTP/1.1 (Upgrade: HTTP/1.1).", "ErrorUpgradeRequired", &["Upgrade"], &[]),
    });
    let members = all.as_object_mut().expect("the answers");
    let twins: Vec<(String, Value)> = members
        .iter()
        .map(|(name, r)| (format!("{name}Head"), without_content(r)))
        .collect();
    members.extend(twins);
    all
}
