//! (method, path) → route. Paths are matched segment by segment; the area id
//! segment is percent-decoded. A path that matches no route is `None`, which the
//! app answers with 404 not_found; every route is read-only, so any method but
//! GET, HEAD and OPTIONS (CORS preflight) is 405.
//!
//! Every representation but JSON has a path of its own, the endpoint's path
//! with the format's extension (`/v1/areas.csv`, `/v1/areas/search.geojson`,
//! `/v1/areas/export.ndjson`), so that each operation of the OpenAPI document
//! answers one media type. Such a segment under /v1/areas can never be an
//! area's id, since an id is a slug and holds no dot.

use crate::api::contract::{EXPORT_FORMATS, Format, LIST_FORMATS, STATS_FORMATS, format_paths};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Each of List, Search and Export holds the format its path sets:
    /// `None` at the endpoint's own path, which answers JSON unless `format=`
    /// or Accept asks for another, `Some` at a format's own path.
    ListAreas(Option<Format>),
    SearchAreas(Option<Format>),
    CompareAreas,
    ExportAreas(Option<Format>),
    /// The area at a point (`/v1/areas/at`).
    AreaAt,
    /// Area statistics: JSON at `/v1/areas/stats` (`None`), CSV at its own path.
    AreaStats(Option<Format>),
    GetArea(String),
    AreaHistory(String),
    /// The calling key: its plan, rate limit and usage today.
    Key,
    /// The OpenAPI document, without a key.
    OpenApi,
    /// Liveness and data check, without a key.
    Health,
    /// Prometheus metrics, without a key.
    Metrics,
    /// A browser page or a file it loads (`/`, `/docs`, `/explore`,
    /// `/web/NAME`, and the icon browsers ask for at `/favicon.ico`), without
    /// a key; app/pages.rs serves it. Holds the path, percent-decoded.
    Page(String),
    /// `/docs/` or `/explore/`, as people type them: a permanent redirect
    /// (308) to the page, which it holds, without a key.
    PageWithSlash(&'static str),
}

/// List's, Search's, Export's or the statistics' route at one of its paths, from the format
/// that path sets (`Route::ListAreas` and its like).
pub type AtPath = fn(Option<Format>) -> Route;

impl Route {
    /// Routes that answer without an API key.
    pub fn is_public(&self) -> bool {
        matches!(
            self,
            Route::OpenApi
                | Route::Health
                | Route::Metrics
                | Route::Page(_)
                | Route::PageWithSlash(_)
        )
    }

    /// The query parameters the route takes, as the contract lists them: its
    /// query may hold no more pairs than this. The pages take none, and
    /// ignore whatever query they are given.
    pub fn params(&self) -> &'static [&'static str] {
        use crate::api::contract::*;
        match self {
            Route::ListAreas(format) => params_at(LIST_PATHS, *format),
            Route::SearchAreas(format) => params_at(SEARCH_PATHS, *format),
            Route::CompareAreas => &COMPARE_PARAMS,
            Route::ExportAreas(format) => params_at(EXPORT_PATHS, *format),
            Route::GetArea(_) => &AREA_PARAMS,
            Route::AreaAt => &AT_PARAMS,
            Route::AreaStats(_) => &STATS_PARAMS,
            Route::AreaHistory(_) => &HISTORY_PARAMS,
            Route::Key
            | Route::OpenApi
            | Route::Health
            | Route::Metrics
            | Route::Page(_)
            | Route::PageWithSlash(_) => &[],
        }
    }

    /// The route's name in metrics and logs.
    pub fn label(&self) -> &'static str {
        match self {
            Route::ListAreas(f) => by_format(*f, LIST_LABELS),
            Route::SearchAreas(f) => by_format(*f, SEARCH_LABELS),
            Route::CompareAreas => "compare_areas",
            Route::ExportAreas(f) => by_format(*f, EXPORT_LABELS),
            Route::AreaAt => "area_at",
            Route::AreaStats(f) => by_format(*f, STATS_LABELS),
            Route::GetArea(_) => "get_area",
            Route::AreaHistory(_) => "area_history",
            Route::Key => "key",
            Route::OpenApi => "openapi",
            Route::Health => "healthz",
            Route::Metrics => "metrics",
            Route::Page(_) | Route::PageWithSlash(_) => "page",
        }
    }
}

/// The labels of an endpoint at its own path and at each format's path, in
/// `Format` order: JSON, GeoJSON, CSV, NDJSON. A format path is an
/// operation of its own, so its requests are counted apart.
type Labels = [&'static str; 4];
const LIST_LABELS: Labels = [
    "list_areas",
    "list_areas_geojson",
    "list_areas_csv",
    "list_areas_ndjson",
];
const SEARCH_LABELS: Labels = [
    "search_areas",
    "search_areas_geojson",
    "search_areas_csv",
    "search_areas_ndjson",
];
const EXPORT_LABELS: Labels = [
    "export_areas",
    "export_areas_geojson",
    "export_areas_csv",
    "export_areas_ndjson",
];
const STATS_LABELS: Labels = [
    "area_stats",
    "area_stats_geojson",
    "area_stats_csv",
    "area_stats_ndjson",
];

/// The label of an endpoint at its own path (`None`, which answers JSON
/// unless asked otherwise) or at a format's path.
fn by_format(format: Option<Format>, labels: Labels) -> &'static str {
    match format {
        None | Some(Format::Json) => labels[0],
        Some(Format::GeoJson) => labels[1],
        Some(Format::Csv) => labels[2],
        Some(Format::NdJson) => labels[3],
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
    Options,
    Other,
}

impl Method {
    pub fn parse(s: &str) -> Method {
        match s {
            "GET" => Method::Get,
            "HEAD" => Method::Head,
            "OPTIONS" => Method::Options,
            _ => Method::Other,
        }
    }
}

/// The methods every route answers, for the Allow header.
pub const ALLOWED_METHODS: &str = "GET, HEAD, OPTIONS";

pub fn resolve(path: &str) -> Option<Route> {
    // Every segment is percent-decoded before matching (RFC 3986 6.2.2.2), so
    // /v1/%61reas/%73earch is /v1/areas/search. An undecodable segment matches nothing.
    let segments: Vec<String> = path
        .strip_prefix('/')?
        .split('/')
        .map(decode)
        .collect::<Option<_>>()?;
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    if let Some(route) = format_path(&segments) {
        return Some(route);
    }
    match segments.as_slice() {
        [""] | ["docs"] | ["explore"] | ["favicon.ico"] => Some(Route::Page(page(&segments))),
        ["web", name] if !name.is_empty() => Some(Route::Page(page(&segments))),
        ["docs", ""] => Some(Route::PageWithSlash("/docs")),
        ["explore", ""] => Some(Route::PageWithSlash("/explore")),
        ["healthz"] => Some(Route::Health),
        ["metrics"] => Some(Route::Metrics),
        ["v1", "openapi.json"] => Some(Route::OpenApi),
        ["v1", "key"] => Some(Route::Key),
        ["v1", "areas"] => Some(Route::ListAreas(None)),
        ["v1", "areas", "search"] => Some(Route::SearchAreas(None)),
        ["v1", "areas", "compare"] => Some(Route::CompareAreas),
        ["v1", "areas", "export"] => Some(Route::ExportAreas(None)),
        ["v1", "areas", "at"] => Some(Route::AreaAt),
        ["v1", "areas", "stats"] => Some(Route::AreaStats(None)),
        ["v1", "areas", id] if !id.is_empty() => Some(Route::GetArea(id.to_string())),
        ["v1", "areas", id, "history"] if !id.is_empty() => {
            Some(Route::AreaHistory(id.to_string()))
        }
        _ => None,
    }
}

/// A format's own path: an endpoint's last segment with one of the
/// endpoint's formats' extension (JSON's excepted, `format_paths`).
fn format_path(segments: &[&str]) -> Option<Route> {
    let (file, parent) = segments.split_last()?;
    let (stem, extension) = file.rsplit_once('.')?;
    let (route, offered): (AtPath, &[Format]) = match (parent, stem) {
        (["v1"], "areas") => (Route::ListAreas, &LIST_FORMATS),
        (["v1", "areas"], "search") => (Route::SearchAreas, &LIST_FORMATS),
        (["v1", "areas"], "export") => (Route::ExportAreas, &EXPORT_FORMATS),
        (["v1", "areas"], "stats") => (Route::AreaStats, &STATS_FORMATS),
        _ => return None,
    };
    let format = format_paths(offered).find(|f| f.extension() == extension)?;
    Some(route(Some(format)))
}

/// A page's path from its decoded segments (`/` for the root).
fn page(segments: &[&str]) -> String {
    format!("/{}", segments.join("/"))
}

/// Percent-decodes a path segment; an undecodable or non-UTF-8 one is None.
fn decode(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_every_route() {
        // The reserved ids are exactly the endpoints' own segments.
        for id in crate::domain::RESERVED_AREA_IDS {
            let route = resolve(&format!("/v1/areas/{id}"));
            assert!(!matches!(route, Some(Route::GetArea(_)) | None), "{id}");
        }
        assert_eq!(resolve("/v1/areas"), Some(Route::ListAreas(None)));
        assert_eq!(resolve("/v1/key"), Some(Route::Key));
        assert_eq!(resolve("/v1/areas/search"), Some(Route::SearchAreas(None)));
        assert_eq!(resolve("/v1/areas/compare"), Some(Route::CompareAreas));
        assert_eq!(resolve("/v1/areas/export"), Some(Route::ExportAreas(None)));
        assert_eq!(resolve("/v1/areas/at"), Some(Route::AreaAt));
        assert_eq!(resolve("/v1/areas/stats"), Some(Route::AreaStats(None)));
        assert_eq!(
            resolve("/v1/areas/stats.csv"),
            Some(Route::AreaStats(Some(Format::Csv)))
        );
        assert_eq!(
            resolve("/v1/areas/sandton"),
            Some(Route::GetArea("sandton".into()))
        );
        assert_eq!(
            resolve("/v1/areas/sandton/history"),
            Some(Route::AreaHistory("sandton".into()))
        );
    }

    #[test]
    fn each_format_but_json_has_a_path_of_its_own() {
        use Format::*;
        for (path, route) in [
            ("/v1/areas.csv", Route::ListAreas(Some(Csv))),
            ("/v1/areas.geojson", Route::ListAreas(Some(GeoJson))),
            ("/v1/areas/search.csv", Route::SearchAreas(Some(Csv))),
            (
                "/v1/areas/search.geojson",
                Route::SearchAreas(Some(GeoJson)),
            ),
            ("/v1/areas/export.csv", Route::ExportAreas(Some(Csv))),
            (
                "/v1/areas/export.geojson",
                Route::ExportAreas(Some(GeoJson)),
            ),
            ("/v1/areas/export.ndjson", Route::ExportAreas(Some(NdJson))),
            ("/v1/areas%2Ecsv", Route::ListAreas(Some(Csv))),
        ] {
            assert_eq!(resolve(path), Some(route.clone()), "{path}");
            assert!(!route.params().contains(&"format"), "{path}");
            let geojson = route == Route::ListAreas(Some(GeoJson))
                || route == Route::SearchAreas(Some(GeoJson))
                || route == Route::ExportAreas(Some(GeoJson));
            assert_eq!(route.params().contains(&"geometry"), geojson, "{path}");
        }
        // No other: JSON is the endpoint's own path, and List and Search have no NDJSON.
        for path in [
            "/v1/areas.json",
            "/v1/areas.ndjson",
            "/v1/areas.CSV",
            "/v1/areas.",
        ] {
            assert_eq!(resolve(path), None, "{path}");
        }
        for id in [
            "search.json",
            "search.ndjson",
            "compare.csv",
            "export.json",
            "cape.town",
        ] {
            let path = format!("/v1/areas/{id}");
            assert_eq!(resolve(&path), Some(Route::GetArea(id.into())), "{path}");
        }
    }

    #[test]
    fn no_area_id_is_a_format_path() {
        // An id is a slug, so no area can take the last segment of a
        // format's path under /v1/areas.
        for (stem, offered) in [("search", &LIST_FORMATS[..]), ("export", &EXPORT_FORMATS)] {
            for format in format_paths(offered) {
                let segment = format!("{stem}.{}", format.extension());
                assert!(
                    crate::data::import::rules::slug(&segment).is_err(),
                    "{segment}"
                );
            }
        }
    }

    #[test]
    fn resolves_the_pages() {
        for path in ["/", "/docs", "/explore", "/favicon.ico", "/web/explore.js"] {
            assert_eq!(resolve(path), Some(Route::Page(path.into())), "{path}");
        }
        assert_eq!(resolve("/%64ocs"), Some(Route::Page("/docs".into())));
    }

    #[test]
    fn a_page_with_a_trailing_slash_leads_to_the_page() {
        for (path, page) in [
            ("/docs/", "/docs"),
            ("/explore/", "/explore"),
            ("/%64ocs/", "/docs"),
        ] {
            let route = resolve(path);
            assert_eq!(route, Some(Route::PageWithSlash(page)), "{path}");
            assert!(route.is_some_and(|r| r.is_public()), "{path}");
        }
    }

    #[test]
    fn decodes_the_id_segment() {
        assert_eq!(
            resolve("/v1/areas/betty%27s-bay"),
            Some(Route::GetArea("betty's-bay".into()))
        );
        assert_eq!(
            resolve("/v1/areas/dani%C3%ABlskuil"),
            Some(Route::GetArea("daniëlskuil".into()))
        );
    }

    #[test]
    fn refuses_everything_else() {
        for path in [
            "",
            "/v1",
            "/docs//",
            "/explore/x",
            "/web/",
            "/web/a/b",
            "/v1/",
            "/v1/areas/",
            "/v1/areasx",
            "/v2/areas",
            "/v1/areas//history",
            "/v1/areas/x/history/",
            "/v1/areas/x/y",
            "/v1/areas/%zz",
            "/v1/areas/%ff",
            "/v1/areas/%",
            "/V1/AREAS",
            "/v1/areas/x/History",
        ] {
            assert_eq!(resolve(path), None, "{path:?}");
        }
    }

    #[test]
    fn only_get_and_head_are_methods_we_answer() {
        assert_eq!(Method::parse("GET"), Method::Get);
        assert_eq!(Method::parse("HEAD"), Method::Head);
        assert_eq!(Method::parse("OPTIONS"), Method::Options);
        for other in ["POST", "PUT", "DELETE", "PATCH", "get", "TRACE"] {
            assert_eq!(Method::parse(other), Method::Other);
        }
    }
}
