//! Checks of the caching and CORS headers of a successful answer.

use super::client::Reply;

pub fn etag(reply: &Reply) -> String {
    reply.header("ETag").expect("an ETag").to_string()
}

pub fn assert_cached_privately(reply: &Reply, what: &str) {
    let tag = etag(reply);
    assert!(
        tag.len() > 2 && tag.starts_with('"') && tag.ends_with('"'),
        "{what}: strong, quoted ETag, got {tag}"
    );
    assert_eq!(
        reply.header("Cache-Control"),
        Some("private, max-age=60"),
        "{what}"
    );
    let vary = reply.header("Vary").unwrap_or_default();
    for name in ["Authorization", "Accept-Encoding"] {
        assert!(
            vary.split(',').any(|v| v.trim().eq_ignore_ascii_case(name)),
            "{what}: Vary {vary:?} names {name}"
        );
    }
}

pub fn assert_cors(reply: &Reply, what: &str) {
    assert_eq!(
        reply.header("Access-Control-Allow-Origin"),
        Some("*"),
        "{what}"
    );
    let exposed: Vec<String> = reply
        .header("Access-Control-Expose-Headers")
        .unwrap_or_else(|| panic!("{what}: no Access-Control-Expose-Headers"))
        .split(',')
        .map(|h| h.trim().to_ascii_lowercase())
        .collect();
    for name in [
        "etag",
        "x-request-id",
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
    ] {
        assert!(
            exposed.iter().any(|e| e == name),
            "{what}: {name} not exposed in {exposed:?}"
        );
    }
    assert!(
        reply
            .header("X-Request-Id")
            .is_some_and(|id| !id.is_empty()),
        "{what}"
    );
}

/// Checks that an answer to HEAD has the headers of the answer to GET (docs/api.md
/// "Every response"): every one but those that differ per request (Date,
/// X-Request-Id, the rate limit's remaining and reset) and the body's
/// framing; a Content-Length on HEAD, if any, is the GET body's length.
pub fn assert_head_like_get(head: &Reply, get: &Reply, what: &str) {
    assert_eq!(head.status, get.status, "{what}");
    assert!(head.body.is_empty(), "{what}: HEAD has no body");
    let per_request = [
        "date",
        "x-request-id",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
        "ratelimit",
        "content-length",
        "transfer-encoding",
    ];
    let kept = |r: &Reply| -> std::collections::BTreeSet<(String, String)> {
        r.headers
            .iter()
            .map(|(n, v)| (n.to_ascii_lowercase(), v.clone()))
            .filter(|(n, _)| !per_request.contains(&n.as_str()))
            .collect()
    };
    assert_eq!(kept(head), kept(get), "{what}: HEAD has GET's headers");
    if let Some(length) = head.header("Content-Length") {
        assert_eq!(
            length,
            get.body.len().to_string(),
            "{what}: HEAD's Content-Length is the GET body's"
        );
    }
}
