//! A FeatureCollection cut into its features without being held: the
//! document's members are walked byte by byte, and each element of its
//! `features` array is cut out by tracking strings, escapes and depth alone
//! (`Cut`), then handed, its bytes and their span, to be read by serde_json
//! alone. So memory holds one feature at a time, at most one row's cap of
//! it, whatever the file's size; a longer feature is read to its end
//! without being held, as a JSON Lines line is. The members beside
//! `features` that matter are `type` and `crs`, each small and held to be
//! read; any other (`name`, `bbox`, ogr2ogr's `xy_coordinate_resolution`) is
//! skipped unheld.

use std::io::{self, BufRead};

use serde_json::Value;

use super::super::area::{Row, Span};
use super::super::{ROW_BYTES_MAX, too_long};
use super::unread;
use crate::data::boundary;

/// The most bytes a member of the collection other than `features` is
/// held in (its name, `type`, `crs`): far more than any of them takes.
const MEMBER_BYTES_MAX: usize = 64 * 1024;

const BYTE_ORDER_MARK: &[u8] = b"\xef\xbb\xbf";

const NOT_A_COLLECTION: &str = "the file is not a GeoJSON FeatureCollection \
     ({\"type\": \"FeatureCollection\", \"features\": [...]})";

/// Why the walk stopped before the document's end: the file could not be
/// read, or its structure is not a FeatureCollection's (one problem for the
/// file, after which nothing more of it can be understood).
enum Stop {
    Read(io::Error),
    Problem(String),
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Stop {
        Stop::Read(e)
    }
}

fn problem<T>(message: String) -> Result<T, Stop> {
    Err(Stop::Problem(message))
}

/// Hands each feature to `read` (its number from 1, and its bytes) and the
/// row made to `visit`, with the feature's span in the file. A problem of
/// the file's structure is a row of line 0, and ends the reading.
pub fn each_feature(
    input: impl BufRead,
    read: &mut dyn FnMut(u64, &[u8]) -> Row,
    visit: &mut dyn FnMut(Row, Span),
) -> io::Result<()> {
    let mut scanner = Scanner { input, offset: 0 };
    match walk(&mut scanner, read, visit) {
        Ok(()) => Ok(()),
        Err(Stop::Read(e)) => Err(e),
        Err(Stop::Problem(message)) => {
            visit(unread(0, message), Span::NONE);
            Ok(())
        }
    }
}

/// The document: one object whose members are walked in their order.
fn walk<R: BufRead>(
    s: &mut Scanner<R>,
    read: &mut dyn FnMut(u64, &[u8]) -> Row,
    visit: &mut dyn FnMut(Row, Span),
) -> Result<(), Stop> {
    if s.input.fill_buf()?.starts_with(BYTE_ORDER_MARK) {
        s.advance(BYTE_ORDER_MARK.len());
    }
    match s.skip_whitespace()? {
        None => return Ok(()), // no areas, which the import reports
        Some(b'{') => s.advance(1),
        Some(_) => return problem(format!("{NOT_A_COLLECTION}: it does not open with '{{'")),
    }
    let mut held = Vec::new();
    let (mut typed, mut features) = (false, false);
    let mut first = true;
    loop {
        match s.skip_whitespace()? {
            Some(b'"') => {}
            Some(b'}') if first => {
                s.advance(1);
                break;
            }
            _ => {
                return problem(format!(
                    "{NOT_A_COLLECTION}: expected a member's name at byte {}",
                    s.offset
                ));
            }
        }
        first = false;
        let name = s.small_value(&mut held)?;
        let Value::String(name) = name else {
            unreachable!("a value opened by '\"' is a string")
        };
        if s.skip_whitespace()? != Some(b':') {
            return problem(format!(
                "{NOT_A_COLLECTION}: expected ':' after the member name \"{name}\" at byte {}",
                s.offset
            ));
        }
        s.advance(1);
        s.skip_whitespace()?;
        match name.as_str() {
            "features" => {
                features = true;
                walk_features(s, &mut held, read, visit)?;
            }
            "type" => match s.small_value(&mut held)? {
                Value::String(t) if t == "FeatureCollection" => typed = true,
                Value::String(t) => {
                    return problem(format!(
                        "the file is a GeoJSON {t}; a .geojson file holds a FeatureCollection \
                         (GeoJSONSeq, one feature a line, is .geojsons)"
                    ));
                }
                _ => return problem(format!("{NOT_A_COLLECTION}: its type is not a string")),
            },
            "crs" => {
                let crs = s.small_value(&mut held)?;
                let refused = (!crs.is_null()).then(|| boundary::check_crs(&crs).err());
                if let Some(e) = refused.flatten() {
                    return problem(format!("the file's crs member: {e}"));
                }
            }
            _ => {
                s.value(&mut held, 0)?;
            }
        }
        match s.skip_whitespace()? {
            Some(b',') => s.advance(1),
            Some(b'}') => {
                s.advance(1);
                break;
            }
            _ => {
                return problem(format!(
                    "{NOT_A_COLLECTION}: expected ',' or '}}' after the member \"{name}\", at byte {}",
                    s.offset
                ));
            }
        }
    }
    if s.skip_whitespace()?.is_some() {
        return problem(format!(
            "the file holds more after the FeatureCollection's closing '}}', at byte {}",
            s.offset
        ));
    }
    if !typed {
        return problem(format!(
            "{NOT_A_COLLECTION}: its object has no \"type\": \"FeatureCollection\""
        ));
    }
    if !features {
        return problem("the FeatureCollection has no \"features\" member".into());
    }
    Ok(())
}

/// The `features` array: each element cut out and read alone, numbered from 1.
fn walk_features<R: BufRead>(
    s: &mut Scanner<R>,
    held: &mut Vec<u8>,
    read: &mut dyn FnMut(u64, &[u8]) -> Row,
    visit: &mut dyn FnMut(Row, Span),
) -> Result<(), Stop> {
    if s.skip_whitespace()? != Some(b'[') {
        return problem(
            "the FeatureCollection's features member must be an array of features".into(),
        );
    }
    s.advance(1);
    if s.skip_whitespace()? == Some(b']') {
        s.advance(1);
        return Ok(());
    }
    let mut number = 0;
    loop {
        s.skip_whitespace()?;
        number += 1;
        let start = s.offset;
        let len = s.value(held, ROW_BYTES_MAX as usize)?;
        match len > ROW_BYTES_MAX {
            true => visit(unread(number, too_long(len)), Span::NONE),
            false => visit(read(number, held), Span { start, len }),
        }
        match s.skip_whitespace()? {
            Some(b',') => s.advance(1),
            Some(b']') => {
                s.advance(1);
                return Ok(());
            }
            None => {
                return problem(format!(
                    "{NOT_A_COLLECTION}: the file ends inside the features array, after feature {number}"
                ));
            }
            _ => {
                return problem(format!(
                    "{NOT_A_COLLECTION}: expected ',' or ']' after feature {number}, at byte {}",
                    s.offset
                ));
            }
        }
    }
}

/// The input and how far into it the walk is, in bytes.
struct Scanner<R> {
    input: R,
    offset: u64,
}

impl<R: BufRead> Scanner<R> {
    fn advance(&mut self, n: usize) {
        self.input.consume(n);
        self.offset += n as u64;
    }

    /// Skips JSON's whitespace; the byte after it, not consumed (None at the end).
    fn skip_whitespace(&mut self) -> io::Result<Option<u8>> {
        loop {
            let buf = self.input.fill_buf()?;
            let Some(n) = buf
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            else {
                if buf.is_empty() {
                    return Ok(None);
                }
                let all = buf.len();
                self.advance(all);
                continue;
            };
            let next = buf[n];
            self.advance(n);
            return Ok(Some(next));
        }
    }

    /// Reads the JSON value that starts at the next byte to its last byte,
    /// holding its first `cap` bytes in `held`; its length in bytes, which
    /// may be more than `cap`.
    fn value(&mut self, held: &mut Vec<u8>, cap: usize) -> Result<u64, Stop> {
        held.clear();
        let (start, mut cut, mut len) = (self.offset, Cut::default(), 0u64);
        loop {
            let buf = self.input.fill_buf()?;
            if buf.is_empty() {
                return problem(format!(
                    "{NOT_A_COLLECTION}: the file ends inside the value that begins at byte {start}"
                ));
            }
            let (n, done) = cut.feed(buf);
            let room = cap.saturating_sub(held.len());
            held.extend_from_slice(&buf[..n.min(room)]);
            self.advance(n);
            len += n as u64;
            if done && len == 0 {
                return problem(format!(
                    "{NOT_A_COLLECTION}: expected a value at byte {start}"
                ));
            }
            if done {
                return Ok(len);
            }
        }
    }

    /// A value held whole and read: a member's name, `type` or `crs`.
    fn small_value(&mut self, held: &mut Vec<u8>) -> Result<Value, Stop> {
        let start = self.offset;
        let len = self.value(held, MEMBER_BYTES_MAX)?;
        if len > MEMBER_BYTES_MAX as u64 {
            return problem(format!(
                "{NOT_A_COLLECTION}: the value at byte {start} is {len} bytes, more than {MEMBER_BYTES_MAX} bytes"
            ));
        }
        serde_json::from_slice(held).or_else(|e| {
            problem(format!(
                "{NOT_A_COLLECTION}: the value at byte {start} is not valid JSON: {e}"
            ))
        })
    }
}

/// Where one JSON value ends, fed its bytes a piece at a time: a string at
/// its closing quote, an object or array where its depth returns to 0, any
/// other value (a number, `true`, `null`) before the byte that ends it.
/// Brackets are only counted, not matched: a feature whose brackets do not
/// match is cut somewhere, and serde_json then says what is wrong with it.
#[derive(Default)]
struct Cut {
    started: bool,
    scalar: bool,
    depth: u64,
    string: bool,
    escape: bool,
}

impl Cut {
    /// How many of `bytes` belong to the value, and whether it ends within them.
    fn feed(&mut self, bytes: &[u8]) -> (usize, bool) {
        for (i, &b) in bytes.iter().enumerate() {
            if !self.started {
                self.started = true;
                match b {
                    b'"' => {
                        self.string = true;
                        continue;
                    }
                    b'{' | b'[' => {}
                    _ => self.scalar = true,
                }
            }
            if self.scalar {
                if matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                    return (i, true);
                }
                continue;
            }
            if self.string {
                if self.escape {
                    self.escape = false;
                } else if b == b'\\' {
                    self.escape = true;
                } else if b == b'"' {
                    self.string = false;
                    if self.depth == 0 {
                        return (i + 1, true);
                    }
                }
                continue;
            }
            match b {
                b'"' => self.string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        return (i + 1, true);
                    }
                }
                _ => {}
            }
        }
        (bytes.len(), false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every feature's number, bytes and span, and the file's problems.
    fn cut(text: &str) -> (Vec<(u64, String, Span)>, Vec<String>) {
        let (mut features, mut problems) = (Vec::new(), Vec::new());
        let mut read = |n: u64, bytes: &[u8]| Row {
            line: n,
            draft: None,
            problems: vec![String::from_utf8(bytes.to_vec()).unwrap()],
        };
        let mut visit = |row: Row, span: Span| match row.line {
            0 => problems.extend(row.problems),
            n => features.push((n, row.problems[0].clone(), span)),
        };
        // A small buffer, so that values are cut across reads.
        let input = io::BufReader::with_capacity(3, text.as_bytes());
        each_feature(input, &mut read, &mut visit).unwrap();
        (features, problems)
    }

    #[test]
    fn each_feature_is_cut_with_its_span_whatever_its_strings_hold() {
        let text = "\u{feff}{\"type\": \"FeatureCollection\", \"name\": \"a]}\\\"\", \"crs\": {\"type\": \"name\", \"properties\": {\"name\": \"urn:ogc:def:crs:OGC:1.3:CRS84\"}},\n\"features\": [\n{\"p\": \"}]\\\\\"},\n {\"q\": [1, {\"r\": \"\\\"]\"}]}\n]}\n";
        let (features, problems) = cut(text);
        assert_eq!(problems, Vec::<String>::new());
        let bodies: Vec<&str> = features.iter().map(|f| f.1.as_str()).collect();
        assert_eq!(
            bodies,
            ["{\"p\": \"}]\\\\\"}", "{\"q\": [1, {\"r\": \"\\\"]\"}]}"]
        );
        for (n, body, span) in &features {
            let at = span.start as usize;
            assert_eq!(
                &text.as_bytes()[at..at + span.len as usize],
                body.as_bytes(),
                "feature {n}"
            );
        }
    }

    #[test]
    fn a_document_that_is_no_collection_is_one_problem() {
        for (text, says) in [
            ("[1]", "does not open with '{'"),
            (
                "{\"type\": \"Feature\", \"geometry\": null}",
                "the file is a GeoJSON Feature",
            ),
            ("{\"features\": []}", "no \"type\": \"FeatureCollection\""),
            (
                "{\"type\": \"FeatureCollection\"}",
                "no \"features\" member",
            ),
            (
                "{\"type\": \"FeatureCollection\", \"features\": [{}",
                "ends inside",
            ),
            (
                "{\"type\": \"FeatureCollection\", \"features\": [{} {}]}",
                "after feature 1",
            ),
            (
                "{\"type\": \"FeatureCollection\", \"features\": []} x",
                "more after",
            ),
            (
                "{\"type\": \"FeatureCollection\", \"crs\": {\"type\": \"name\", \"properties\": {\"name\": \"urn:ogc:def:crs:EPSG::3857\"}}, \"features\": []}",
                "ogr2ogr -t_srs EPSG:4326",
            ),
        ] {
            let (_, problems) = cut(text);
            assert_eq!(problems.len(), 1, "{text}: {problems:?}");
            assert!(problems[0].contains(says), "{text}: {problems:?}");
        }
        assert_eq!(cut("  \n"), (vec![], vec![]));
    }
}
