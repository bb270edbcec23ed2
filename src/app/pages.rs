//! The browser pages: `/` (an HTML landing page for a browser, a small JSON
//! index of the same links for any other client), `/docs` (the API reference,
//! built in the page from /v1/openapi.json) and `/explore` (the area
//! explorer), and the files they load under `/web/`.
//!
//! The files are the repository's `web/` folder, built into the binary, so a
//! server needs nothing beside itself. Each file's ETag is computed once, and
//! its gzip the first time a client takes it (app/caching.rs, `Kept`). The
//! pages call the public API as any client does; their Content-Security-Policy
//! lets them load and call nothing but this server (docs/browser.md).

use std::sync::OnceLock;

use super::caching::Kept;
use super::http::{self, Request, Response};
use crate::error::ApiError;

/// Nothing but this server: no other origin for scripts, styles, images,
/// fonts or requests, no plugins, no framing, no `<base>` or form targets.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; base-uri 'none'; \
     form-action 'none'; frame-ancestors 'none'; object-src 'none'";

/// Pages and files change only with the binary, but they are not named by
/// version: the browser asks again each time and gets a 304 while its copy is current.
const CACHE_CONTROL: &str = "no-cache";

const HTML: &str = "text/html; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const SVG: &str = "image/svg+xml";

/// Served paths, their Content-Type and their bytes.
const FILES: [(&str, &str, &[u8]); 17] = [
    ("/", HTML, include_bytes!("../../web/index.html")),
    ("/docs", HTML, include_bytes!("../../web/docs.html")),
    ("/explore", HTML, include_bytes!("../../web/explore.html")),
    // Browsers ask for it on any page, JSON ones too.
    ("/favicon.ico", SVG, include_bytes!("../../web/icon.svg")),
    ("/web/icon.svg", SVG, include_bytes!("../../web/icon.svg")),
    ("/web/style.css", CSS, include_bytes!("../../web/style.css")),
    ("/web/api.js", JS, include_bytes!("../../web/api.js")),
    ("/web/docs.js", JS, include_bytes!("../../web/docs.js")),
    (
        "/web/markdown.js",
        JS,
        include_bytes!("../../web/markdown.js"),
    ),
    (
        "/web/explore.js",
        JS,
        include_bytes!("../../web/explore.js"),
    ),
    ("/web/map.js", JS, include_bytes!("../../web/map.js")),
    ("/web/grid.js", JS, include_bytes!("../../web/grid.js")),
    ("/web/land.js", JS, include_bytes!("../../web/land.js")),
    // Natural Earth's land and borders, made by tools/build_land.py.
    (
        "/web/land.json",
        http::JSON,
        include_bytes!("../../web/land.json"),
    ),
    ("/web/panel.js", JS, include_bytes!("../../web/panel.js")),
    ("/web/chart.js", JS, include_bytes!("../../web/chart.js")),
    (
        "/web/compare.js",
        JS,
        include_bytes!("../../web/compare.js"),
    ),
];

/// `/` for a client that is not a browser: where to go next.
const INDEX_JSON: &str = "{\"name\":\"Area Scoring API\",\"links\":{\
     \"docs\":\"/docs\",\"explore\":\"/explore\",\
     \"openapi\":\"/v1/openapi.json\",\"health\":\"/healthz\"}}\n";

/// One served file with its tag.
struct Served {
    path: &'static str,
    content_type: &'static str,
    kept: Kept,
}

/// Every file, then the JSON index of `/`, each tagged once.
fn served() -> &'static [Served] {
    static SERVED: OnceLock<Vec<Served>> = OnceLock::new();
    SERVED.get_or_init(|| {
        let index = ("/", http::JSON, INDEX_JSON.as_bytes());
        FILES
            .iter()
            .chain(std::iter::once(&index))
            .map(|&(path, content_type, body)| Served {
                path,
                content_type,
                kept: Kept::new(body),
            })
            .collect()
    })
}

/// Answers GET or HEAD of a page's path; an unknown file under /web/ is 404.
/// The query string is ignored: a page takes no parameters, and a link that
/// carries some still opens it.
pub fn answer(req: &Request, path: &str) -> Result<Response, ApiError> {
    let browser = wants_html(req.accept.as_deref());
    let file = served()
        .iter()
        .filter(|f| f.path == path)
        // `/` is listed twice: the HTML page first, then the JSON index.
        .find(|f| path != "/" || browser == (f.content_type == HTML))
        .ok_or_else(|| ApiError::NotFound { path: path.into() })?;
    let mut response = Response {
        status: 200,
        headers: vec![
            ("Content-Type", file.content_type.into()),
            ("Cache-Control", CACHE_CONTROL.into()),
            ("Content-Security-Policy", CONTENT_SECURITY_POLICY.into()),
            ("X-Content-Type-Options", "nosniff".into()),
            ("Referrer-Policy", "no-referrer".into()),
        ],
        body: Vec::new(),
        stream: None,
        caller: None,
    };
    if path == "/" {
        response.headers.push(("Vary", "Accept".into()));
    }
    Ok(file.kept.answer(response, req))
}

/// `/docs/` or `/explore/`: a permanent redirect (308) to the page, whose
/// path is the whole Location (a page takes no query string). The body says
/// the same in JSON, for a client that does not follow redirects.
pub fn moved(page: &'static str) -> Response {
    let mut response = Response::json(308, format!("{{\"location\":\"{page}\"}}\n").into_bytes());
    response.headers.extend([
        ("Location", page.into()),
        ("Cache-Control", CACHE_CONTROL.into()),
    ]);
    response
}

/// Whether Accept names text/html with a q above 0, as a browser's does when
/// it opens a page. No Accept, or `*/*` alone (curl's), is not a browser.
pub fn wants_html(accept: Option<&str>) -> bool {
    accept.is_some_and(|accept| {
        accept.split(',').any(|range| {
            let mut parts = range.split(';').map(str::trim);
            let media = parts.next().unwrap_or("");
            let refused = parts.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f64>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            media.eq_ignore_ascii_case("text/html") && !refused
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_browser_is_one_that_names_html() {
        let chromium = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        assert!(wants_html(Some(chromium)));
        assert!(wants_html(Some("TEXT/HTML")));
        for other in [
            None,
            Some("*/*"),
            Some("application/json"),
            Some("text/html;q=0"),
        ] {
            assert!(!wants_html(other), "{other:?}");
        }
    }

    #[test]
    fn files_with_other_bytes_have_other_tags() {
        let bodies: std::collections::HashSet<&[u8]> =
            served().iter().map(|f| f.kept.body()).collect();
        let tags: std::collections::HashSet<&str> =
            served().iter().map(|f| f.kept.etag()).collect();
        assert_eq!(tags.len(), bodies.len());
    }
}
