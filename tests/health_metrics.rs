//! Operations over real HTTP (docs/operations.md "Metrics and health", "Without a key"):
//! /healthz answers 200 with the area count and the dataset's identity
//! (tests/dataset_identity.rs has more of it), 503 while the database file is
//! gone and 200 again when it is back; /v1/openapi.json and /metrics need no
//! key; the Prometheus counters count exactly the requests a test made (each
//! such test runs a server of its own); --metrics-addr moves /metrics.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

use crate::common::client::{Reply, send};
use crate::common::rate::until_429;
use crate::common::server::TestServer;
use crate::common::wait::until;
use crate::common::{JSON, assert_503, seed_area_count};
use serde_json::json;

/// A server for the tests that count nothing.
fn shared() -> &'static TestServer {
    static APP: OnceLock<TestServer> = OnceLock::new();
    APP.get_or_init(|| TestServer::start(false))
}

/// Asks `target` without a key until `status` answers, for up to 5 s; the
/// last answer either way.
fn wait_for(server: &TestServer, target: &str, status: u16) -> Reply {
    until(
        Duration::from_secs(5),
        || server.get(target),
        |r| r.status == status,
    )
}

/// GET /metrics at `addr`, checked line by line against the Prometheus text
/// format; returns each sample (`name{labels}` as written) and its value.
fn scrape(addr: SocketAddr) -> BTreeMap<String, f64> {
    let reply = send(addr, "GET", b"/metrics", &[]);
    assert_eq!(reply.status, 200, "{}", reply.text());
    let content_type = reply.header("Content-Type").unwrap_or_default();
    assert!(
        content_type.starts_with("text/plain") && content_type.contains("version=0.0.4"),
        "{content_type}"
    );
    let text = reply.text();
    let mut typed = Vec::new();
    let mut samples = BTreeMap::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').expect("# TYPE name kind");
            assert!(["counter", "gauge", "histogram"].contains(&kind), "{line}");
            typed.push(name.to_string());
            continue;
        }
        if line.starts_with("# HELP ") {
            continue;
        }
        let (series, value) = line.rsplit_once(' ').expect("a sample: series value");
        let value: f64 = value
            .parse()
            .unwrap_or_else(|_| panic!("value in {line:?}"));
        let name = series.split('{').next().unwrap();
        assert!(
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'),
            "{line:?}"
        );
        if series.contains('{') {
            assert!(series.ends_with('}'), "{line:?}");
        }
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|s| name.strip_suffix(s))
            .filter(|f| typed.iter().any(|t| t == f))
            .unwrap_or(name);
        assert!(
            typed.iter().any(|t| t == family),
            "no # TYPE before {line:?}"
        );
        assert!(
            samples.insert(series.to_string(), value).is_none(),
            "twice: {line}"
        );
    }
    samples
}

fn requests(samples: &BTreeMap<String, f64>, route: &str, status: u16) -> f64 {
    let key = format!("area_requests_total{{route=\"{route}\",status=\"{status}\"}}");
    samples.get(&key).copied().unwrap_or(0.0)
}

#[test]
fn healthz_answers_the_seed_count_without_a_key() {
    let server = shared();
    let reply = server.get("/healthz");
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.header("Content-Type"), Some(JSON));
    let body = reply.json();
    assert_eq!(body["status"], "ok");
    assert_eq!(body["areas"], json!(seed_area_count()));
    assert_eq!(body["dataset"]["source"]["file"], "seed");
    assert_eq!(body["dataset"]["areas"], json!(seed_area_count()));
    assert_eq!(reply.header("Cache-Control"), Some("no-store"));
    assert_eq!(server.send("HEAD", "/healthz", &[]).status, 200);
}

#[test]
fn healthz_is_503_while_the_database_file_is_gone() {
    let server = TestServer::start(false);
    assert_eq!(server.get("/healthz").status, 200);
    let away = server.db.with_extension("away");
    std::fs::rename(&server.db, &away).expect("rename the database away");
    let down = wait_for(&server, "/healthz", 503);
    assert_503(&down);
    assert_eq!(down.header("Cache-Control"), Some("no-store"));
    assert_eq!(down.header("Access-Control-Allow-Origin"), Some("*"));
    server
        .get_with("/v1/areas/soweto", &[])
        .assert_error(503, "service_unavailable");
    std::fs::rename(&away, &server.db).expect("rename the database back");
    let up = wait_for(&server, "/healthz", 200);
    assert_eq!(up.status, 200, "{}", up.text());
    assert_eq!(up.json()["status"], "ok");
    assert_eq!(up.json()["areas"], json!(seed_area_count()));
    assert_eq!(server.get_with("/v1/areas/soweto", &[]).status, 200);
}

#[test]
fn the_openapi_document_is_served_without_a_key() {
    let server = shared();
    let reply = server.get("/v1/openapi.json");
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.header("Content-Type"), Some(JSON));
    let doc = reply.json();
    let version = doc["openapi"].as_str().expect("openapi is a string");
    assert!(version.starts_with("3.1"), "{version}");
    let paths = doc["paths"].as_object().expect("paths is an object");
    for path in [
        "/v1/areas",
        "/v1/areas/{area_id}",
        "/v1/areas/search",
        "/v1/areas/compare",
        "/v1/areas/{area_id}/history",
    ] {
        assert!(paths.contains_key(path), "{path} missing from paths");
    }
    let tag = reply.header("ETag").expect("an ETag");
    assert!(tag.starts_with('"') && tag.ends_with('"'), "{tag}");
    let again = server.send("GET", "/v1/openapi.json", &[("If-None-Match", tag)]);
    assert_eq!(again.status, 304);
}

#[test]
fn metrics_count_exactly_the_requests_made() {
    let server = TestServer::start(false);
    let first = scrape(server.addr);
    assert!(first.contains_key("area_db_connections{state=\"idle\"}"));
    assert!(first.contains_key("area_db_connections{state=\"busy\"}"));
    assert_eq!(first.get("area_rate_limited_total"), Some(&0.0));
    for id in [
        "soweto", "aberdeen", "atlantis", "soweto", "aberdeen", "soweto", "atlantis",
    ] {
        assert_eq!(server.get_with(&format!("/v1/areas/{id}"), &[]).status, 200);
    }
    for _ in 0..2 {
        server
            .get_with("/v1/areas/no-such-area", &[])
            .assert_error(404, "area_not_found");
    }
    for _ in 0..3 {
        server
            .get("/v1/areas/soweto")
            .assert_error(401, "missing_api_key");
    }
    assert_eq!(server.get_with("/v1/areas?limit=2", &[]).status, 200);
    assert_eq!(server.get_with("/v1/areas.csv?limit=2", &[]).status, 200);
    assert_eq!(server.get_with("/v1/areas/stats.csv", &[]).status, 200);
    assert_eq!(server.get("/healthz").status, 200);

    let m = scrape(server.addr);
    assert_eq!(requests(&m, "get_area", 200), 7.0);
    assert_eq!(requests(&m, "get_area", 404), 2.0);
    assert_eq!(requests(&m, "get_area", 401), 3.0);
    assert_eq!(requests(&m, "list_areas", 200), 1.0);
    assert_eq!(
        requests(&m, "list_areas_csv", 200),
        1.0,
        "a format path is counted apart"
    );
    assert_eq!(requests(&m, "area_stats_csv", 200), 1.0);
    assert_eq!(requests(&m, "healthz", 200), 1.0);
    assert_eq!(requests(&m, "metrics", 200), 1.0, "the first scrape");
    let hist = |part: &str| m[&format!("area_request_duration_seconds_{part}")];
    assert_eq!(hist("count{route=\"get_area\"}"), 12.0);
    assert_eq!(hist("bucket{route=\"get_area\",le=\"+Inf\"}"), 12.0);
    assert_eq!(hist("count{route=\"list_areas\"}"), 1.0);
    assert!(hist("sum{route=\"get_area\"}") > 0.0);
    let buckets: Vec<f64> = m
        .iter()
        .filter(|(k, _)| k.starts_with("area_request_duration_seconds_bucket{route=\"get_area\""))
        .map(|(_, v)| *v)
        .collect();
    assert_eq!(buckets.len(), 12, "eleven bounds and +Inf");
    assert!(buckets.iter().all(|&b| b <= 12.0));
    assert!(m["area_db_connections{state=\"idle\"}"] >= 1.0);
    assert_eq!(m["area_rate_limited_total"], 0.0);
}

#[test]
fn a_429_counts_as_a_rate_limit_refusal() {
    let server = TestServer::start(false);
    let key = server.free.clone();
    // The free plan's bucket holds 60 and refills one a second, so how many
    // pass before the first 429 depends on the machine's speed: ask until it
    // comes (bounded), and count what was answered.
    let (replies, _) = until_429(
        || server.as_key(&key, "GET", "/v1/areas/soweto", &[]),
        1_000,
    );
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    let answered = statuses.len() - 1;
    assert_eq!(statuses.last(), Some(&429), "no 429 in 1,000 requests");
    assert!(
        answered >= 60 && statuses[..answered].iter().all(|&s| s == 200),
        "the free plan allows 60 a minute: {statuses:?}"
    );
    let m = scrape(server.addr);
    assert_eq!(m["area_rate_limited_total"], 1.0);
    assert_eq!(requests(&m, "get_area", 429), 1.0);
    assert_eq!(requests(&m, "get_area", 200), answered as f64);
}

#[test]
fn metrics_addr_moves_metrics_to_a_listener_of_its_own() {
    let server = TestServer::start(true);
    let metrics_addr = server.metrics_addr.expect("a metrics address");
    assert_ne!(metrics_addr, server.addr);
    server.get("/metrics").assert_error(404, "not_found");
    server
        .get_with("/metrics", &[])
        .assert_error(404, "not_found");
    assert_eq!(server.get_with("/v1/areas/soweto", &[]).status, 200);
    assert_eq!(server.get("/healthz").status, 200);
    let m = scrape(metrics_addr);
    assert_eq!(requests(&m, "get_area", 200), 1.0);
    assert_eq!(requests(&m, "metrics", 404), 2.0);
    assert!(m.contains_key("area_db_connections{state=\"idle\"}"));
    // The metrics listener refuses everything else in the full error shape,
    // request id and CORS headers included.
    let refused = send(metrics_addr, "GET", b"/v1/areas", &[]);
    crate::common::assert_error_shape(&refused, 404, "not_found");
    crate::common::cache::assert_cors(&refused, "metrics listener 404");
}
