//! Where the layer meets what it serves: a parsed head becomes a `Request`,
//! the `Service` answers it, its `Response` becomes bytes (serialize.rs),
//! and the access log gets its line. The layer's own errors (a head
//! refused, a cap, an export it cannot stream) are finished here too, with
//! what the service says every answer carries.

use std::io::Read;
use std::net::IpAddr;
use std::time::Instant;

use super::conn::Conn;
use super::head::Head;
use super::layer::Shared;
use super::log_target::{loggable_method, loggable_target};
use super::request::Request;
use super::response::{Response, Stream};
use super::serialize::{self, Framing};
use crate::error::ApiError;

/// An export to stream: its head, then its body in chunks.
pub struct Streamed {
    pub head: Vec<u8>,
    pub body: Box<dyn Read + Send>,
}

/// What answers the requests the layer reads: the app (src/server/), or a
/// fixed answer (the layer's floor, examples/layer_floor.rs).
pub trait Service: Send + Sync + 'static {
    /// Answers a request; `metrics_only` when it came on the metrics listener.
    fn answer(&self, req: &Request, metrics_only: bool) -> Response;

    /// Adds to an answer the layer gives itself the headers every answer
    /// carries: by default its request id alone.
    fn stamp(&self, response: &mut Response, request_id: String) {
        response.headers.push(("X-Request-Id", request_id));
    }

    /// Counts a request the layer refused before it was read whole, by the
    /// status of its answer: by default not at all.
    fn count_refused(&self, _status: u16) {}
}

pub enum Reply {
    Bytes { bytes: Vec<u8>, close: bool },
    Stream(Streamed),
}

/// The answer to `head`; `last` when the server is stopping and this is the
/// last complete request received on the connection.
pub fn answer(shared: &Shared, c: &Conn, head: &Head, last: bool) -> Reply {
    let started = Instant::now();
    let client = shared
        .bounds
        .limits
        .fronts
        .client(c.peer.ip(), head.real_ip.as_deref());
    let req = to_request(head, client);
    let mut response = shared.answering.service.answer(&req, c.metrics_only);
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
            let head_bytes = serialize::streamed_head(&response);
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
        bytes: serialize::bytes(&response, head.minor, head_only, framing),
        close,
    }
}

/// The whole answer for an error the layer finds itself, with `Connection: close`.
pub fn refusal(shared: &Shared, err: &ApiError) -> Vec<u8> {
    let response = layer_error(shared, &Request::default(), err);
    shared.answering.service.count_refused(response.status);
    let line = Line {
        method: "-",
        target: "-",
        client: None,
        body_bytes: Some(response.body.len()),
    };
    log_line(shared, line, &response, 0.0);
    serialize::bytes(&response, 1, false, Framing::Close)
}

/// An error answered without the service, with the headers every answer carries.
pub fn layer_error(shared: &Shared, req: &Request, err: &ApiError) -> Response {
    let mut response = Response::error(err);
    let id = shared
        .answering
        .request_ids
        .for_request(req.request_id.as_deref());
    shared.answering.service.stamp(&mut response, id);
    response
}

fn to_request(head: &Head, client: IpAddr) -> Request {
    Request {
        method: head.method.clone(),
        target: head.target.clone(),
        authorization: head.authorization.clone(),
        request_id: head.request_id.clone(),
        if_none_match: head.if_none_match.clone(),
        accept: head.accept.clone(),
        accept_encoding: head.accept_encoding.clone(),
        client: Some(client),
        header_bytes: head.header_bytes,
    }
}

fn access_line(shared: &Shared, req: &Request, response: &Response, started: Instant) {
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let line = Line {
        method: &loggable_method(&req.method),
        target: &loggable_target(&req.target),
        client: req.client,
        body_bytes: body_bytes(response, req.method == "HEAD"),
    };
    log_line(shared, line, response, ms);
}

/// What an access line says of the request, beside the answer's status, time and id.
struct Line<'a> {
    method: &'a str,
    target: &'a str,
    client: Option<IpAddr>,
    /// None for an export, whose length is known only once it is sent.
    body_bytes: Option<usize>,
}

/// The body bytes a response sends: none to HEAD.
fn body_bytes(response: &Response, head_only: bool) -> Option<usize> {
    match (head_only, &response.stream) {
        (true, _) => Some(0),
        (false, Some(_)) => None,
        (false, None) => Some(response.body.len()),
    }
}

/// One access line (docs/operations.md, "Logs"): the fields after the
/// request id are `name=value` pairs, `-` where a value is unknown.
fn log_line(shared: &Shared, line: Line, response: &Response, ms: f64) {
    let Line {
        method,
        target,
        client,
        body_bytes,
    } = line;
    let client = Shown(client);
    let bytes = Shown(body_bytes);
    let key = Shown(response.caller.as_deref());
    shared.answering.log.send(
        response.status,
        format_args!(
            "{method} {target} {} {ms:.2}ms {} client={client} key={key} bytes={bytes}",
            response.status,
            response.header("X-Request-Id").unwrap_or("-"),
        ),
    );
}

/// A value of an access line, or `-`.
struct Shown<T>(Option<T>);

impl<T: std::fmt::Display> std::fmt::Display for Shown<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(value) => value.fmt(f),
            None => f.write_str("-"),
        }
    }
}
