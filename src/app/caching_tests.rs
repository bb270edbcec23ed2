//! Validators and codings of successful answers, value by value.

use std::io::Read;

use super::*;
use crate::app::encoding::GZIP_MIN_BYTES;
use crate::error::ApiError;

fn request(accept_encoding: Option<&str>, if_none_match: Option<&str>) -> Request {
    Request {
        method: "GET".into(),
        accept_encoding: accept_encoding.map(str::to_string),
        if_none_match: if_none_match.map(str::to_string),
        ..Request::default()
    }
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("a gzip member");
    out
}

/// A JSON body above the gzip threshold.
fn page() -> Vec<u8> {
    let row = "{\"id\":\"za-gp-soweto\",\"name\":\"Soweto\",\"truth_score\":7.25},";
    format!("[{}]", row.repeat(GZIP_MIN_BYTES / row.len() + 1)).into_bytes()
}

#[test]
fn answers_304_only_for_a_matching_tag() {
    let fresh = apply_caching(Response::json(200, b"{}".to_vec()), &request(None, None));
    let etag = fresh.header("ETag").unwrap().to_string();
    assert!(etag.starts_with('"') && etag.ends_with('"'));
    assert_eq!(fresh.header("Cache-Control"), Some("private, max-age=60"));
    let held = format!("\"x\", {etag}");
    let same = apply_caching(
        Response::json(200, b"{}".to_vec()),
        &request(None, Some(&held)),
    );
    assert_eq!((same.status, same.body.len()), (304, 0));
    assert_eq!(same.header("ETag"), Some(etag.as_str()));
    let other = apply_caching(
        Response::json(200, b"{\"a\":1}".to_vec()),
        &request(None, Some(&etag)),
    );
    assert_eq!(other.status, 200);
    let error = apply_caching(
        Response::error(&ApiError::Internal),
        &request(Some("gzip"), Some("*")),
    );
    assert_eq!((error.status, error.header("ETag")), (500, None));
    assert_eq!(error.header("Cache-Control"), Some("no-store"));
    assert_eq!(
        (error.header("Vary"), error.header("Content-Encoding")),
        (None, None)
    );
}

#[test]
fn a_body_above_the_threshold_goes_in_gzip_with_its_own_tag() {
    let body = page();
    let plain = apply_caching(Response::json(200, body.clone()), &request(None, None));
    let zipped = apply_caching(
        Response::json(200, body.clone()),
        &request(Some("gzip, deflate, br"), None),
    );
    assert_eq!(plain.body, body);
    assert_eq!(plain.header("Content-Encoding"), None);
    assert_eq!(zipped.header("Content-Encoding"), Some("gzip"));
    assert_eq!(gunzip(&zipped.body), body);
    let tag = plain.header("ETag").unwrap();
    let gzip_tag = zipped.header("ETag").unwrap();
    assert_eq!(gzip_tag, format!("{}-gzip\"", tag.trim_end_matches('"')));
    for reply in [&plain, &zipped] {
        assert_eq!(reply.header("Vary"), Some("Authorization, Accept-Encoding"));
    }
    // Each tag answers 304 to the client that would get its coding, and
    // only to it; weak comparison, as If-None-Match has it.
    let weak = format!("W/{gzip_tag}");
    for (coding, held, status) in [
        (None, tag, 304),
        (None, gzip_tag, 200),
        (Some("gzip"), gzip_tag, 304),
        (Some("gzip"), weak.as_str(), 304),
        (Some("gzip"), tag, 200),
        (Some("gzip;q=0"), tag, 304),
    ] {
        let reply = apply_caching(
            Response::json(200, body.clone()),
            &request(coding, Some(held)),
        );
        assert_eq!(reply.status, status, "{coding:?} holding {held}");
        if status == 304 {
            assert!(reply.body.is_empty() && reply.header("Content-Encoding").is_none());
            assert_eq!(reply.header("Vary"), Some("Authorization, Accept-Encoding"));
        }
    }
}

#[test]
fn a_short_body_goes_as_it_is_with_the_plain_tag() {
    let body = b"{\"id\":\"za-gp-soweto\"}".to_vec();
    let plain = apply_caching(Response::json(200, body.clone()), &request(None, None));
    let asked = apply_caching(
        Response::json(200, body.clone()),
        &request(Some("gzip"), None),
    );
    assert_eq!(asked.body, body);
    assert_eq!(asked.header("Content-Encoding"), None);
    assert_eq!(asked.header("ETag"), plain.header("ETag"));
}

#[test]
fn an_answer_never_kept_is_gzipped_without_a_tag() {
    let mut response = Response::json(200, page());
    response.headers.push(("Cache-Control", "no-store".into()));
    let reply = apply_caching(response, &request(Some("gzip"), Some("*")));
    assert_eq!((reply.status, reply.header("ETag")), (200, None));
    assert_eq!(reply.header("Content-Encoding"), Some("gzip"));
    assert_eq!(reply.header("Vary"), Some("Accept-Encoding"));
    assert_eq!(gunzip(&reply.body), page());
}

#[test]
fn a_stream_is_gzipped_as_read_whatever_its_length_and_head_reads_none() {
    let streamed = |method: &str, accept_encoding: Option<&str>| {
        let mut response = Response::json(200, Vec::new());
        response.headers.push(("ETag", "\"export\"".into()));
        response.stream = Some(Stream(Box::new(std::io::Cursor::new(b"[]".to_vec()))));
        let req = Request {
            method: method.into(),
            ..request(accept_encoding, None)
        };
        let mut reply = apply_caching(response, &req);
        let mut body = Vec::new();
        let Some(Stream(mut stream)) = reply.stream.take() else {
            panic!("no stream")
        };
        stream.read_to_end(&mut body).unwrap();
        (reply, body)
    };
    let (plain, body) = streamed("GET", None);
    assert_eq!(
        (plain.header("ETag"), body.as_slice()),
        (Some("\"export\""), &b"[]"[..])
    );
    let (zipped, body) = streamed("GET", Some("gzip"));
    assert_eq!(zipped.header("ETag"), Some("\"export-gzip\""));
    assert_eq!(zipped.header("Content-Encoding"), Some("gzip"));
    assert_eq!(gunzip(&body), b"[]");
    let (head, body) = streamed("HEAD", Some("gzip"));
    assert_eq!(head.headers, zipped.headers, "HEAD has GET's headers");
    assert_eq!(
        body, b"[]",
        "HEAD's stream is not compressed, as it is never read"
    );
}

#[test]
fn a_kept_body_is_gzipped_once_and_tagged_by_coding() {
    let body: &'static [u8] = page().leak();
    let kept = Kept::new(body);
    let plain = kept.answer(Response::json(200, Vec::new()), &request(None, None));
    assert_eq!(
        (plain.body.as_slice(), plain.header("ETag")),
        (body, Some(kept.etag()))
    );
    let zipped = kept.answer(Response::json(200, Vec::new()), &request(Some("*"), None));
    assert_eq!(gunzip(&zipped.body), body);
    assert_eq!(zipped.header("Vary"), Some("Accept-Encoding"));
    let tag = zipped.header("ETag").unwrap();
    let again = kept.answer(
        Response::json(200, Vec::new()),
        &request(Some("gzip"), Some(tag)),
    );
    assert_eq!((again.status, again.header("ETag")), (304, Some(tag)));
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
