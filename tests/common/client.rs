//! The one raw HTTP/1.1 client of the end-to-end tests, over `TcpStream`.
//!
//! Raw on purpose: the request target, the method and every header go out
//! byte for byte, so tests can send what a client library would normalise or
//! refuse (invalid percent-escapes, `+`, non-ASCII bytes, odd methods, bare CR
//! or LF inside a header value). Every request says `Connection: close`, so a
//! reply is everything read until the server closes the connection.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use serde_json::Value;

/// One parsed response.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    /// Header names and values as received, in order.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked when the server used chunked transfer encoding.
    pub body: Vec<u8>,
    /// The status line and headers exactly as received, for tests that look
    /// for things that must never appear on the wire.
    pub head: Vec<u8>,
}

impl Reply {
    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn header_count(&self, name: &str) -> usize {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .count()
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON; panics with the body shown when it is not JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}); status {}: {}",
                self.status,
                self.text()
            )
        })
    }

    /// The error code of an API error body.
    pub fn code(&self) -> String {
        self.json()["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .into()
    }

    /// The API's error shape with this status and code, whatever the param.
    pub fn assert_error(&self, status: u16, code: &str) {
        super::assert::assert_error_shape(self, status, code);
    }
}

/// Writes a request from its parts, byte for byte, always with
/// `Host: test` and `Connection: close`.
pub fn request(method: &str, target: &[u8], headers: &[(&str, &[u8])]) -> Vec<u8> {
    let mut request = Vec::new();
    request.extend_from_slice(method.as_bytes());
    request.push(b' ');
    request.extend_from_slice(target);
    request.extend_from_slice(b" HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.extend_from_slice(name.as_bytes());
        request.extend_from_slice(b": ");
        request.extend_from_slice(value);
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"\r\n");
    request
}

/// A GET request with header lines given whole ("Name: value", without
/// CRLF; a line starting with a space continues the previous one).
pub fn get_request(target: &str, lines: &[String]) -> Vec<u8> {
    let headers: Vec<(&str, &[u8])> = lines
        .iter()
        .map(|line| {
            let (name, value) = line
                .split_once(": ")
                .unwrap_or_else(|| panic!("a header line: {line:?}"));
            (name, value.as_bytes())
        })
        .collect();
    request("GET", target.as_bytes(), &headers)
}

/// Writes `request` as is and reads until the server closes the connection.
pub fn exchange_raw(addr: SocketAddr, request: &[u8]) -> io::Result<Vec<u8>> {
    let mut stream = TcpStream::connect(addr)?;
    // A hung server fails the test instead of hanging the suite.
    stream.set_read_timeout(Some(Duration::from_secs(20)))?;
    stream.write_all(request)?;
    let mut out = Vec::new();
    stream.read_to_end(&mut out)?;
    Ok(out)
}

/// Writes a GET `request` as is and parses the answer; an answer that does
/// not parse is an error too.
pub fn exchange(addr: SocketAddr, request: &[u8]) -> io::Result<Reply> {
    let raw = exchange_raw(addr, request)?;
    parse(&raw, false).map_err(|e| io::Error::other(format!("{e}: {raw:?}")))
}

/// Builds a request from its parts, byte for byte, and sends it.
pub fn send(addr: SocketAddr, method: &str, target: &[u8], headers: &[(&str, &[u8])]) -> Reply {
    let raw = exchange_raw(addr, &request(method, target, headers)).unwrap_or_else(|e| {
        panic!(
            "{method} {}: no reply: {e}",
            String::from_utf8_lossy(target)
        )
    });
    parse(&raw, method == "HEAD").unwrap_or_else(|why| {
        panic!(
            "unreadable reply ({why}): {:?}",
            String::from_utf8_lossy(&raw)
        )
    })
}

/// GET with an optional API key; panics when there is no answer.
pub fn get(addr: SocketAddr, target: &str, key: Option<&str>) -> Reply {
    let lines: Vec<String> = key
        .map(|k| format!("Authorization: Bearer {k}"))
        .into_iter()
        .collect();
    exchange(addr, &get_request(target, &lines))
        .unwrap_or_else(|e| panic!("GET {target}: no answer: {e}"))
}

/// Parses a whole response. `head_only` is for answers to HEAD, which carry
/// Content-Length but no body; 204 and 304 carry no body either.
pub fn parse(raw: &[u8], head_only: bool) -> Result<Reply, String> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no end of headers")?;
    let head = &raw[..end];
    let rest = &raw[end + 4..];
    let text = std::str::from_utf8(head).map_err(|_| "head is not UTF-8")?;
    let mut lines = text.split("\r\n");
    let status_line = lines.next().ok_or("no status line")?;
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad status line {status_line:?}"))?;
    let mut headers = Vec::new();
    for line in lines {
        let (name, value) = line.split_once(':').ok_or("header without a colon")?;
        headers.push((name.to_string(), value.trim().to_string()));
    }
    let mut reply = Reply {
        status,
        headers,
        body: Vec::new(),
        head: head.to_vec(),
    };
    if head_only || status == 204 || status == 304 {
        if !rest.is_empty() {
            return Err(format!(
                "a {status} answer carried {} body bytes",
                rest.len()
            ));
        }
        return Ok(reply);
    }
    reply.body = if reply
        .header("Transfer-Encoding")
        .is_some_and(|te| te.eq_ignore_ascii_case("chunked"))
    {
        dechunk(rest)?
    } else {
        let length: usize = reply
            .header("Content-Length")
            .ok_or("neither Content-Length nor chunked")?
            .parse()
            .map_err(|_| "bad Content-Length")?;
        if rest.len() != length {
            return Err(format!("Content-Length {length} but {} bytes", rest.len()));
        }
        rest.to_vec()
    };
    Ok(reply)
}

fn dechunk(mut data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let line_end = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("chunk size line not ended")?;
        let size_text = std::str::from_utf8(&data[..line_end]).map_err(|_| "chunk size")?;
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| format!("bad chunk size {size_text:?}"))?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        if data.len() < size + 2 {
            return Err("chunk shorter than its size".into());
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}
