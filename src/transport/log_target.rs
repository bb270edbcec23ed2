//! The request target and method as the access log prints them
//! (docs/http-layer.md, "The access log"): what looks like a secret is
//! redacted first, then what is left is cut to a bound, with a mark saying how
//! many bytes of the target as sent were left out, so that no request writes a
//! long line. Names and values are compared form-decoded, as the app reads
//! them. Only what the log would show is read (and a key's length past it),
//! then, where that holds anything to redact, the pieces up to the cut, so a
//! target costs at most the bound's worth of work plus one piece, however
//! long it is; a short one with nothing to redact is printed as it came,
//! allocating nothing.

use std::borrow::Cow;
use std::fmt::Write;
use std::ops::ControlFlow;

/// Bytes of a redacted target the log prints at most.
pub const LOGGED_TARGET_BYTES: usize = 1024;
/// Bytes of a method the log prints at most: every method the API answers is
/// far shorter.
pub const LOGGED_METHOD_BYTES: usize = 32;

const REDACTED: &str = "[redacted]";
/// A redacted value, shown after its name, `=` or not.
const EQUALS_REDACTED: &str = "=[redacted]";

/// The target for the log: path segments and query names or values that
/// hold a key's start (`ask_`) redacted, and the values of parameters named like a
/// credential (`key`, `token`, `auth` anywhere in the name); then cut to
/// `LOGGED_TARGET_BYTES` on a char boundary, with ` +N bytes` after it when N
/// bytes of the target as sent were left out. A control character is printed as `?`.
pub fn loggable_target(target: &str) -> Cow<'_, str> {
    if !may_hold_a_secret(target) {
        return cut_plain(target);
    }
    let mut cut = Cut::new(LOGGED_TARGET_BYTES);
    let _ = pieces(target, |piece| cut.push(piece));
    Cow::Owned(cut.finish(target.len()))
}

/// Bytes past the cut that are read for what starts before it: more than a
/// key (`ask_` and 48 hex digits) takes.
const PAST_THE_CUT: usize = 64;

/// Whether what the log would show of `target` may hold something to
/// redact or replace: an escape or `+` (whose decoding may), a control or
/// non-ASCII byte, or one of the words redaction looks for. A secret that
/// would be shown starts before the cut, and the name before a credential's
/// value ends before it, so the bytes up to a key's length past the cut
/// are enough; the usual target, with none of these, is cut as it came.
fn may_hold_a_secret(target: &str) -> bool {
    let mut end = target.len().min(LOGGED_TARGET_BYTES + PAST_THE_CUT);
    while !target.is_char_boundary(end) {
        end -= 1;
    }
    let read = &target.as_bytes()[..end];
    read.iter()
        .any(|&b| matches!(b, b'%' | b'+') || !(b' '..=b'~').contains(&b))
        || ["ask_", "key", "token", "auth"]
            .iter()
            .any(|word| holds_word(read, word.as_bytes()))
}

/// A target with nothing to redact, cut to `LOGGED_TARGET_BYTES` with its mark.
fn cut_plain(target: &str) -> Cow<'_, str> {
    if target.len() <= LOGGED_TARGET_BYTES {
        return Cow::Borrowed(target);
    }
    let mut end = LOGGED_TARGET_BYTES;
    while !target.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{} +{} bytes", &target[..end], target.len() - end))
}

/// The method for the log, cut as a target is, to `LOGGED_METHOD_BYTES`.
pub fn loggable_method(method: &str) -> Cow<'_, str> {
    if method.len() <= LOGGED_METHOD_BYTES && !method.contains(char::is_control) {
        return Cow::Borrowed(method);
    }
    let mut cut = Cut::new(LOGGED_METHOD_BYTES);
    let _ = cut.push(Piece::sent(method));
    Cow::Owned(cut.finish(method.len()))
}

/// A piece of the target as the log shows it: a slice of it, or `REDACTED`
/// standing for `sent` bytes of it.
#[derive(Clone, Copy)]
struct Piece<'a> {
    shown: &'a str,
    sent: usize,
    redacted: bool,
}

impl<'a> Piece<'a> {
    fn sent(text: &'a str) -> Piece<'a> {
        Piece {
            shown: text,
            sent: text.len(),
            redacted: false,
        }
    }

    /// `shown` in place of `sent` bytes of the target.
    fn redacted(shown: &'a str, sent: usize) -> Piece<'a> {
        Piece {
            shown,
            sent,
            redacted: true,
        }
    }
}

/// Calls `emit` with the target's pieces in order, until it breaks.
fn pieces<'a>(
    target: &'a str,
    mut emit: impl FnMut(Piece<'a>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (target, None),
    };
    for (i, segment) in path.split('/').enumerate() {
        if i > 0 {
            emit(Piece::sent("/"))?;
        }
        emit(if holds_a_key(segment) {
            Piece::redacted(REDACTED, segment.len())
        } else {
            Piece::sent(segment)
        })?;
    }
    let Some(query) = query else {
        return ControlFlow::Continue(());
    };
    emit(Piece::sent("?"))?;
    for (i, pair) in query.split('&').enumerate() {
        if i > 0 {
            emit(Piece::sent("&"))?;
        }
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if holds_a_key(name) {
            emit(Piece::redacted(REDACTED, pair.len()))?;
        } else if names_a_credential(name) || holds_a_key(value) {
            emit(Piece::sent(name))?;
            emit(Piece::redacted(EQUALS_REDACTED, pair.len() - name.len()))?;
        } else {
            emit(Piece::sent(pair))?;
        }
    }
    ControlFlow::Continue(())
}

/// Whether a name, as sent or decoded, holds `key`, `token` or `auth`, in
/// any case.
fn names_a_credential(name: &str) -> bool {
    holds(name, |bytes| {
        ["key", "token", "auth"]
            .iter()
            .any(|word| holds_word(bytes, word.as_bytes()))
    })
}

/// Whether a text, as sent or decoded, holds `ask_` (in any case), as every
/// key starts. Anywhere in the text: a word such as `task_` is redacted too,
/// so that a key sent inside other text is never printed.
fn holds_a_key(text: &str) -> bool {
    holds(text, |bytes| holds_word(bytes, b"ask_"))
}

fn holds_word(bytes: &[u8], word: &[u8]) -> bool {
    bytes
        .windows(word.len())
        .any(|w| w.eq_ignore_ascii_case(word))
}

/// Whether `found` holds of `text` as sent, or once decoded.
fn holds(text: &str, found: impl Fn(&[u8]) -> bool) -> bool {
    found(text.as_bytes()) || (text.contains(['%', '+']) && found(&decoded(text)))
}

/// The bytes `raw` stands for once form-decoded: `+` a space, `%XX` its
/// byte. A `%` that starts no escape stays itself (the app refuses it).
fn decoded(raw: &str) -> Vec<u8> {
    let bytes = raw.as_bytes();
    let hex = |i: usize| bytes.get(i).and_then(|&b| (b as char).to_digit(16));
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        out.push(match (b, hex(i), hex(i + 1)) {
            (b'+', _, _) => b' ',
            (b'%', Some(hi), Some(lo)) => {
                i += 2;
                (hi << 4 | lo) as u8
            }
            _ => b,
        });
    }
    out
}

/// The first `limit` bytes of the pieces pushed, and how many bytes as sent
/// they stand for.
struct Cut {
    out: String,
    limit: usize,
    covered: usize,
}

impl Cut {
    fn new(limit: usize) -> Cut {
        Cut {
            out: String::with_capacity(limit + 16),
            limit,
            covered: 0,
        }
    }

    /// Keeps what fits of `piece`, each control character in it as `?`; a
    /// redaction is kept whole or not at all. Breaks once something did not
    /// fit, so that what is printed is the start of the whole.
    fn push(&mut self, piece: Piece) -> ControlFlow<()> {
        let room = self.limit - self.out.len();
        if piece.redacted {
            if piece.shown.len() > room {
                return ControlFlow::Break(());
            }
            self.out.push_str(piece.shown);
            self.covered += piece.sent;
            return ControlFlow::Continue(());
        }
        if piece.shown.bytes().all(|b| (b' '..=b'~').contains(&b)) {
            // Printable ASCII, the usual target: kept as one slice.
            let kept = room.min(piece.shown.len());
            self.out.push_str(&piece.shown[..kept]);
            self.covered += kept;
            return if kept < piece.shown.len() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            };
        }
        for c in piece.shown.chars() {
            let shown = if c.is_control() { '?' } else { c };
            if self.out.len() + shown.len_utf8() > self.limit {
                return ControlFlow::Break(());
            }
            self.out.push(shown);
            self.covered += c.len_utf8();
        }
        ControlFlow::Continue(())
    }

    /// The text kept, with ` +N bytes` when N of the `sent` bytes are not
    /// shown.
    fn finish(mut self, sent: usize) -> String {
        let left_out = sent - self.covered;
        if left_out > 0 {
            let _ = write!(self.out, " +{left_out} bytes");
        }
        self.out
    }
}

#[cfg(test)]
#[path = "log_target_tests.rs"]
mod tests;
