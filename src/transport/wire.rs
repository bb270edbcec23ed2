//! tiny_http's request and response types to and from the app's (app/http.rs):
//! the answer as bytes (with `Connection: close` when asked), what a request
//! says about a body, and dropping a request without an answer.

use std::io::Write;
use std::net::IpAddr;

use tiny_http::Header;

use super::write::Pending;
use crate::app::http::{Request, Response, Stream};
use crate::dates;

pub fn to_request(request: &tiny_http::Request) -> Request {
    let header = |name: &'static str| {
        request
            .headers()
            .iter()
            .find(|h| h.field.equiv(name))
            .map(|h| h.value.as_str().to_string())
    };
    let header_bytes = request
        .headers()
        .iter()
        .map(|h| h.field.as_str().as_str().len() + h.value.as_str().len() + 4)
        .sum();
    Request {
        method: request.method().as_str().to_string(),
        target: request.url().to_string(),
        authorization: header("Authorization"),
        request_id: header("X-Request-Id"),
        if_none_match: header("If-None-Match"),
        accept: header("Accept"),
        client: client_address(request.remote_addr().map(|a| a.ip()), header("X-Real-IP")),
        header_bytes,
    }
}

/// The client to rate-limit without a key: the peer, or, when the peer is the
/// nginx front on this machine, the address it passes in X-Real-IP.
fn client_address(peer: Option<IpAddr>, real_ip: Option<String>) -> Option<IpAddr> {
    match (peer, real_ip.and_then(|v| v.trim().parse::<IpAddr>().ok())) {
        (Some(p), Some(real)) if p.is_loopback() => Some(real),
        (peer, _) => peer,
    }
}

/// `Name: value` and its line end, or None (and a log line) for a header
/// that could split the header block. Values are built from safe parts; one
/// that still holds a control character is dropped rather than sent.
fn header_line(name: &str, value: &str) -> Option<String> {
    let safe = |s: &str, allowed: fn(u8) -> bool| s.bytes().all(allowed);
    if safe(name, |b| b.is_ascii_graphic() && b != b':')
        && safe(value, |b| b == b'\t' || !b.is_ascii_control())
    {
        Some(format!("{name}: {value}\r\n"))
    } else {
        log::error!("dropped an invalid {name} header");
        None
    }
}

pub fn to_tiny(response: Response) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    let mut out = tiny_http::Response::from_data(response.body).with_status_code(response.status);
    for (name, value) in response.headers {
        if header_line(name, &value).is_some()
            && let Ok(h) = Header::from_bytes(name.as_bytes(), value.as_bytes())
        {
            out.add_header(h);
        }
    }
    out
}

const CONNECTION_CLOSE: &[u8] = b"Connection: close\r\n";

/// A request body tiny_http does not read itself (over 1 KiB without
/// Transfer-Encoding) is read and thrown away when the request is dropped,
/// into one buffer the size of the announced length: a length of terabytes
/// aborts the process (docs/http-layer.md, "Request bodies").
const READ_BY_TINY_HTTP: usize = 1024;

/// What a request says about a body, which this API never takes.
#[derive(Debug, PartialEq)]
pub enum Body {
    None,
    /// Answer 400 and close: the body's end is unknown to tiny_http (chunked,
    /// or a Content-Length it cannot parse), so bytes after the head would be
    /// read as the next request; or it was read and the request is refused.
    Refused,
    /// Never drop this request: see `READ_BY_TINY_HTTP`.
    Unread,
}

pub fn body(request: &tiny_http::Request) -> Body {
    let header = |name: &'static str| {
        request
            .headers()
            .iter()
            .find(|h| h.field.equiv(name))
            .map(|h| h.value.as_str().trim().to_string())
    };
    if header("Transfer-Encoding").is_some() {
        return Body::Refused;
    }
    match header("Content-Length").map(|v| v.parse::<usize>()) {
        None | Some(Ok(0)) => Body::None,
        Some(Ok(n)) if n > READ_BY_TINY_HTTP => Body::Unread,
        Some(_) => Body::Refused,
    }
}

/// Drops a request without answering it and without writing anything.
pub fn discard(request: tiny_http::Request) {
    if body(&request) == Body::Unread {
        abandon(request);
    } else {
        // Taking the writer and dropping it unused writes nothing, where
        // dropping the request would write tiny_http's empty 500.
        drop(request.into_writer());
    }
}

/// Leaves a request with an unread body unanswered for good: its connection
/// thread and descriptors stay until the process exits, which is the price
/// of not aborting (docs/http-layer.md, "Request bodies").
pub fn abandon(request: tiny_http::Request) {
    log::warn!(
        "abandoned a request with an unread body from {:?}: its connection stays open",
        request.remote_addr()
    );
    std::mem::forget(request);
}

/// The whole answer to `request` as bytes, and the writer to send them on.
/// With `closing`, the answer says `Connection: close`, so that a keep-alive
/// client or an nginx upstream does not send another request on it.
///
/// The answer is printed by tiny_http's own `raw_print` (what `respond` does:
/// Date, Server, Content-Length or chunked, no body for HEAD) into memory, to
/// leave in one write: through tiny_http's 1 KiB buffer an answer took two or
/// more `sendto` calls, and Get Area and List Areas 3-5 % more CPU
/// (bench/PROFILE.md). tiny_http drops any `Connection` header a response is
/// given and never writes one itself, so it is put in here.
pub fn answer(
    request: tiny_http::Request,
    response: Response,
    closing: bool,
) -> (Vec<u8>, Box<dyn Write + Send>) {
    // tiny_http drops an Upgrade header (the 426 names the protocol with it);
    // it is put in after the status line with Connection.
    let upgrade: String = response
        .headers
        .iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case("Upgrade"))
        .filter_map(|(name, value)| header_line(name, value))
        .collect();
    let tiny = to_tiny(response);
    let mut bytes = Vec::new();
    let head_only = *request.method() == tiny_http::Method::Head;
    // Printing into a Vec cannot fail.
    let _ = tiny.raw_print(
        &mut bytes,
        request.http_version().clone(),
        request.headers(),
        head_only,
        None,
    );
    // raw_print always begins with the status line.
    let at = bytes
        .windows(2)
        .position(|w| w == b"\r\n")
        .map_or(0, |i| i + 2);
    if closing {
        bytes.splice(at..at, CONNECTION_CLOSE.iter().copied());
    }
    bytes.splice(at..at, upgrade.into_bytes());
    (bytes, request.into_writer())
}

/// A streamed answer (the export), over HTTP/1.1 (serve.rs refuses it over
/// HTTP/1.0): the head, written here since tiny_http would read a body of
/// unknown length to its end before sending any of it, then the body in
/// chunks as it is read. It always says `Connection: close`: after a long
/// download tiny_http may already have timed the connection out, and would
/// write its own 408 after the last chunk, where a client reusing the
/// connection would take it for the answer to its next request.
pub fn streamed(request: tiny_http::Request, mut response: Response) -> Pending {
    let head_only = *request.method() == tiny_http::Method::Head;
    let status = tiny_http::StatusCode(response.status);
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nDate: {}\r\n",
        status.0,
        status.default_reason_phrase(),
        dates::format_http_date(dates::now_unix())
    );
    for (name, value) in &response.headers {
        if let Some(line) = header_line(name, value) {
            head.push_str(&line);
        }
    }
    head.push_str("Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
    let Stream(reader) = response
        .stream
        .take()
        .expect("a streamed answer has a stream");
    if head_only {
        return Pending::new(head.into_bytes(), request.into_writer());
    }
    Pending::streamed(head.into_bytes(), request.into_writer(), reader)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x_real_ip_is_trusted_only_from_a_loopback_peer() {
        let front: IpAddr = "127.0.0.1".parse().unwrap();
        let remote: IpAddr = "198.51.100.7".parse().unwrap();
        let named = || Some("203.0.113.5".to_string());
        assert_eq!(
            client_address(Some(front), named()),
            Some("203.0.113.5".parse().unwrap())
        );
        assert_eq!(
            client_address(Some("::1".parse().unwrap()), named()),
            Some("203.0.113.5".parse().unwrap())
        );
        // A client on the internet cannot pick its own rate-limit bucket.
        assert_eq!(client_address(Some(remote), named()), Some(remote));
        assert_eq!(
            client_address(Some(front), Some("nonsense".into())),
            Some(front)
        );
        assert_eq!(client_address(Some(front), None), Some(front));
    }
}
