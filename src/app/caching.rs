//! Validators and content coding of a successful answer: a strong ETag for
//! each representation (one per coding, app/encoding.rs), 304 when the client
//! holds the one it would get, `Cache-Control` and `Vary`, and the body in the
//! coding the client prefers (app/gzip.rs makes the gzip).

use std::sync::OnceLock;

use super::encoding::Coding;
use super::gzip;
use crate::transport::{Request, Response, Stream};

/// How long a client may keep a successful API answer, for itself alone.
pub const PRIVATE_CACHE_CONTROL: &str = "private, max-age=60";

/// Caching for a successful answer: a strong ETag of the body, a 304 without
/// body when the client already has it, and private caching for a minute
/// (answers depend on the key, hence Vary). Errors are never cached.
pub fn apply_caching(mut response: Response, req: &Request) -> Response {
    // An answer never to be kept (GET /v1/key) has no validator either.
    if response.status != 200 || response.header("Cache-Control") == Some("no-store") {
        return encode(response, req);
    }
    // A streamed answer brings its own tag (and keeps it when the export
    // found the client's copy current and made no stream); any other is
    // tagged by its body.
    let (etag, streamed) = match response.header("ETag") {
        Some(tag) => (tag.to_string(), true),
        None => (etag_of(&response.body), false),
    };
    response.headers.retain(|(name, _)| *name != "ETag");
    response
        .headers
        .push(("Cache-Control", PRIVATE_CACHE_CONTROL.into()));
    // An answer that was negotiated says so already (Vary: Authorization, Accept).
    if response.header("Vary").is_none() {
        response.headers.push(("Vary", "Authorization".into()));
    }
    let coding = if streamed {
        Coding::preferred(req.accept_encoding.as_deref())
    } else {
        Coding::of_body(req.accept_encoding.as_deref(), response.body.len())
    };
    negotiate(response, req, coding, Some(&etag), |r, c| {
        compress(r, req, c)
    })
}

/// The coding of a successful answer that has no validator, as it is never
/// kept (/metrics, /healthz, GET /v1/key).
pub fn encode(response: Response, req: &Request) -> Response {
    if response.status != 200 {
        return response;
    }
    let coding = Coding::of_body(req.accept_encoding.as_deref(), response.body.len());
    negotiate(response, req, coding, None, |r, c| compress(r, req, c))
}

/// A body fixed for the process's life (a page's file, the OpenAPI
/// document): tagged once, and gzipped once, when first asked for in gzip.
pub struct Kept {
    body: &'static [u8],
    etag: String,
    gzipped: OnceLock<Option<Vec<u8>>>,
}

impl Kept {
    pub fn new(body: &'static [u8]) -> Kept {
        Kept {
            body,
            etag: etag_of(body),
            gzipped: OnceLock::new(),
        }
    }

    #[cfg(test)]
    pub fn body(&self) -> &'static [u8] {
        self.body
    }

    /// The identity representation's tag.
    #[cfg(test)]
    pub fn etag(&self) -> &str {
        &self.etag
    }

    /// `response` (its status and headers) with this body in the coding the
    /// client prefers, and its tag; 304 when the client holds it.
    pub fn answer(&self, response: Response, req: &Request) -> Response {
        let coding = Coding::of_body(req.accept_encoding.as_deref(), self.body.len());
        negotiate(response, req, coding, Some(&self.etag), |r, coding| {
            if coding == Coding::Gzip {
                let gzipped = self.gzipped.get_or_init(|| gzip::gzip_kept(self.body));
                if let Some(bytes) = gzipped {
                    r.body = bytes.clone();
                    return Coding::Gzip;
                }
            }
            r.body = self.body.to_vec();
            Coding::Identity
        })
    }
}

/// Vary, the ETag of `coding` and the 304 when the client holds it, else the
/// body in `coding` by `make`, which gives the coding it made (identity when
/// gzip failed).
fn negotiate(
    mut response: Response,
    req: &Request,
    coding: Coding,
    etag: Option<&str>,
    make: impl FnOnce(&mut Response, Coding) -> Coding,
) -> Response {
    match response.headers.iter_mut().find(|(n, _)| *n == "Vary") {
        Some((_, vary)) => vary.push_str(", Accept-Encoding"),
        None => response.headers.push(("Vary", "Accept-Encoding".into())),
    }
    if let Some(etag) = etag {
        let tag = coding.tag(etag);
        let held = req.if_none_match.as_deref();
        if held.is_some_and(|header| etag_matches(header, &tag)) {
            response.status = 304;
            response.body.clear();
            response.stream = None;
            response.headers.retain(|(name, _)| *name != "Content-Type");
            response.headers.push(("ETag", tag));
            return response;
        }
    }
    let made = make(&mut response, coding);
    if let Some(etag) = etag {
        response.headers.push(("ETag", made.tag(etag)));
    }
    if made == Coding::Gzip {
        response
            .headers
            .push(("Content-Encoding", made.name().into()));
    }
    response
}

/// The answer's own body in `coding`: in gzip, a stream as it is read (HEAD
/// reads none, so its stream is left as it is), a whole body at once.
fn compress(response: &mut Response, req: &Request, coding: Coding) -> Coding {
    if coding == Coding::Identity {
        return Coding::Identity;
    }
    if let Some(Stream(body)) = response.stream.take() {
        let body = if req.method == "HEAD" {
            body
        } else {
            gzip::gzip_stream(body)
        };
        response.stream = Some(Stream(body));
        return Coding::Gzip;
    }
    match gzip::gzip(&response.body) {
        Some(bytes) => {
            response.body = bytes;
            Coding::Gzip
        }
        None => Coding::Identity,
    }
}

/// Whether an If-None-Match header names `etag` (or is `*`); a weak
/// validator (`W/"..."`) matches its strong twin, as RFC 9110's weak
/// comparison for If-None-Match says.
pub fn etag_matches(if_none_match: &str, etag: &str) -> bool {
    if_none_match
        .split(',')
        .map(str::trim)
        .any(|t| t == "*" || t.trim_start_matches("W/") == etag)
}

/// A strong ETag: the quoted digest of `bytes`.
pub fn etag_of(bytes: &[u8]) -> String {
    format!("\"{:016x}\"", fingerprint(bytes))
}

/// A 64-bit digest of the body, eight bytes a step. Each step is a bijection
/// of the state for a given word (xor, multiply by an odd constant, rotate),
/// so two bodies of one length that differ in a single word never share a tag,
/// and other collisions are as unlikely as in any 64-bit hash. Byte-at-a-time
/// FNV-1a cost 4-5 cycles a byte: a 15 KB history answer spent 4% of its CPU
/// here (perf, bench/PROFILE.md).
fn fingerprint(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let step = |h: u64, word: [u8; 8]| {
        (h ^ u64::from_le_bytes(word))
            .wrapping_mul(K)
            .rotate_left(29)
    };
    let mut chunks = bytes.chunks_exact(8);
    let mut h = 0xcbf2_9ce4_8422_2325 ^ bytes.len() as u64;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        h = step(h, word);
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = step(h, last);
    // Spread the last step's bits over the whole tag.
    (h ^ (h >> 32)).wrapping_mul(K) ^ (h >> 29)
}

#[cfg(test)]
#[path = "caching_tests.rs"]
mod tests;
