//! The browser pages over real HTTP (docs/browser.md): `/`, `/docs`,
//! `/explore` and their files answer without a key (never 401, whatever the
//! Authorization header), with their Content-Type, an ETag that a second
//! visit turns into 304, Cache-Control, and a Content-Security-Policy that
//! allows nothing but the server itself. `/` is HTML for a browser and a
//! JSON index of the same links for any other client. Every file a page
//! loads is served. `/docs/` and `/explore/` lead to their page with a 308.

use crate::common::client::Reply;
use crate::common::{JSON, spawn_app};

const HTML: &str = "text/html; charset=utf-8";
const PAGES: [&str; 3] = ["/", "/docs", "/explore"];
/// What Chromium sends when it opens a page.
const BROWSER_ACCEPT: &str =
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

fn get(target: &str, headers: &[(&str, &str)]) -> Reply {
    let headers: Vec<(&str, &[u8])> = headers.iter().map(|(n, v)| (*n, v.as_bytes())).collect();
    spawn_app().send("GET", target.as_bytes(), &headers)
}

fn browse(target: &str) -> Reply {
    get(target, &[("Accept", BROWSER_ACCEPT)])
}

/// Each directive allows 'self' or nothing ('none'): no other origin, no
/// inline script or style, no data: or blob: URLs.
fn assert_csp_is_self_only(reply: &Reply, target: &str) {
    let csp = reply
        .header("Content-Security-Policy")
        .unwrap_or_else(|| panic!("{target}: no Content-Security-Policy"));
    let directives: Vec<&str> = csp.split(';').map(str::trim).collect();
    assert!(
        directives.contains(&"default-src 'self'"),
        "{target}: {csp}"
    );
    for directive in directives {
        let mut words = directive.split_whitespace();
        let name = words.next().expect("a directive name");
        for source in words {
            assert!(
                source == "'self'" || source == "'none'",
                "{target}: {name} allows {source}"
            );
        }
    }
}

/// The paths a page's HTML or script names on this server: src and href
/// attributes and module imports that begin with '/'.
fn local_references(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for marker in ["src=\"/", "href=\"/", "from \"/"] {
        for (at, _) in text.match_indices(marker) {
            let start = at + marker.len() - 1;
            let end = start + text[start..].find('"').expect("a closing quote");
            found.push(text[start..end].to_string());
        }
    }
    found
}

#[test]
fn pages_are_html_with_caching_and_a_self_only_policy() {
    for target in PAGES {
        let reply = browse(target);
        assert_eq!(reply.status, 200, "{target}");
        assert_eq!(reply.header("Content-Type"), Some(HTML), "{target}");
        assert_eq!(reply.header("Cache-Control"), Some("no-cache"), "{target}");
        assert_eq!(reply.header("X-Content-Type-Options"), Some("nosniff"));
        assert!(reply.text().starts_with("<!doctype html>"), "{target}");
        assert_csp_is_self_only(&reply, target);
    }
}

#[test]
fn a_second_visit_with_the_etag_is_304_without_a_body() {
    for target in [
        "/",
        "/docs",
        "/explore",
        "/web/explore.js",
        "/web/style.css",
    ] {
        let first = browse(target);
        let etag = first.header("ETag").expect("an ETag").to_string();
        assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
        assert_eq!(browse(target).header("ETag"), Some(etag.as_str()), "stable");
        let again = get(
            target,
            &[("Accept", BROWSER_ACCEPT), ("If-None-Match", &etag)],
        );
        assert_eq!(again.status, 304, "{target}");
        assert!(again.body.is_empty(), "{target}");
        assert_eq!(again.header("ETag"), Some(etag.as_str()));
        let stale = get(target, &[("If-None-Match", "\"0000\"")]);
        assert_eq!(stale.status, 200, "{target}");
    }
}

#[test]
fn root_is_html_for_a_browser_and_a_json_index_otherwise() {
    let page = browse("/");
    assert_eq!(page.header("Content-Type"), Some(HTML));
    assert_eq!(page.header("Vary"), Some("Accept, Accept-Encoding"));
    for link in ["/docs", "/explore", "/v1/openapi.json", "/healthz"] {
        assert!(page.text().contains(&format!("href=\"{link}\"")), "{link}");
    }
    for accept in [
        None,
        Some("*/*"),
        Some("application/json"),
        Some("text/html;q=0"),
    ] {
        let headers: Vec<(&str, &str)> = accept.iter().map(|a| ("Accept", *a)).collect();
        let index = get("/", &headers);
        assert_eq!(index.status, 200, "{accept:?}");
        assert_eq!(index.header("Content-Type"), Some(JSON), "{accept:?}");
        assert_eq!(index.header("Vary"), Some("Accept, Accept-Encoding"));
        let links = &index.json()["links"];
        assert_eq!(links["docs"], "/docs");
        assert_eq!(links["explore"], "/explore");
        assert_eq!(links["openapi"], "/v1/openapi.json");
        assert_eq!(links["health"], "/healthz");
        assert_ne!(
            index.header("ETag"),
            page.header("ETag"),
            "one tag per form"
        );
    }
}

#[test]
fn pages_never_answer_401() {
    let app = spawn_app();
    let growth = format!("Bearer {}", app.key(crate::common::Plan::Growth));
    for target in ["/", "/docs", "/explore", "/web/api.js", "/favicon.ico"] {
        for auth in [
            None,
            Some("Bearer not-a-key"),
            Some("Basic eA=="),
            Some(growth.as_str()),
        ] {
            let mut headers = vec![("Accept", BROWSER_ACCEPT)];
            headers.extend(auth.map(|a| ("Authorization", a)));
            assert_eq!(get(target, &headers).status, 200, "{target} {auth:?}");
        }
    }
}

#[test]
fn a_page_typed_with_a_trailing_slash_is_a_permanent_redirect_to_it() {
    let app = spawn_app();
    let bad = "Bearer not-a-key";
    for (target, page) in [
        ("/docs/", "/docs"),
        ("/explore/", "/explore"),
        ("/explore/?q=x", "/explore"),
        ("/%64ocs/", "/docs"),
    ] {
        for auth in [None, Some(bad)] {
            let mut headers = vec![("Accept", BROWSER_ACCEPT)];
            headers.extend(auth.map(|a| ("Authorization", a)));
            let reply = get(target, &headers);
            assert_eq!(reply.status, 308, "{target} {auth:?}");
            assert_eq!(reply.header("Location"), Some(page), "{target}");
            assert_eq!(reply.header("Content-Type"), Some(JSON), "{target}");
            assert_eq!(reply.json()["location"], page, "{target}");
            assert!(reply.header("X-Request-Id").is_some(), "{target}");
            assert_eq!(reply.header("Access-Control-Allow-Origin"), Some("*"));
        }
        // Where it leads is the page itself.
        assert_eq!(browse(page).status, 200, "{page}");
    }
    let head = app.send("HEAD", b"/docs/", &[]);
    assert_eq!(head.status, 308);
    assert_eq!(head.header("Location"), Some("/docs"));
    assert!(head.body.is_empty());
    app.send("POST", b"/explore/", &[])
        .assert_error(405, "method_not_allowed");
    // Only those two: any other path with a slash stays unknown.
    for other in ["/docs//", "/web/", "/healthz/"] {
        get(other, &[]).assert_error(401, "missing_api_key");
    }
}

/// The OpenAPI document the server serves tells a client of the same
/// redirects (its info.description, as docs/browser.md does).
#[test]
fn the_served_document_describes_the_redirects() {
    let document = get("/v1/openapi.json", &[]).json();
    let description = document["info"]["description"].as_str().unwrap_or_default();
    let sentence = description
        .split(". ")
        .find(|s| s.contains("308"))
        .unwrap_or_default();
    for needle in [
        "`/docs/`",
        "`/explore/`",
        "`Location: /docs`",
        "`/explore`",
        "without a key",
    ] {
        assert!(sentence.contains(needle), "no {needle} in {sentence:?}");
    }
}

#[test]
fn every_file_a_page_loads_is_served_with_its_type() {
    let mut seen = std::collections::BTreeSet::new();
    let mut todo: Vec<String> = PAGES.iter().map(|p| p.to_string()).collect();
    while let Some(target) = todo.pop() {
        if !seen.insert(target.clone()) || target.starts_with("/v1/") || target == "/healthz" {
            continue;
        }
        let reply = browse(&target);
        assert_eq!(reply.status, 200, "{target}");
        let expected = match target.rsplit('.').next() {
            Some("js") => "text/javascript; charset=utf-8",
            Some("css") => "text/css; charset=utf-8",
            Some("svg") => "image/svg+xml",
            _ => HTML,
        };
        assert_eq!(reply.header("Content-Type"), Some(expected), "{target}");
        todo.extend(local_references(&reply.text()));
    }
    assert!(seen.contains("/web/explore.js") && seen.contains("/web/map.js"));
}

#[test]
fn the_map_s_land_is_served_from_here_with_its_source_and_licence() {
    let reply = browse("/web/land.json");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("Content-Type"), Some(JSON));
    let land = reply.json();
    let source = land["source"].as_str().expect("a source");
    assert!(source.contains("Natural Earth"), "{source}");
    let licence = land["licence"].as_str().expect("a licence");
    assert!(licence.contains("public domain") && licence.contains("ISC"));
    for layer in ["land", "borders"] {
        let rings = land[layer].as_array().expect(layer);
        assert!(!rings.is_empty(), "{layer}");
        for ring in rings {
            let numbers = ring.as_array().expect("numbers");
            assert!(numbers.len() >= 4 && numbers.len() % 2 == 0, "{layer}");
            assert!(numbers.iter().all(|n| n.is_i64()), "{layer}: whole units");
        }
    }
    // The map's script asks for it by this path.
    assert!(browse("/web/land.js").text().contains("\"/web/land.json\""));
}

#[test]
fn pages_take_get_and_head_only_and_unknown_files_are_404() {
    let app = spawn_app();
    let head = app.send("HEAD", b"/explore", &[]);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(head.header("ETag"), browse("/explore").header("ETag"));
    let post = app.send("POST", b"/docs", &[]);
    post.assert_error(405, "method_not_allowed");
    let missing = get("/web/nothing-here.js", &[]);
    missing.assert_error(404, "not_found");
    // API paths stay JSON, even for a browser.
    let api = browse("/v1/areas");
    api.assert_error(401, "missing_api_key");
}
