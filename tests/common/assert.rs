//! The checks shared by many tests: the one error shape of the API (with the
//! Retry-After of 429 and 503), and the comparison of a served ranking with a
//! brute-force one.

use serde_json::Value;

use super::JSON;
use super::client::Reply;

/// Checks the one error shape of the API and returns error.message:
/// `{"error":{"code","message","status","param"?}}` with status equal to the
/// HTTP status, the JSON content type, a request id, `WWW-Authenticate: Bearer`
/// on 401 and an Allow header naming GET and HEAD (and nothing that
/// writes) on 405.
pub fn assert_error(reply: &Reply, status: u16, code: &str, param: Option<&str>) -> String {
    let message = assert_error_shape(reply, status, code);
    let param_got = reply.json()["error"]
        .get("param")
        .and_then(Value::as_str)
        .map(str::to_string);
    assert_eq!(param_got.as_deref(), param, "{}", reply.json());
    message
}

/// All of [`assert_error`] but the param, for tests about something else
/// (rate limits, faults, caching) that do not name one.
pub fn assert_error_shape(reply: &Reply, status: u16, code: &str) -> String {
    assert_headers_of_error(reply, status);
    assert_error_body(reply, status, code)
}

/// The status, content type and body of the error shape, without the other
/// headers: for the metrics listener, whose answers carry no request id.
pub fn assert_error_body(reply: &Reply, status: u16, code: &str) -> String {
    let body = reply.json();
    let shown = body.to_string();
    assert_eq!(reply.status, status, "{shown}");
    assert_eq!(reply.header("Content-Type"), Some(JSON), "{shown}");
    let object = body.as_object().expect("an object");
    assert_eq!(object.len(), 1, "only `error` at the top: {shown}");
    let error = body["error"].as_object().expect("error is an object");
    for key in error.keys() {
        assert!(
            [
                "code",
                "message",
                "status",
                "param",
                "allowed",
                "required_plan",
                "plan",
                "ids"
            ]
            .contains(&key.as_str()),
            "{shown}"
        );
    }
    for list in ["allowed", "ids"] {
        if let Some(items) = error.get(list) {
            let items = items.as_array().expect("a list");
            assert!(items.iter().all(|i| i.is_string()), "{shown}");
        }
    }
    assert_eq!(error["code"], code, "{shown}");
    assert_eq!(error["status"], status, "{shown}");
    let message = error["message"].as_str().expect("message is a string");
    assert!(!message.trim().is_empty(), "{shown}");
    message.to_string()
}

/// The headers an error carries; also all a HEAD answer to an error has.
pub fn assert_headers_of_error(reply: &Reply, status: u16) {
    assert_eq!(reply.status, status);
    assert_eq!(reply.header("Content-Type"), Some(JSON));
    assert!(
        reply
            .header("X-Request-Id")
            .is_some_and(|id| !id.is_empty())
    );
    // 401, and the 429 of a client out of its budget without a valid key.
    let challenge = reply.header("WWW-Authenticate");
    let unknown_key = status == 429 && reply.json()["error"]["code"] == "too_many_unknown_keys";
    assert_eq!(
        challenge,
        (status == 401 || unknown_key).then_some("Bearer")
    );
    if status == 405 {
        let allow = reply.header("Allow").expect("405 carries Allow");
        let methods: Vec<&str> = allow.split(',').map(str::trim).collect();
        // GET and HEAD, and no method that writes (OPTIONS, for CORS, may be there too).
        assert!(
            methods.contains(&"GET") && methods.contains(&"HEAD"),
            "Allow: {allow}"
        );
        for write in ["POST", "PUT", "PATCH", "DELETE"] {
            assert!(!methods.contains(&write), "Allow: {allow}");
        }
    }
}

/// Checks that the answer says when to retry: `Retry-After` in whole
/// seconds, at least one. Returns the seconds.
pub fn assert_retry_after(reply: &Reply) -> u64 {
    let retry: u64 = reply
        .header("Retry-After")
        .expect("Retry-After")
        .parse()
        .expect("Retry-After in whole seconds");
    assert!(retry >= 1, "Retry-After {retry}");
    retry
}

/// A 429 rate_limited in the error shape, with Retry-After.
pub fn assert_429(reply: &Reply) {
    assert_error_shape(reply, 429, "rate_limited");
    assert_retry_after(reply);
}

/// The 429 of a client that has spent its budget of requests without a valid
/// key: a code of its own, the Bearer challenge, Retry-After, the keyless
/// budget in the RateLimit fields, and a message that names no plan.
pub fn assert_unknown_keys_429(reply: &Reply) {
    let message = assert_error_shape(reply, 429, "too_many_unknown_keys");
    assert_retry_after(reply);
    assert_eq!(reply.header("WWW-Authenticate"), Some("Bearer"));
    assert!(!message.contains("plan"), "{message}");
    assert!(message.contains("unknown"), "{message}");
    assert_eq!(
        reply.header("RateLimit-Policy"),
        Some("\"keyless\";q=60;w=60")
    );
    let remaining = reply
        .header("RateLimit")
        .expect("RateLimit on a keyless 429");
    assert!(remaining.starts_with("\"keyless\";r=0;t="), "{remaining}");
}

/// A 503 service_unavailable in the error shape, with Retry-After.
pub fn assert_503(reply: &Reply) {
    assert_error_shape(reply, 503, "service_unavailable");
    assert_retry_after(reply);
}

/// Checks a 400 invalid_parameter whose param is one of `params` (for refusals
/// where more than one parameter could fairly be named). Returns the message.
pub fn assert_invalid(reply: &Reply, params: &[&str]) -> String {
    let param = reply.json()["error"]["param"].as_str().map(str::to_string);
    let param = param.unwrap_or_else(|| panic!("a 400 names its parameter: {:?}", reply.json()));
    assert!(
        params.contains(&param.as_str()),
        "param {param} not one of {params:?}"
    );
    assert_error(reply, 400, "invalid_parameter", Some(&param))
}

/// Checks that `got` (ids in the order served) is what a brute-force search
/// over `all` (distance, id) of every candidate gives: those at most `edge` km
/// away, nearest first, ties by id, the first `limit` of them. A difference
/// is tolerated only where floating point could fairly decide either way: a
/// distance within a micrometre of `edge`, or two within a nanometre.
pub fn assert_nearest_first(
    what: &str,
    got: &[&str],
    all: &[(f64, &str)],
    limit: usize,
    edge: f64,
) {
    let mut inside: Vec<(f64, &str)> = all.iter().copied().filter(|(d, _)| *d <= edge).collect();
    inside.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)));
    let want: Vec<&str> = inside.iter().take(limit).map(|(_, id)| *id).collect();
    if got != want {
        let on_edge = all.iter().any(|(d, _)| (d - edge).abs() < 1e-9);
        let tie = inside.windows(2).any(|w| (w[0].0 - w[1].0).abs() < 1e-12);
        assert!(
            on_edge || tie,
            "{what}: served {got:?}, brute force {want:?}"
        );
    }
}
