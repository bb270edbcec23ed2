//! The raw query string: form-decoding, and the scalar grammars every endpoint shares.
//!
//! `Query::parse` decodes `a=1&b=x+y` into name/value pairs (`+` is a space,
//! percent-escapes are decoded in names and values, invalid UTF-8 is refused)
//! and refuses a name given twice, or more pairs than the route has
//! parameters, so a request's parsing costs time linear in its target. Endpoint parsers in `params/` then `take`
//! the names they know and call `finish`, which refuses whatever is left over.
//! Every refusal is an `ApiError::InvalidParameter` naming the parameter.

use crate::error::ApiError;

#[derive(Debug)]
pub struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    /// Decodes the query of a route that takes the parameters `known`.
    ///
    /// Its cost is linear in the query's length, whatever it holds: the
    /// pairs are counted against `known` before any is decoded, so a query of
    /// more pairs than the route has parameters is refused having decoded one
    /// name, and the duplicate check then compares at most that many.
    pub fn parse(raw: &str, known: &[&str]) -> Result<Query, ApiError> {
        let segments = || raw.split('&').filter(|s| !s.is_empty());
        if segments().nth(known.len()).is_some() {
            return Err(too_many(segments(), known));
        }
        let mut pairs: Vec<(String, String)> = Vec::with_capacity(known.len());
        for segment in segments() {
            let (raw_name, raw_value) = segment.split_once('=').unwrap_or((segment, ""));
            let name = decode(raw_name).map_err(|why| {
                ApiError::invalid(
                    &String::from_utf8_lossy(raw_name.as_bytes()),
                    format!("a parameter name {why}"),
                )
            })?;
            let value = decode(raw_value)
                .map_err(|why| ApiError::invalid(&name, format!("the value of {name} {why}")))?;
            if pairs.iter().any(|(seen, _)| *seen == name) {
                return Err(ApiError::invalid(
                    &name,
                    format!("{name} may be given only once"),
                ));
            }
            pairs.push((name, value));
        }
        Ok(Query { pairs })
    }

    /// How many pairs the query holds.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Removes and returns the value of `name`, if it was given.
    pub fn take(&mut self, name: &str) -> Option<String> {
        let at = self.pairs.iter().position(|(n, _)| n == name)?;
        Some(self.pairs.remove(at).1)
    }

    /// Refuses any parameter that no `take` claimed. `known` is listed in the
    /// message and in the error's `allowed`.
    pub fn finish(self, known: &[&str]) -> Result<(), ApiError> {
        match self.pairs.into_iter().next() {
            None => Ok(()),
            Some((name, _)) => Err(unknown(&name, known)),
        }
    }
}

fn unknown(name: &str, known: &[&str]) -> ApiError {
    if known.is_empty() {
        return ApiError::invalid(
            name,
            format!("unknown parameter '{name}': this endpoint takes no parameters"),
        );
    }
    ApiError::not_one_of(
        name,
        format!(
            "unknown parameter '{name}': allowed are {}",
            known.join(", ")
        ),
        known,
    )
}

/// The refusal of a query with more pairs than the route has parameters.
/// Among its first `known.len() + 1` pairs one is unknown or repeats an
/// earlier one, since there are more of them than known names: the first
/// such is named. It decodes at most that many names.
fn too_many<'a>(segments: impl Iterator<Item = &'a str>, known: &[&str]) -> ApiError {
    let mut seen: Vec<String> = Vec::with_capacity(known.len());
    for segment in segments.take(known.len() + 1) {
        let raw = segment.split_once('=').map_or(segment, |(name, _)| name);
        let name = decode(raw).unwrap_or_else(|_| String::from_utf8_lossy(raw.as_bytes()).into());
        if seen.contains(&name) {
            return ApiError::invalid(&name, format!("{name} may be given only once"));
        }
        if !known.contains(&name.as_str()) {
            return unknown(&name, known);
        }
        seen.push(name);
    }
    unreachable!("more pairs than known names hold an unknown or repeated one")
}

/// Form-decodes one name or value. The error completes "the value of x ...".
pub fn decode(raw: &str) -> Result<String, &'static str> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .ok_or("has a truncated percent-escape")?;
                let hi = hex_digit(hex[0]).ok_or("has an invalid percent-escape")?;
                let lo = hex_digit(hex[1]).ok_or("has an invalid percent-escape")?;
                out.push(hi << 4 | lo);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| "is not valid UTF-8")
}

fn hex_digit(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// An integer in plain decimal digits with an optional leading '-', within `min..=max`.
pub fn integer(name: &str, value: &str, min: i64, max: i64) -> Result<i64, ApiError> {
    let digits = value.strip_prefix('-').unwrap_or(value);
    let parsed = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        value.parse::<i64>().ok()
    } else {
        None
    };
    match parsed {
        Some(n) if (min..=max).contains(&n) => Ok(n),
        _ if max == i64::MAX => Err(ApiError::invalid(
            name,
            format!("{name} must be a whole number of {min} or more"),
        )),
        _ => Err(ApiError::invalid(
            name,
            format!("{name} must be an integer from {min} to {max}"),
        )),
    }
}

/// A number's bounds, as checked and as they read in a message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub min: f64,
    pub min_exclusive: bool,
    pub max: f64,
}

/// A number within bounds, written as JSON writes numbers (`-12.5`, `3`,
/// `1e-05`, `2.5E1`) or with a bare point (`.5`, `2.`); no sign `+`, nan or inf.
pub fn number(name: &str, value: &str, bounds: Bounds) -> Result<f64, ApiError> {
    match parse_number(value) {
        Some(n) if bounds.contains(n) => Ok(n),
        _ => Err(ApiError::invalid(
            name,
            format!("{name} must be a number {}", bounds.describe()),
        )),
    }
}

impl Bounds {
    pub fn contains(&self, n: f64) -> bool {
        n <= self.max
            && if self.min_exclusive {
                n > self.min
            } else {
                n >= self.min
            }
    }

    /// "from A to B", or "greater than A and at most B".
    pub fn describe(&self) -> String {
        if self.min_exclusive {
            format!("greater than {} and at most {}", self.min, self.max)
        } else {
            format!("from {} to {}", self.min, self.max)
        }
    }
}

/// The number's grammar checked here; Rust's parser alone would also take
/// `+5`, `inf` and `nan`.
pub fn parse_number(value: &str) -> Option<f64> {
    let unsigned = value.strip_prefix('-').unwrap_or(value);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let exponent_ok = exponent.is_none_or(|e| {
        let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
        !digits.is_empty() && all_digits(digits)
    });
    let well_formed = !(whole.is_empty() && fraction.is_empty())
        && all_digits(whole)
        && all_digits(fraction)
        && exponent_ok;
    if !well_formed {
        return None;
    }
    value.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// One of a fixed set of words; the refusal lists them in `allowed`.
pub fn one_of<T: Copy>(name: &str, value: &str, choices: &[(&str, T)]) -> Result<T, ApiError> {
    choices
        .iter()
        .find(|(word, _)| *word == value)
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let words: Vec<&str> = choices.iter().map(|(w, _)| *w).collect();
            ApiError::not_one_of(
                name,
                format!("{name} must be one of {}", words.join(", ")),
                &words,
            )
        })
}

/// A comma-separated list of at most `max` items, taken as given: no empty
/// item, no item twice. The items are counted before any is compared, so
/// the duplicate check compares at most `max` of them.
pub fn list<'a>(name: &str, value: &'a str, max: usize) -> Result<Vec<&'a str>, ApiError> {
    if value.split(',').nth(max).is_some() {
        return Err(ApiError::invalid(
            name,
            format!("{name} may list at most {max} items"),
        ));
    }
    let mut items: Vec<&str> = Vec::with_capacity(max);
    for item in value.split(',') {
        if item.is_empty() {
            return Err(ApiError::invalid(name, format!("{name} has an empty item")));
        }
        if items.contains(&item) {
            return Err(ApiError::invalid(
                name,
                format!("{name} lists '{item}' more than once"),
            ));
        }
        items.push(item);
    }
    Ok(items)
}

#[cfg(test)]
#[path = "query_tests.rs"]
mod tests;
