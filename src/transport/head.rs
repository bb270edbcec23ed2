//! A request head from the bytes a connection has received: httparse reads
//! the syntax, and this decides what the API makes of it (docs/api.md, "Errors";
//! docs/http-layer.md). Pure: no socket, so the property tests feed it anything.

use crate::error::ApiError;

use super::limits::{MAX_HEAD_BYTES, MAX_HEADER_LINES};

/// The parts of a request head the layer and the app read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Head {
    pub method: String,
    /// The target as a path and query (an absolute-form target loses its
    /// scheme and authority).
    pub target: String,
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    pub minor: u8,
    /// None for a header absent, or one whose value is not ASCII.
    pub authorization: Option<String>,
    pub request_id: Option<String>,
    pub if_none_match: Option<String>,
    pub accept: Option<String>,
    pub accept_encoding: Option<String>,
    pub real_ip: Option<String>,
    /// Whether the connection stays open after the answer.
    pub keep_alive: bool,
    /// Bytes of the header lines, counted as docs/api.md, "Errors", says.
    pub header_bytes: usize,
}

#[derive(Debug, PartialEq)]
pub enum Parsed {
    /// More bytes are needed.
    Partial,
    /// A head, and how many bytes of the buffer it took.
    Complete(Box<Head>, usize),
    /// Answered with this error, then the connection closes.
    Refused(ApiError),
}

/// Reads the head at the start of `buf`.
pub fn parse(buf: &[u8]) -> Parsed {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADER_LINES];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(buf) {
        Ok(httparse::Status::Complete(len)) => match check(&req) {
            Ok(head) => Parsed::Complete(Box::new(head), len),
            Err(e) => Parsed::Refused(e),
        },
        Ok(httparse::Status::Partial) if buf.len() >= MAX_HEAD_BYTES => {
            Parsed::Refused(too_long(buf))
        }
        Ok(httparse::Status::Partial) => Parsed::Partial,
        Err(httparse::Error::TooManyHeaders) => Parsed::Refused(ApiError::HeadersTooLarge),
        Err(httparse::Error::Version) => Parsed::Refused(version_error(buf)),
        Err(_) => Parsed::Refused(ApiError::BadRequest),
    }
}

/// A head that fills the buffer without ending: its request line, or its
/// header lines, are over the limit.
fn too_long(buf: &[u8]) -> ApiError {
    if buf.windows(2).any(|w| w == b"\r\n") || buf.contains(&b'\n') {
        ApiError::HeadersTooLarge
    } else {
        ApiError::UriTooLong
    }
}

/// httparse calls any version it does not take an error, `HTTP/2.0` and
/// garbage alike: a well-formed `HTTP/d.d` is a version we do not speak.
fn version_error(buf: &[u8]) -> ApiError {
    let line = buf.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let version = line.rsplit(|&b| b == b' ').next().unwrap_or_default();
    match version {
        [b'H', b'T', b'T', b'P', b'/', major, b'.', minor]
            if major.is_ascii_digit() && minor.is_ascii_digit() =>
        {
            ApiError::HttpVersionNotSupported
        }
        _ => ApiError::BadRequest,
    }
}

fn check(req: &httparse::Request) -> Result<Head, ApiError> {
    let method = req.method.ok_or(ApiError::BadRequest)?;
    let target = req.path.ok_or(ApiError::BadRequest)?;
    // A fold without a short cut, which the compiler makes one vector loop:
    // a target is up to 8 KiB, and well-formed ones are read to the end.
    if !target.bytes().fold(true, |ok, b| ok & b.is_ascii_graphic()) {
        return Err(ApiError::BadRequest);
    }
    let minor = req.version.ok_or(ApiError::BadRequest)?;
    let mut head = Head {
        method: method.to_string(),
        target: origin_form(target),
        minor,
        ..Head::default()
    };
    let (mut lengths, mut chunked, mut close, mut keep) = (Vec::new(), false, false, false);
    let mut authorizations = 0;
    for h in req.headers.iter() {
        if !h.name.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(ApiError::BadRequest);
        }
        head.header_bytes += h.name.len() + h.value.len() + 4;
        // A value with a byte outside ASCII counts as absent.
        let value = std::str::from_utf8(h.value)
            .ok()
            .filter(|v| v.is_ascii())
            .map(str::trim);
        let kept = || value.map(str::to_string);
        let mut lower = [0u8; NAME_ROOM];
        match lowercase(h.name, &mut lower) {
            "authorization" => {
                authorizations += 1;
                head.authorization = kept();
            }
            "x-request-id" => head.request_id = kept(),
            "if-none-match" => head.if_none_match = kept(),
            "accept" => head.accept = kept(),
            "accept-encoding" => head.accept_encoding = kept(),
            "x-real-ip" => head.real_ip = kept(),
            "content-length" => lengths.push(value.unwrap_or_default()),
            "transfer-encoding" => chunked = true,
            "expect" if !value.is_some_and(|v| v.eq_ignore_ascii_case("100-continue")) => {
                return Err(ApiError::ExpectationFailed);
            }
            "connection" => {
                for token in value.unwrap_or_default().split(',') {
                    let token = token.trim();
                    close |= token.eq_ignore_ascii_case("close");
                    keep |= token.eq_ignore_ascii_case("keep-alive");
                }
            }
            _ => {}
        }
    }
    // Content-Length is 1*DIGIT (RFC 9110, section 8.6): anything else,
    // a sign included, leaves the framing unknown (RFC 9112, section 6.3).
    if authorizations > 1 || !lengths.iter().all(|v| is_digits(v)) {
        return Err(ApiError::BadRequest);
    }
    let no_body = lengths.is_empty() || (lengths.len() == 1 && lengths[0].parse() == Ok(0u64));
    if chunked || !no_body {
        return Err(ApiError::BodyNotAllowed);
    }
    head.keep_alive = !close && (minor == 1 || keep);
    Ok(head)
}

/// Room for the longest header name the layer reads (`transfer-encoding`),
/// with some to spare.
const NAME_ROOM: usize = 24;

/// `name` in lower case, in `room`; "" for a name longer than any the layer
/// reads. Names are tokens (httparse checks), so ASCII. No allocation: this
/// runs for every header line of every request.
fn lowercase<'a>(name: &str, room: &'a mut [u8; NAME_ROOM]) -> &'a str {
    let Some(out) = room.get_mut(..name.len()) else {
        return "";
    };
    out.copy_from_slice(name.as_bytes());
    out.make_ascii_lowercase();
    std::str::from_utf8(out).unwrap_or("")
}

/// One or more ASCII digits, and nothing else.
fn is_digits(value: &str) -> bool {
    !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit())
}

/// `http://host/path?q` is taken as `/path?q`, and `http://host?q` as `/?q`:
/// an empty path is `/` (RFC 9112, section 3.2.2; RFC 3986, section 6.2.3).
fn origin_form(target: &str) -> String {
    let lower = target.get(..8).unwrap_or(target).to_ascii_lowercase();
    let rest = if lower.starts_with("http://") {
        &target[7..]
    } else if lower.starts_with("https://") {
        &target[8..]
    } else {
        return target.to_string();
    };
    match rest.find(['/', '?']) {
        Some(i) if rest.as_bytes()[i] == b'/' => rest[i..].to_string(),
        Some(i) => format!("/{}", &rest[i..]),
        None => "/".to_string(),
    }
}

#[cfg(test)]
#[path = "head_tests.rs"]
mod tests;
