//! The app's own view of HTTP: a typed `Request` in, a `Response` out.
//!
//! `transport/respond.rs` fills a `Request` from a parsed head and turns the
//! `Response` into bytes, so nothing else in the crate depends on the HTTP layer. Bodies are JSON but for the
//! representations a client asks for (CSV and GeoJSON of List and Search,
//! app/listing.rs; the export's, app/exports.rs, which streams) and the
//! Prometheus text of /metrics.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

pub use super::caching::{etag_matches, etag_of};
use crate::api::format::Format;
use crate::error::ApiError;

/// What the app needs of a request.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub method: String,
    /// The request target as sent: path, then `?` and the query string if any.
    pub target: String,
    pub authorization: Option<String>,
    pub request_id: Option<String>,
    pub if_none_match: Option<String>,
    /// The representations the client takes (List, Search and Export read it).
    pub accept: Option<String>,
    /// The content codings the client takes (app/encoding.rs reads it).
    pub accept_encoding: Option<String>,
    /// Who to count unauthenticated requests against: the peer, or a trusted
    /// front's X-Real-IP (transport/fronts.rs).
    pub client: Option<std::net::IpAddr>,
    /// Bytes of all header lines, for the 16 KiB limit.
    pub header_bytes: usize,
}

impl Request {
    pub fn path(&self) -> &str {
        self.target
            .split_once('?')
            .map_or(self.target.as_str(), |(p, _)| p)
    }

    pub fn query(&self) -> &str {
        self.target.split_once('?').map_or("", |(_, q)| q)
    }
}

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
    /// A body made as it is sent (the export), instead of `body`: the
    /// transport writes it in chunks, on a thread of its own.
    pub stream: Option<Stream>,
}

/// A body of unknown length, read to its end as it is sent.
pub struct Stream(pub Box<dyn std::io::Read + Send>);

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stream")
    }
}

/// JSON's Content-Type, the default representation's.
pub const JSON: &str = Format::Json.content_type();

impl Response {
    pub fn json(status: u16, body: Vec<u8>) -> Response {
        Response {
            status,
            headers: vec![("Content-Type", JSON.into())],
            body,
            stream: None,
        }
    }

    pub fn ok(value: &impl Serialize) -> Response {
        match serde_json::to_vec(value) {
            Ok(body) => Response::json(200, body),
            Err(e) => {
                log::error!("cannot serialize a response: {e}");
                Response::error(&ApiError::Internal)
            }
        }
    }

    /// An error in the one error shape. Errors are never cached: the next try
    /// may well succeed.
    pub fn error(err: &ApiError) -> Response {
        let mut response = Response::json(err.status(), err.body());
        response.headers.extend(err.headers());
        response.headers.push(("Cache-Control", "no-store".into()));
        response
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Headers every response carries so that browser clients on any origin can
/// call the API and read what it returns.
pub const CORS_HEADERS: [(&str, &str); 2] = [
    ("Access-Control-Allow-Origin", "*"),
    (
        "Access-Control-Expose-Headers",
        "ETag, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, \
         Link, X-Total-Count, Content-Disposition",
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
    }
}

/// Request ids: the client's when it is safe to echo, else a new one made of a
/// per-process random prefix and a counter (unique without a syscall per request).
pub struct RequestIds {
    prefix: String,
    next: AtomicU64,
}

impl RequestIds {
    pub fn new() -> RequestIds {
        let mut seed = [0u8; 6];
        let _ = getrandom::fill(&mut seed);
        RequestIds {
            prefix: seed.iter().map(|b| format!("{b:02x}")).collect(),
            next: AtomicU64::new(1),
        }
    }

    pub fn for_request(&self, client: Option<&str>) -> String {
        match client {
            Some(id) if is_safe_request_id(id) => id.to_string(),
            _ => format!(
                "req_{}{:010x}",
                self.prefix,
                self.next.fetch_add(1, Ordering::Relaxed)
            ),
        }
    }
}

impl Default for RequestIds {
    fn default() -> Self {
        RequestIds::new()
    }
}

/// 1 to 64 of letters, digits, '-', '_' and '.': nothing that could break a
/// header or a log line.
pub fn is_safe_request_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// The request target for the log, with the values of parameters that look
/// like credentials replaced, and nothing that could break the line.
pub fn loggable_target(target: &str) -> String {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut out = path.to_string();
    if !query.is_empty() {
        let parts: Vec<String> = query
            .split('&')
            .map(|pair| {
                let name = pair.split_once('=').map_or(pair, |(n, _)| n);
                let lower = name.to_ascii_lowercase();
                if lower.contains("key") || lower.contains("token") || lower.contains("auth") {
                    format!("{name}=[redacted]")
                } else {
                    pair.to_string()
                }
            })
            .collect();
        out.push('?');
        out.push_str(&parts.join("&"));
    }
    out.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

#[cfg(test)]
#[path = "http_tests.rs"]
mod tests;
