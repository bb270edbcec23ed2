//! Compressed answers from the real binary over HTTP (docs/api.md "Every
//! response"): with `Accept-Encoding: gzip`, every route and format answers
//! gzip that decompresses to the identity answer byte for byte (exports as
//! they stream, pages, the OpenAPI document), bodies under the threshold go
//! as they are; a client that sends no Accept-Encoding, or refuses gzip with
//! q=0, gets identity; each coding has its own ETag, and If-None-Match
//! answers 304 by the coding the client would get; Vary names
//! Accept-Encoding; HEAD has GET's headers; /metrics counts the bytes sent.

use std::io::Read;

use crate::common::Plan;
use crate::common::bin::Served;
use crate::common::cache::assert_head_like_get;
use crate::common::client::{Reply, send};
use area_scoring::app::encoding::GZIP_MIN_BYTES;

/// What browsers, curl --compressed and Python's requests send, give or take.
const TAKES_GZIP: &str = "gzip, deflate, br, zstd";

/// Every route and format that answers 200, and whether its body on the
/// seed is long enough that gzip must be used. GET /v1/key is left out: its
/// body (today's usage) changes with each request.
const TARGETS: [(&str, &str, bool); 28] = [
    ("/v1/areas/soweto", "", false),
    ("/v1/areas/danielskuil?include=nearby", "", false),
    (
        "/v1/areas/soweto/history?period=1y&granularity=daily",
        "",
        true,
    ),
    (
        "/v1/areas/compare?ids=aberdeen,soweto,alexandra,addo,alberton",
        "",
        false,
    ),
    ("/v1/areas?limit=100", "", true),
    ("/v1/areas?limit=100&format=csv", "", true),
    ("/v1/areas?limit=100&format=geojson", "", true),
    ("/v1/areas?limit=100", "text/csv", true),
    ("/v1/areas?limit=100", "application/geo+json", true),
    ("/v1/areas/search?q=west&limit=50", "", true),
    ("/v1/areas/search?q=west&limit=50&format=csv", "", true),
    (
        "/v1/areas/search?lat=-26.2&lng=28.05&radius=50&format=geojson",
        "",
        true,
    ),
    ("/v1/areas.csv?limit=100", "", true),
    (
        "/v1/areas/search.geojson?q=west&limit=50",
        "application/json",
        true,
    ),
    ("/v1/areas/export", "", true),
    ("/v1/areas/export?format=ndjson", "", true),
    ("/v1/areas/export.ndjson", "", true),
    ("/v1/areas/export.csv?province=gauteng", "", true),
    ("/v1/areas/export.geojson", "text/csv", true),
    ("/v1/areas/export?format=csv", "", true),
    ("/v1/areas/export?format=geojson&province=gauteng", "", true),
    ("/v1/openapi.json", "", true),
    ("/healthz", "", false),
    ("/", "text/html", true),
    ("/", "", false),
    ("/docs", "text/html", true),
    ("/explore", "text/html", true),
    ("/web/land.json", "", true),
];

fn ask(served: &Served, key: &str, method: &str, target: &str, headers: &[(&str, &str)]) -> Reply {
    let auth = format!("Bearer {key}");
    let mut all: Vec<(&str, &[u8])> = vec![("Authorization", auth.as_bytes())];
    all.extend(headers.iter().map(|(n, v)| (*n, v.as_bytes())));
    send(served.addr, method, target.as_bytes(), &all)
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("a gzip body");
    out
}

fn vary_names_accept_encoding(reply: &Reply) -> bool {
    reply
        .header("Vary")
        .is_some_and(|v| v.split(',').any(|n| n.trim() == "Accept-Encoding"))
}

#[test]
fn every_route_and_format_decompresses_to_its_identity_answer() {
    let (_, key, served) = Served::spawn_keyed("gzip-routes", Plan::Growth, &[]);
    for (target, accept, long) in TARGETS {
        let what = format!("{target} (Accept {accept:?})");
        let with = |codings: Option<&str>, method: &str| {
            let mut headers = vec![];
            if !accept.is_empty() {
                headers.push(("Accept", accept));
            }
            headers.extend(codings.map(|c| ("Accept-Encoding", c)));
            ask(&served, &key, method, target, &headers)
        };
        let plain = with(None, "GET");
        assert_eq!(plain.status, 200, "{what}: {}", plain.text());
        assert_eq!(
            plain.header("Content-Encoding"),
            None,
            "{what}: no Accept-Encoding"
        );
        let zipped = with(Some(TAKES_GZIP), "GET");
        assert_eq!(zipped.status, 200, "{what}");
        assert_eq!(
            zipped.header("Content-Type"),
            plain.header("Content-Type"),
            "{what}"
        );
        assert!(
            vary_names_accept_encoding(&plain),
            "{what}: {:?}",
            plain.header("Vary")
        );
        assert!(vary_names_accept_encoding(&zipped), "{what}");
        if long {
            assert!(
                plain.body.len() >= GZIP_MIN_BYTES,
                "{what}: {} bytes",
                plain.body.len()
            );
            assert_eq!(zipped.header("Content-Encoding"), Some("gzip"), "{what}");
            assert_eq!(gunzip(&zipped.body), plain.body, "{what}: byte for byte");
            assert!(zipped.body.len() < plain.body.len(), "{what}: smaller");
        } else {
            assert!(
                plain.body.len() < GZIP_MIN_BYTES,
                "{what}: {} bytes",
                plain.body.len()
            );
            assert_eq!(
                zipped.header("Content-Encoding"),
                None,
                "{what}: too short to gzip"
            );
            assert_eq!(zipped.body, plain.body, "{what}");
        }
        let refused = with(Some("gzip;q=0, deflate"), "GET");
        assert_eq!(refused.header("Content-Encoding"), None, "{what}: gzip;q=0");
        assert_eq!(refused.body, plain.body, "{what}: gzip;q=0");
        // The client parses each answer by its framing: Content-Length is
        // the compressed body's, and exports are chunked.
        let head = with(Some(TAKES_GZIP), "HEAD");
        assert_head_like_get(&head, &zipped, &what);
    }
}

/// An identity tag and its gzip twin: `"abc"` and `"abc-gzip"`.
fn twins(plain: &Reply, zipped: &Reply) -> (String, String) {
    let tag = plain.header("ETag").expect("an ETag").to_string();
    let gzip_tag = zipped.header("ETag").expect("an ETag").to_string();
    assert_eq!(gzip_tag, format!("{}-gzip\"", tag.trim_end_matches('"')));
    (tag, gzip_tag)
}

#[test]
fn each_coding_has_its_own_tag_and_if_none_match_answers_by_it() {
    let (_, key, served) = Served::spawn_keyed("gzip-tags", Plan::Growth, &[]);
    let targets = [
        "/v1/areas?limit=100",
        "/v1/areas/export?format=csv",
        "/v1/openapi.json",
        "/explore",
    ];
    for target in targets {
        let get = |headers: &[(&str, &str)]| ask(&served, &key, "GET", target, headers);
        let (tag, gzip_tag) = twins(&get(&[]), &get(&[("Accept-Encoding", "gzip")]));
        let weak = format!("W/{gzip_tag}");
        for (codings, held, status, sent) in [
            (Some("gzip"), gzip_tag.as_str(), 304, &gzip_tag),
            (Some("gzip"), weak.as_str(), 304, &gzip_tag),
            (Some("x-gzip;q=0.5"), gzip_tag.as_str(), 304, &gzip_tag),
            (None, tag.as_str(), 304, &tag),
            (Some("gzip;q=0"), tag.as_str(), 304, &tag),
            // A copy in the other coding is not the one the client would get.
            (Some("gzip"), tag.as_str(), 200, &gzip_tag),
            (None, gzip_tag.as_str(), 200, &tag),
        ] {
            let what = format!("{target}: Accept-Encoding {codings:?}, If-None-Match {held}");
            let mut headers = vec![("If-None-Match", held)];
            headers.extend(codings.map(|c| ("Accept-Encoding", c)));
            let reply = get(&headers);
            assert_eq!(reply.status, status, "{what}");
            assert_eq!(reply.header("ETag"), Some(sent.as_str()), "{what}");
            assert!(vary_names_accept_encoding(&reply), "{what}");
            let gzipped = reply.header("Content-Encoding") == Some("gzip");
            assert_eq!(gzipped, status == 200 && codings == Some("gzip"), "{what}");
        }
    }
    // A body too short to gzip has one tag for every client.
    let get_area =
        |headers: &[(&str, &str)]| ask(&served, &key, "GET", "/v1/areas/soweto", headers);
    let tag = get_area(&[]).header("ETag").unwrap().to_string();
    let again = get_area(&[("Accept-Encoding", "gzip"), ("If-None-Match", &tag)]);
    assert_eq!(
        (again.status, again.header("ETag")),
        (304, Some(tag.as_str()))
    );
}

/// `area_response_body_bytes_total` by coding, read from /metrics.
fn body_bytes(served: &Served) -> (u64, u64) {
    let text = send(served.addr, "GET", b"/metrics", &[]).text();
    let read = |coding: &str| -> u64 {
        let name = format!("area_response_body_bytes_total{{encoding=\"{coding}\"}} ");
        text.lines()
            .find_map(|l| l.strip_prefix(name.as_str()))
            .unwrap_or_else(|| panic!("no {name} in {text}"))
            .parse()
            .unwrap()
    };
    (read("gzip"), read("identity"))
}

#[test]
fn metrics_count_the_body_bytes_sent_in_each_coding() {
    let (_, key, served) = Served::spawn_keyed("gzip-metrics", Plan::Growth, &[]);
    let (gzip_before, identity_before) = body_bytes(&served);
    let gzip = [("Accept-Encoding", "gzip")];
    let page = ask(&served, &key, "GET", "/v1/areas?limit=100", &gzip);
    let export = ask(&served, &key, "GET", "/v1/areas/export?format=csv", &gzip);
    let plain = ask(&served, &key, "GET", "/v1/areas?limit=100", &[]);
    ask(&served, &key, "HEAD", "/v1/areas?limit=100", &gzip);
    let (gzip_after, identity_after) = body_bytes(&served);
    assert_eq!(
        gzip_after - gzip_before,
        (page.body.len() + export.body.len()) as u64,
        "the gzip bodies, the export's as streamed; HEAD sends none"
    );
    // The identity count also holds the first /metrics answer's own body.
    assert!(identity_after - identity_before > plain.body.len() as u64);
}
