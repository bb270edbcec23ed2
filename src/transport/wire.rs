//! tiny_http's request and response types to and from the app's (app/http.rs),
//! and writing an answer, with `Connection: close` while the server stops.

use std::io::Write;
use std::net::IpAddr;

use tiny_http::Header;

use crate::app::http::{Request, Response};

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

pub fn to_tiny(response: Response) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    let mut out = tiny_http::Response::from_data(response.body).with_status_code(response.status);
    for (name, value) in response.headers {
        // Header values are built from safe parts; one that still could split
        // the header block is dropped rather than sent.
        match Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            Ok(h) if !value.contains(['\r', '\n']) => out.add_header(h),
            _ => log::error!("dropped an invalid {name} header"),
        }
    }
    out
}

const CONNECTION_CLOSE: &[u8] = b"Connection: close\r\n";

/// Writes the answer to `request`. With `closing` (the server is stopping),
/// the answer says `Connection: close`, so that a keep-alive client or an
/// nginx upstream does not send another request on a connection about to end.
///
/// Every answer is printed by tiny_http's own `raw_print` (what `respond`
/// does: Date, Server, Content-Length or chunked, no body for HEAD) into
/// memory and goes out through the request's raw writer in one write.
/// `respond` printed straight into a 1 KiB buffer, so an answer left in two
/// or more `sendto` calls (strace); in one, Get Area and List Areas cost
/// 3-5 % less CPU (bench/PROFILE.md). And tiny_http drops any `Connection`
/// header a response is given and never writes one itself, so while closing
/// the header is put in here, after the status line.
pub fn respond(
    request: tiny_http::Request,
    response: Response,
    closing: bool,
) -> std::io::Result<()> {
    let tiny = to_tiny(response);
    let mut bytes = Vec::new();
    let head_only = *request.method() == tiny_http::Method::Head;
    tiny.raw_print(
        &mut bytes,
        request.http_version().clone(),
        request.headers(),
        head_only,
        None,
    )?;
    // raw_print always begins with the status line.
    let at = bytes
        .windows(2)
        .position(|w| w == b"\r\n")
        .map_or(0, |i| i + 2);
    if closing {
        bytes.splice(at..at, CONNECTION_CLOSE.iter().copied());
    }
    let mut writer = request.into_writer();
    // As `respond` does: a client that has gone is not an error to report.
    ignore_gone(writer.write_all(&bytes).and_then(|()| writer.flush()))
}

fn ignore_gone(result: std::io::Result<()>) -> std::io::Result<()> {
    use std::io::ErrorKind::*;
    match result {
        Err(e)
            if matches!(
                e.kind(),
                BrokenPipe | ConnectionAborted | ConnectionRefused | ConnectionReset
            ) =>
        {
            Ok(())
        }
        other => other,
    }
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
