//! (method, path) → route. Paths are matched segment by segment; the area id
//! segment is percent-decoded. A path that matches no route is `None`, which the
//! app answers with 404 not_found; every route is read-only, so any method but
//! GET, HEAD and OPTIONS (CORS preflight) is 405.

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    ListAreas,
    SearchAreas,
    CompareAreas,
    GetArea(String),
    AreaHistory(String),
    /// The OpenAPI document, without a key.
    OpenApi,
    /// Liveness and data check, without a key.
    Health,
    /// Prometheus metrics, without a key.
    Metrics,
}

impl Route {
    /// Routes that answer without an API key.
    pub fn is_public(&self) -> bool {
        matches!(self, Route::OpenApi | Route::Health | Route::Metrics)
    }

    /// The route's name in metrics and logs.
    pub fn label(&self) -> &'static str {
        match self {
            Route::ListAreas => "list_areas",
            Route::SearchAreas => "search_areas",
            Route::CompareAreas => "compare_areas",
            Route::GetArea(_) => "get_area",
            Route::AreaHistory(_) => "area_history",
            Route::OpenApi => "openapi",
            Route::Health => "healthz",
            Route::Metrics => "metrics",
        }
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
    match path {
        "/healthz" => return Some(Route::Health),
        "/metrics" => return Some(Route::Metrics),
        "/v1/openapi.json" => return Some(Route::OpenApi),
        _ => {}
    }
    let rest = path.strip_prefix("/v1/areas")?;
    if rest.is_empty() {
        return Some(Route::ListAreas);
    }
    let segments: Vec<&str> = rest.strip_prefix('/')?.split('/').collect();
    match segments.as_slice() {
        ["search"] => Some(Route::SearchAreas),
        ["compare"] => Some(Route::CompareAreas),
        [id] => Some(Route::GetArea(area_id(id)?)),
        [id, "history"] => Some(Route::AreaHistory(area_id(id)?)),
        _ => None,
    }
}

/// Percent-decodes an id segment; an empty, undecodable or non-UTF-8 id matches no route.
fn area_id(segment: &str) -> Option<String> {
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
    String::from_utf8(out).ok().filter(|id| !id.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_every_route() {
        assert_eq!(resolve("/v1/areas"), Some(Route::ListAreas));
        assert_eq!(resolve("/v1/areas/search"), Some(Route::SearchAreas));
        assert_eq!(resolve("/v1/areas/compare"), Some(Route::CompareAreas));
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
            "/",
            "/v1",
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
