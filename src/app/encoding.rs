//! Content coding: which coding an answer goes in, read from the request's
//! Accept-Encoding with its q-values (RFC 9110, 12.5.3), and the ETag of each
//! coding. gzip is the one coding besides identity; identity is always
//! acceptable, so no answer is ever 406.

/// Bodies shorter than this go as they are. Measured on the seed with the
/// server's own compressor (examples/gzip_cost.rs, bench/RESULTS-gzip.md): its
/// reset alone costs 9 µs on a quiet machine (18 on a busy one) however short
/// the body, and gzip of a 0.9 KB Get Area body 14 µs (23), as much again as
/// the whole Get Area request's CPU, to save 430 bytes. Get Area's body is 0.8
/// to 1.1 KB (1,080 bytes at most on 5,000 synthetic areas), so it stays
/// below; a List page of 20 rows (3.4 KB) and of 100 (16.8 KB) are above.
pub const GZIP_MIN_BYTES: usize = 1400;

/// What an ETag ends with, inside its quotes, for the gzip coding: a tag per
/// representation (RFC 9110, 8.8.3), the identity one being the plain tag.
const GZIP_TAG_SUFFIX: &str = "-gzip";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    Identity,
    Gzip,
}

impl Coding {
    /// The coding the client prefers of those the server has. No header, or
    /// an empty one, is identity. gzip (or x-gzip, its old name) when its
    /// q-value is above 0 and at least that of identity where identity is
    /// named (an unnamed identity is only the fallback); `*` stands for a
    /// coding not named. A q-value that does not parse leaves its coding out.
    pub fn preferred(accept_encoding: Option<&str>) -> Coding {
        let Some(header) = accept_encoding else {
            return Coding::Identity;
        };
        let (mut gzip, mut identity, mut any) = (None::<u16>, None::<u16>, None::<u16>);
        for item in header.split(',') {
            let mut parts = item.split(';');
            let name = parts.next().unwrap_or("").trim();
            let Some(q) = weight(parts) else { continue };
            let slot = if name.eq_ignore_ascii_case("gzip") || name.eq_ignore_ascii_case("x-gzip") {
                &mut gzip
            } else if name.eq_ignore_ascii_case("identity") {
                &mut identity
            } else if name == "*" {
                &mut any
            } else {
                continue;
            };
            *slot = Some(slot.map_or(q, |was| was.max(q)));
        }
        let gzip = gzip.or(any).unwrap_or(0);
        let identity = identity.or(any).unwrap_or(0);
        if gzip > 0 && gzip >= identity {
            Coding::Gzip
        } else {
            Coding::Identity
        }
    }

    /// The coding of a body of `len` bytes: identity below `GZIP_MIN_BYTES`.
    pub fn of_body(accept_encoding: Option<&str>, len: usize) -> Coding {
        if len < GZIP_MIN_BYTES {
            Coding::Identity
        } else {
            Coding::preferred(accept_encoding)
        }
    }

    /// The value of Content-Encoding, and the label in /metrics.
    pub fn name(self) -> &'static str {
        match self {
            Coding::Identity => "identity",
            Coding::Gzip => "gzip",
        }
    }

    /// The ETag of this coding's representation, from the identity one's:
    /// `"abc"` in gzip is `"abc-gzip"`.
    pub fn tag(self, identity_tag: &str) -> String {
        match (self, identity_tag.strip_suffix('"')) {
            (Coding::Gzip, Some(open)) => format!("{open}{GZIP_TAG_SUFFIX}\""),
            _ => identity_tag.to_string(),
        }
    }

    /// The tags of an If-None-Match that name this coding's
    /// representations, each as its identity tag, for a handler that knows
    /// only the identity tag and the answer's coding beforehand (a streamed
    /// answer's is known: gzip whenever accepted). `*` stays.
    pub fn identity_tags(self, if_none_match: &str) -> String {
        let gzip_end = format!("{GZIP_TAG_SUFFIX}\"");
        let tags = if_none_match.split(',').map(str::trim);
        let kept: Vec<String> = tags
            .filter_map(|t| {
                let bare = t.trim_start_matches("W/");
                if bare == "*" {
                    return Some("*".to_string());
                }
                match (self, bare.strip_suffix(gzip_end.as_str())) {
                    (Coding::Gzip, Some(open)) => Some(format!("{open}\"")),
                    (Coding::Identity, None) => Some(bare.to_string()),
                    _ => None,
                }
            })
            .collect();
        kept.join(", ")
    }
}

/// q-values in thousandths (at most three decimals, RFC 9110, 12.4.2).
const QUANTA: u16 = 1000;

/// The q of an item's parameters: 1 when none is given, None when it does
/// not parse.
fn weight<'a>(params: impl Iterator<Item = &'a str>) -> Option<u16> {
    let mut q = QUANTA;
    for param in params {
        let (name, value) = param.split_once('=')?;
        if name.trim().eq_ignore_ascii_case("q") {
            q = parse_q(value.trim())?;
        }
    }
    Some(q)
}

/// `0`, `0.5`, `1`, `1.000`: thousandths, or None for anything else.
fn parse_q(text: &str) -> Option<u16> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = fraction.bytes().chain(std::iter::repeat(b'0')).take(3);
    let thousandths = digits.fold(0, |n, d| n * 10 + u16::from(d - b'0'));
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(QUANTA),
        _ => None,
    }
}

#[cfg(test)]
#[path = "encoding_tests.rs"]
mod tests;
