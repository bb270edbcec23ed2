//! The answer a `Service` gives the layer: a status, headers and a body, or
//! a body made as it is sent (the export's). Like net/http's response types
//! it sits in the layer that writes it (serialize.rs makes its bytes), so
//! the layer needs nothing of the app. Errors take the one error shape of
//! src/error.rs, which sits below both.

use serde::Serialize;

use crate::error::ApiError;

/// JSON's Content-Type: the default representation's, and every error's.
pub const JSON: &str = "application/json; charset=utf-8";

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
    /// A body made as it is sent (the export), instead of `body`: the
    /// layer writes it in chunks, on a thread of its own.
    pub stream: Option<Stream>,
    /// Whom the service answered, for the access log: an API key's id
    /// (never the key), or None for a request no key was accepted for.
    pub caller: Option<String>,
}

/// A body of unknown length, read to its end as it is sent.
pub struct Stream(pub Box<dyn std::io::Read + Send>);

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stream")
    }
}

impl Response {
    pub fn json(status: u16, body: Vec<u8>) -> Response {
        Response {
            status,
            headers: vec![("Content-Type", JSON.into())],
            body,
            stream: None,
            caller: None,
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
