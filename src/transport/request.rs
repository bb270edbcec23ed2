//! The request the layer hands its `Service`: the parts of a head the app
//! reads, typed. Like net/http's Request, it sits in the layer that fills
//! it, so the layer needs nothing of the app; with it, the ids an answer
//! carries (log_target.rs has the target as the access log prints it).

use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};

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
    /// front's X-Real-IP (trusted_proxies.rs).
    pub client: Option<IpAddr>,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echoes_only_safe_request_ids() {
        let ids = RequestIds::new();
        assert_eq!(ids.for_request(Some("abc-123_x.y")), "abc-123_x.y");
        for unsafe_id in ["", "a b", "a\r\nb", "é", &"x".repeat(65)] {
            let made = ids.for_request(Some(unsafe_id));
            assert!(
                made.starts_with("req_") && is_safe_request_id(&made),
                "{unsafe_id:?} -> {made}"
            );
        }
        assert_ne!(ids.for_request(None), ids.for_request(None));
    }
}
