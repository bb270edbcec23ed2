//! Caching, request ids and the loggable target, value by value.

use super::*;

#[test]
fn echoes_only_safe_request_ids() {
    let ids = RequestIds::new();
    assert_eq!(ids.for_request(Some("abc-123_x.y")), "abc-123_x.y");
    for unsafe_id in ["", "a b", "a\r\nb", "é", &"x".repeat(65)] {
        let made = ids.for_request(Some(unsafe_id));
        assert!(
            made.starts_with("req_") && is_safe_request_id(&made),
            "{unsafe_id:?} -> {made}"
        );
    }
    assert_ne!(ids.for_request(None), ids.for_request(None));
}

#[test]
fn answers_304_only_for_a_matching_tag() {
    let fresh = apply_caching(Response::json(200, b"{}".to_vec()), None);
    let etag = fresh.header("ETag").unwrap().to_string();
    assert!(etag.starts_with('"') && etag.ends_with('"'));
    assert_eq!(fresh.header("Cache-Control"), Some("private, max-age=60"));
    let same = apply_caching(
        Response::json(200, b"{}".to_vec()),
        Some(&format!("\"x\", {etag}")),
    );
    assert_eq!((same.status, same.body.len()), (304, 0));
    assert_eq!(same.header("ETag"), Some(etag.as_str()));
    let other = apply_caching(Response::json(200, b"{\"a\":1}".to_vec()), Some(&etag));
    assert_eq!(other.status, 200);
    let error = apply_caching(Response::error(&ApiError::Internal), Some("*"));
    assert_eq!((error.status, error.header("ETag")), (500, None));
    assert_eq!(error.header("Cache-Control"), Some("no-store"));
}

/// Any one changed byte, and any change of length, changes the tag:
/// checked at every position of bodies from 0 to 40 bytes long.
#[test]
fn every_byte_and_the_length_count_in_the_tag() {
    let body: Vec<u8> = (0..40u8).map(|i| b'a' + i % 26).collect();
    let mut tags = std::collections::HashSet::new();
    for len in 0..=body.len() {
        let tag = fingerprint(&body[..len]);
        assert!(tags.insert(tag), "length {len} repeats a tag");
        for at in 0..len {
            let mut changed = body[..len].to_vec();
            changed[at] ^= 0x20;
            assert_ne!(fingerprint(&changed), tag, "byte {at} of {len}");
        }
    }
    assert_ne!(fingerprint(&[0]), fingerprint(&[]));
}

#[test]
fn redacts_credentials_in_logged_targets() {
    assert_eq!(
        loggable_target("/v1/areas?api_key=s3cret&limit=5"),
        "/v1/areas?api_key=[redacted]&limit=5"
    );
    assert_eq!(
        loggable_target("/v1/areas?token=x"),
        "/v1/areas?token=[redacted]"
    );
    assert_eq!(loggable_target("/v1/areas\n"), "/v1/areas?");
}
