//! What the app adds to the layer's `Request` and `Response`
//! (transport/request.rs, transport/response.rs): the CORS headers every
//! answer carries and the preflight's answer. Bodies are JSON but for the
//! representations a client asks for (CSV and GeoJSON of List and Search,
//! app/listing.rs; the export's, app/exports.rs, which streams) and the
//! Prometheus text of /metrics.

pub use super::caching::{etag_matches, etag_of};
#[cfg(test)]
use crate::api::format::Format;
pub use crate::transport::{JSON, Request, RequestIds, Response, Stream};

/// Headers every response carries so that browser clients on any origin can
/// call the API and read what it returns.
pub const CORS_HEADERS: [(&str, &str); 2] = [
    ("Access-Control-Allow-Origin", "*"),
    (
        "Access-Control-Expose-Headers",
        "ETag, X-Request-Id, RateLimit-Policy, RateLimit, X-RateLimit-Limit, X-RateLimit-Remaining, \
         X-RateLimit-Reset, Retry-After, Link, X-Total-Count, X-Missing-Ids, Content-Disposition",
    ),
];

/// The answer to a CORS preflight (OPTIONS) on an API path.
pub fn preflight(allow: &str) -> Response {
    Response {
        status: 204,
        headers: vec![
            ("Access-Control-Allow-Methods", allow.into()),
            (
                "Access-Control-Allow-Headers",
                "Authorization, If-None-Match, X-Request-Id".into(),
            ),
            ("Access-Control-Max-Age", "600".into()),
            ("Allow", allow.into()),
        ],
        body: Vec::new(),
        stream: None,
        caller: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_says_json_as_the_json_representation_does() {
        assert_eq!(JSON, Format::Json.content_type());
    }
}
