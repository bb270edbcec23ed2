//! A parsed head to the app's `Request`, the app's answer to bytes, and the
//! access-log line: the only place the layer and the app meet.

use std::io::Read;
use std::net::IpAddr;
use std::time::Instant;

use super::answer::{self, Framing};
use super::conn::Conn;
use super::head::Head;
use super::layer::Shared;
use crate::app::http::{self, Request, Response, Stream};
use crate::app::stamp;
use crate::error::ApiError;

/// An export to stream: its head, then its body in chunks.
pub struct Streamed {
    pub head: Vec<u8>,
    pub body: Box<dyn Read + Send>,
}

pub enum Reply {
    Bytes { bytes: Vec<u8>, close: bool },
    Stream(Streamed),
}

/// The answer to `head`; `last` when the server is stopping and this is the
/// last complete request received on the connection.
pub fn answer(shared: &Shared, c: &Conn, head: &Head, last: bool) -> Reply {
    let started = Instant::now();
    let req = to_request(head, c.peer.ip());
    let mut response = shared.service.answer(&req, c.metrics_only);
    let head_only = head.method == "HEAD";
    let close = !head.keep_alive || last;
    if response.stream.is_some() {
        // Dropping the stream gives its export slot back.
        if head.minor == 0 {
            response = layer_error(shared, &req, &ApiError::UpgradeRequired);
        } else if shared.is_stopping() {
            response = layer_error(shared, &req, &ApiError::ServiceUnavailable);
        } else {
            access_line(shared, &req, &response, started);
            let stream = response.stream.take();
            let head_bytes = answer::streamed_head(&response);
            return match (stream, head_only) {
                (Some(Stream(body)), false) => Reply::Stream(Streamed {
                    head: head_bytes,
                    body,
                }),
                _ => Reply::Bytes {
                    bytes: head_bytes,
                    close: true,
                },
            };
        }
    }
    access_line(shared, &req, &response, started);
    let framing = if close {
        Framing::Close
    } else {
        Framing::KeepAlive
    };
    Reply::Bytes {
        bytes: answer::bytes(&response, head.minor, head_only, framing),
        close,
    }
}

/// The whole answer for an error the layer finds itself, with `Connection: close`.
pub fn refusal(shared: &Shared, err: &ApiError) -> Vec<u8> {
    let response = layer_error(shared, &Request::default(), err);
    shared
        .metrics
        .record("unmatched", response.status, std::time::Duration::ZERO);
    log_line(shared, "-", "-", &response, 0.0);
    answer::bytes(&response, 1, false, Framing::Close)
}

/// An error answered without the app, with the headers every answer carries.
pub fn layer_error(shared: &Shared, req: &Request, err: &ApiError) -> Response {
    let mut response = Response::error(err);
    stamp(
        &mut response,
        shared.request_ids.for_request(req.request_id.as_deref()),
    );
    response
}

fn to_request(head: &Head, peer: IpAddr) -> Request {
    Request {
        method: head.method.clone(),
        target: head.target.clone(),
        authorization: head.authorization.clone(),
        request_id: head.request_id.clone(),
        if_none_match: head.if_none_match.clone(),
        accept: head.accept.clone(),
        client: Some(client_address(peer, head.real_ip.as_deref())),
        header_bytes: head.header_bytes,
    }
}

/// The client to rate-limit without a key: the peer, or, when the peer is the
/// nginx front on this machine, the address it passes in X-Real-IP.
fn client_address(peer: IpAddr, real_ip: Option<&str>) -> IpAddr {
    match real_ip.and_then(|v| v.trim().parse::<IpAddr>().ok()) {
        Some(real) if peer.is_loopback() => real,
        _ => peer,
    }
}

fn access_line(shared: &Shared, req: &Request, response: &Response, started: Instant) {
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    log_line(
        shared,
        &req.method,
        &http::loggable_target(&req.target),
        response,
        ms,
    );
}

fn log_line(shared: &Shared, method: &str, target: &str, response: &Response, ms: f64) {
    shared.log.send(format!(
        "{method} {target} {} {ms:.2}ms {}",
        response.status,
        response.header("X-Request-Id").unwrap_or("-"),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x_real_ip_is_trusted_only_from_a_loopback_peer() {
        let front: IpAddr = "127.0.0.1".parse().unwrap();
        let remote: IpAddr = "198.51.100.7".parse().unwrap();
        let named = Some("203.0.113.5");
        let real: IpAddr = "203.0.113.5".parse().unwrap();
        assert_eq!(client_address(front, named), real);
        assert_eq!(client_address("::1".parse().unwrap(), named), real);
        // A client on the internet cannot pick its own rate-limit bucket.
        assert_eq!(client_address(remote, named), remote);
        assert_eq!(client_address(front, Some("nonsense")), front);
        assert_eq!(client_address(front, None), front);
    }
}
