//! A `Response` (response.rs) as the bytes of an HTTP/1.1 answer: status line,
//! Date, framing, `Connection` when the connection ends or an HTTP/1.0 client
//! keeps it, then the service's headers and the body (none for HEAD, 204, 304).

use std::cell::RefCell;
use std::fmt::Write;

use super::response::Response;
use crate::dates;

/// Bytes reserved for an answer's head: the service's headers fit in it.
const HEAD_ROOM: usize = 512;

/// How the answer ends its connection, or keeps it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Framing {
    KeepAlive,
    Close,
}

/// The whole answer; `minor` is the request's HTTP/1.x version.
pub fn bytes(response: &Response, minor: u8, head_only: bool, framing: Framing) -> Vec<u8> {
    let no_body = matches!(response.status, 100..=199 | 204 | 304);
    let body = if head_only || no_body {
        0
    } else {
        response.body.len()
    };
    // One allocation for head and body: growing a head-sized buffer to a
    // page's size would copy the head and free a block each answer.
    let mut out = String::with_capacity(HEAD_ROOM + body);
    status_line(&mut out, minor, response.status);
    date_line(&mut out);
    if !no_body {
        let _ = write!(out, "Content-Length: {}\r\n", response.body.len());
    }
    match (framing, minor) {
        (Framing::Close, _) => out.push_str("Connection: close\r\n"),
        (Framing::KeepAlive, 0) => out.push_str("Connection: keep-alive\r\n"),
        _ => {}
    }
    headers(&mut out, response);
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    if body > 0 {
        bytes.extend_from_slice(&response.body);
    }
    bytes
}

/// The head of a streamed answer (the export), whose body follows in chunks
/// and whose connection then closes.
pub fn streamed_head(response: &Response) -> Vec<u8> {
    let mut out = String::with_capacity(256);
    status_line(&mut out, 1, response.status);
    date_line(&mut out);
    headers(&mut out, response);
    out.push_str("Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
    out.into_bytes()
}

fn status_line(out: &mut String, minor: u8, status: u16) {
    let _ = write!(out, "HTTP/1.{minor} {status} {}\r\n", reason(status));
}

/// Each header the app gave that cannot split the header block; one that
/// still holds a control character is dropped and logged rather than sent.
fn headers(out: &mut String, response: &Response) {
    for (name, value) in &response.headers {
        let safe_name = name.bytes().all(|b| b.is_ascii_graphic() && b != b':');
        let safe_value = value.bytes().all(|b| b == b'\t' || !b.is_ascii_control());
        if safe_name && safe_value {
            let _ = write!(out, "{name}: {value}\r\n");
        } else {
            log::error!("dropped an invalid {name} header");
        }
    }
}

thread_local! {
    /// The Date line of the current second, made once a second per thread.
    static DATE: RefCell<(i64, String)> = const { RefCell::new((i64::MIN, String::new())) };
}

fn date_line(out: &mut String) {
    let now = dates::now_unix();
    DATE.with_borrow_mut(|(second, line)| {
        if *second != now {
            *line = format!("Date: {}\r\n", dates::format_http_date(now));
            *second = now;
        }
        out.push_str(line);
    });
}

/// The reason phrase of every status the server answers.
pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        304 => "Not Modified",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        414 => "URI Too Long",
        417 => "Expectation Failed",
        426 => "Upgrade Required",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_has_its_status_date_length_and_body_and_head_has_no_body() {
        let r = Response::json(200, b"{}".to_vec());
        let text = String::from_utf8(bytes(&r, 1, false, Framing::KeepAlive)).unwrap();
        assert!(text.starts_with("HTTP/1.1 200 OK\r\nDate: "), "{text}");
        assert!(text.contains("\r\nContent-Length: 2\r\n"), "{text}");
        assert!(!text.contains("Connection"), "{text}");
        assert!(text.ends_with("\r\n\r\n{}"), "{text}");
        let head = String::from_utf8(bytes(&r, 0, true, Framing::Close)).unwrap();
        assert!(head.starts_with("HTTP/1.0 200 OK\r\n"), "{head}");
        assert!(head.contains("\r\nConnection: close\r\n"), "{head}");
        assert!(head.ends_with("\r\n\r\n"), "{head}");
        let kept = String::from_utf8(bytes(&r, 0, false, Framing::KeepAlive)).unwrap();
        assert!(kept.contains("\r\nConnection: keep-alive\r\n"), "{kept}");
    }

    #[test]
    fn a_header_that_could_split_the_head_is_dropped() {
        let mut r = Response::json(304, Vec::new());
        r.headers
            .push(("X-Request-Id", "a\r\nSet-Cookie: x".into()));
        let text = String::from_utf8(bytes(&r, 1, false, Framing::KeepAlive)).unwrap();
        assert!(!text.contains("Set-Cookie"), "{text}");
        assert!(!text.contains("Content-Length"), "{text}");
    }
}
