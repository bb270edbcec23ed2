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
    assert!(
        vary.split(',')
            .any(|v| v.trim().eq_ignore_ascii_case("Authorization")),
        "{what}: Vary {vary:?}"
    );
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
