//! The headers of List and Search in each representation (JSON, CSV,
//! GeoJSON): an ETag of its own with its own 304, HEAD with GET's headers,
//! Vary naming Accept, CORS exposing Link, X-Total-Count and
//! Content-Disposition, X-Total-Count, the Link header repeating the request
//! with only offset changed, and the rate-limit headers.

use std::collections::BTreeSet;

use crate::common::cache::{assert_cached_privately, assert_cors, assert_head_like_get, etag};
use crate::common::client::Reply;
use crate::common::pages::{last_offset, links};
use crate::common::rate::rate_headers;
use crate::common::server::TestServer;
use crate::common::{JSON, TestApp, assert_error, spawn_app};

const CSV: &str = "text/csv; charset=utf-8";
const GEOJSON: &str = "application/geo+json";

/// The reply to `target` in one representation, chosen by Accept.
fn as_type(
    app: &TestApp,
    method: &str,
    target: &str,
    accept: &str,
    extra: &[(&str, &str)],
) -> Reply {
    let mut headers = vec![("Accept", accept)];
    headers.extend_from_slice(extra);
    app.send_with(method, target, &headers)
}

#[test]
fn each_representation_has_its_own_etag_and_the_same_headers_for_head() {
    let app = spawn_app();
    let target = "/v1/areas/search?q=cape&limit=5&offset=5";
    let total = app.ok(target)["total"].as_u64().unwrap();
    let mut tags = Vec::new();
    for (accept, content_type) in [
        ("application/json", JSON),
        ("text/csv", CSV),
        (GEOJSON, GEOJSON),
    ] {
        let what = format!("{target} as {accept}");
        let reply = as_type(app, "GET", target, accept, &[]);
        assert_eq!(reply.header("Content-Type"), Some(content_type), "{what}");
        assert_cached_privately(&reply, &what);
        assert_cors(&reply, &what);
        let vary = reply
            .header("Vary")
            .unwrap_or_default()
            .to_ascii_lowercase();
        for name in ["accept", "accept-encoding"] {
            assert!(
                vary.split(',').any(|v| v.trim() == name),
                "{what}: Vary {vary} names {name}"
            );
        }
        let exposed = reply
            .header("Access-Control-Expose-Headers")
            .unwrap()
            .to_ascii_lowercase();
        for name in ["link", "x-total-count", "content-disposition"] {
            assert!(
                exposed.split(',').any(|e| e.trim() == name),
                "{what}: {exposed}"
            );
        }
        assert_eq!(
            reply.header("X-Total-Count"),
            Some(total.to_string().as_str()),
            "{what}"
        );
        assert_eq!(links(&reply).len(), 4, "{what}: first, prev, next, last");
        let tag = etag(&reply);
        tags.push((accept, tag.clone()));
        let again = as_type(app, "GET", target, accept, &[("If-None-Match", &tag)]);
        assert_eq!((again.status, again.body.len()), (304, 0), "{what}");
        assert_eq!(again.header("ETag"), Some(tag.as_str()), "{what}");
        let head = as_type(app, "HEAD", target, accept, &[]);
        assert_eq!(head.status, 200, "{what}");
        assert_head_like_get(&head, &reply, &what);
    }
    let distinct: BTreeSet<&String> = tags.iter().map(|(_, t)| t).collect();
    assert_eq!(distinct.len(), 3, "an ETag per representation: {tags:?}");
    for (own, tag) in &tags {
        for (other, _) in tags.iter().filter(|(a, _)| a != own) {
            let reply = as_type(app, "GET", target, other, &[("If-None-Match", tag)]);
            assert_eq!(reply.status, 200, "{own}'s tag does not match {other}");
        }
    }
}

#[test]
fn the_link_header_repeats_the_request_with_only_offset_changed() {
    let app = spawn_app();
    let link_map = |r: &Reply| -> Vec<(String, String)> {
        let mut all = links(r);
        all.sort();
        all
    };
    let expect = |pairs: &[(&str, String)]| -> Vec<(String, String)> {
        let mut all: Vec<(String, String)> = pairs
            .iter()
            .map(|(r, t)| (r.to_string(), t.clone()))
            .collect();
        all.sort();
        all
    };
    let total = app.ok("/v1/areas/search?q=cape&limit=1")["total"]
        .as_u64()
        .unwrap();
    assert!(total > 20, "a search with a middle page");
    let last = last_offset(total, 5);
    let at = |o: u64| format!("/v1/areas/search?limit=5&format=csv&offset={o}&q=cape");
    let reply = app.get(&at(10));
    assert_eq!(
        link_map(&reply),
        expect(&[
            ("first", at(0)),
            ("prev", at(5)),
            ("next", at(15)),
            ("last", at(last))
        ]),
        "{}",
        reply.header("Link").unwrap()
    );
    // Without offset it is added last; asked by Accept, no format is added.
    let plain = |o: u64| format!("/v1/areas/search?q=cape&limit=5&offset={o}");
    let first = app.get_with("/v1/areas/search?q=cape&limit=5", &[("Accept", "text/csv")]);
    assert_eq!(first.header("Content-Type"), Some(CSV));
    assert_eq!(
        link_map(&first),
        expect(&[
            ("first", plain(0)),
            ("next", plain(5)),
            ("last", plain(last))
        ])
    );
    let end = app.get_with(&plain(last), &[("Accept", GEOJSON)]);
    let prev = last - 5;
    assert_eq!(
        link_map(&end),
        expect(&[
            ("first", plain(0)),
            ("prev", plain(prev)),
            ("last", plain(last))
        ])
    );
    // List Areas, an escaped offset name, a comma-holding bbox.
    let list = |o: u64| format!("/v1/areas?province=gauteng&limit=7&offset={o}&sort=name");
    let reply = app.get("/v1/areas?province=gauteng&limit=7&%6Fffset=14&sort=name");
    let total = reply.json()["total"].as_u64().unwrap();
    let want = [
        ("first", list(0)),
        ("prev", list(7)),
        ("next", list(21)),
        ("last", list(last_offset(total, 7))),
    ];
    assert_eq!(link_map(&reply), expect(&want));
    let boxed = |o: u64| format!("/v1/areas/search?bbox=27,-27,29,-25&offset={o}&format=geojson");
    let reply = app.get(&boxed(20));
    let total = reply.json()["total"].as_u64().unwrap();
    let want = [
        ("first", boxed(0)),
        ("prev", boxed(10)),
        ("next", boxed(30)),
        ("last", boxed(last_offset(total, 10))),
    ];
    assert_eq!(link_map(&reply), expect(&want));
}

#[test]
fn every_representation_carries_the_rate_limit_headers() {
    let server = TestServer::start(false);
    let mut remaining = Vec::new();
    for target in ["/v1/areas?limit=5", "/v1/areas/search?q=cape"] {
        for (format, content_type) in [("csv", CSV), ("geojson", GEOJSON), ("json", JSON)] {
            let reply = server.get_with(&format!("{target}&format={format}"), &[]);
            assert_eq!(reply.header("Content-Type"), Some(content_type));
            let (limit, left, _) = rate_headers(&reply);
            assert_eq!(limit, 3000, "{target} {format}: the growth budget");
            remaining.push(left);
        }
    }
    assert!(
        remaining.iter().all(|&r| r < 3000),
        "each answer spent a token: {remaining:?}"
    );
    let error = server.get_with("/v1/areas?format=csv&limit=0", &[("Accept", "text/csv")]);
    assert_eq!(rate_headers(&error).0, 3000);
    assert_error(&error, 400, "invalid_parameter", Some("limit"));
}
