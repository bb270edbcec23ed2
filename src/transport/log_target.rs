//! The request target and method as the access log prints them
//! (docs/http-layer.md, "The access log"): what looks like a secret is
//! redacted first, then what is left is cut to a bound, with a mark saying how
//! many bytes were left out, so that no request writes a long line. Names and
//! values are compared form-decoded, as the app reads them. Each target is
//! read in a bounded number of passes, each linear in its length; the common
//! one, short with nothing to redact, is printed as it came, allocating
//! nothing.

use std::borrow::Cow;
use std::fmt::Write;

/// Bytes of a redacted target the log prints at most.
pub const LOGGED_TARGET_BYTES: usize = 1024;
/// Bytes of a method the log prints at most: every method the API answers is
/// far shorter.
pub const LOGGED_METHOD_BYTES: usize = 32;

const REDACTED: &str = "[redacted]";

/// The target for the log: path segments and query names or values that
/// hold a key's start (`ask_`) redacted, and the values of parameters named like a
/// credential (`key`, `token`, `auth` anywhere in the name); then cut to
/// `LOGGED_TARGET_BYTES` on a char boundary, with ` +N bytes` after it when N
/// bytes were left out. A control character is printed as `?`.
pub fn loggable_target(target: &str) -> Cow<'_, str> {
    let plain = target.len() <= LOGGED_TARGET_BYTES
        && !target.contains(char::is_control)
        && !pieces(target, |_| {});
    if plain {
        return Cow::Borrowed(target);
    }
    let mut cut = Cut::new(LOGGED_TARGET_BYTES);
    pieces(target, |piece| cut.push(piece));
    Cow::Owned(cut.finish())
}

/// The method for the log, cut as a target is, to `LOGGED_METHOD_BYTES`.
pub fn loggable_method(method: &str) -> Cow<'_, str> {
    if method.len() <= LOGGED_METHOD_BYTES && !method.contains(char::is_control) {
        return Cow::Borrowed(method);
    }
    let mut cut = Cut::new(LOGGED_METHOD_BYTES);
    cut.push(method);
    Cow::Owned(cut.finish())
}

/// Calls `emit` with the target's pieces in order, each a slice of it or
/// `REDACTED`, and says whether any was redacted.
fn pieces<'a>(target: &'a str, mut emit: impl FnMut(&'a str)) -> bool {
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (target, None),
    };
    let mut redacted = false;
    for (i, segment) in path.split('/').enumerate() {
        if i > 0 {
            emit("/");
        }
        if holds_a_key(segment) {
            redacted = true;
            emit(REDACTED);
        } else {
            emit(segment);
        }
    }
    let Some(query) = query else {
        return redacted;
    };
    emit("?");
    for (i, pair) in query.split('&').enumerate() {
        if i > 0 {
            emit("&");
        }
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if holds_a_key(name) {
            redacted = true;
            emit(REDACTED);
        } else if names_a_credential(name) || holds_a_key(value) {
            redacted = true;
            emit(name);
            emit("=");
            emit(REDACTED);
        } else {
            emit(pair);
        }
    }
    redacted
}

/// Whether a name, as sent or decoded, holds `key`, `token` or `auth`, in
/// any case.
fn names_a_credential(name: &str) -> bool {
    holds(name, |tail| {
        [&b"key"[..], b"token", b"auth"]
            .iter()
            .any(|word| tail.ends_with(word))
    })
}

/// Whether a text, as sent or decoded, holds `ask_` (in any case), as every
/// key starts. Anywhere in the text: a word such as `task_` is redacted too,
/// so that a key sent inside other text is never printed.
fn holds_a_key(text: &str) -> bool {
    holds(text, |tail| tail.ends_with(b"ask_"))
}

/// Whether `found` holds at some byte of `text`, read as sent, then decoded.
fn holds(text: &str, found: impl Fn(&Tail) -> bool) -> bool {
    holds_in(text.bytes(), &found) || (text.contains(['%', '+']) && holds_in(decoded(text), &found))
}

fn holds_in(mut bytes: impl Iterator<Item = u8>, found: &impl Fn(&Tail) -> bool) -> bool {
    let mut tail = Tail::default();
    bytes.any(|b| {
        tail.push(b);
        found(&tail)
    })
}

/// The bytes `raw` stands for once form-decoded: `+` a space, `%XX` its
/// byte. A `%` that starts no escape stays itself (the app refuses it).
fn decoded(raw: &str) -> impl Iterator<Item = u8> + '_ {
    let bytes = raw.as_bytes();
    let hex = |i: usize| bytes.get(i).and_then(|&b| (b as char).to_digit(16));
    let mut i = 0;
    std::iter::from_fn(move || {
        let b = *bytes.get(i)?;
        i += 1;
        Some(match (b, hex(i), hex(i + 1)) {
            (b'+', _, _) => b' ',
            (b'%', Some(hi), Some(lo)) => {
                i += 2;
                (hi << 4 | lo) as u8
            }
            _ => b,
        })
    })
}

/// The last five bytes of a text read byte by byte, in lower case: enough to
/// find the short words above without holding the text.
#[derive(Default)]
struct Tail {
    bytes: [u8; 5],
    /// Bytes pushed so far.
    seen: usize,
}

impl Tail {
    fn push(&mut self, b: u8) {
        self.bytes.copy_within(1.., 0);
        self.bytes[4] = b.to_ascii_lowercase();
        self.seen += 1;
    }

    fn ends_with(&self, word: &[u8]) -> bool {
        self.seen >= word.len() && self.bytes.ends_with(word)
    }
}

/// The first `limit` bytes of the pieces pushed, and a count of the rest.
struct Cut {
    out: String,
    limit: usize,
    left_out: usize,
}

impl Cut {
    fn new(limit: usize) -> Cut {
        Cut {
            out: String::with_capacity(limit + 16),
            limit,
            left_out: 0,
        }
    }

    /// Keeps what fits of `piece`, each control character in it as `?`.
    fn push(&mut self, piece: &str) {
        let mut rest = piece;
        while let Some((i, c)) = rest.char_indices().find(|(_, c)| c.is_control()) {
            self.keep(&rest[..i]);
            self.keep("?");
            rest = &rest[i + c.len_utf8()..];
        }
        self.keep(rest);
    }

    /// Keeps what fits of `piece` as it is; once anything is left out, nothing after
    /// it is kept, so that what is printed is the start of the whole.
    fn keep(&mut self, piece: &str) {
        let room = if self.left_out > 0 {
            0
        } else {
            self.limit - self.out.len()
        };
        let mut end = room.min(piece.len());
        while !piece.is_char_boundary(end) {
            end -= 1;
        }
        self.out.push_str(&piece[..end]);
        self.left_out += piece.len() - end;
    }

    fn finish(mut self) -> String {
        if self.left_out > 0 {
            let _ = write!(self.out, " +{} bytes", self.left_out);
        }
        self.out
    }
}

#[cfg(test)]
#[path = "log_target_tests.rs"]
mod tests;
