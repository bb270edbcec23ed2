//! The rules for single values of an import: ids, provinces, text, coordinates,
//! scores, weights, source identifiers, dates and timestamps. Each returns the
//! accepted value or a message that says what is allowed; the readers and
//! `area.rs` decide which field the message is about, and `keep` adds it to
//! an area's problems and goes on.

use crate::dates;
use crate::domain::{DIMENSIONS, PROVINCES, RESERVED_AREA_IDS, round2};
use crate::search::words::fold;

/// A value the rules refuse, with the message that says what is allowed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Invalid {
    #[error("id '{0}' is reserved: /v1/areas/{0} is an endpoint of the API, not an area")]
    ReservedId(String),
    #[error(
        "id '{0}' is not a slug: use 1 to {MAX_ID} lowercase letters a-z and digits, in runs joined by single hyphens"
    )]
    NotSlug(String),
    /// `closest`: the slug within a few edits, when one is.
    #[error("province '{given}' is not one of {} (or its display name, like Western Cape, or an abbreviation, like KZN){}", PROVINCES.map(|(s, _)| s).join(", "), .closest.map_or(String::new(), |s| format!("; did you mean {s}?")))]
    UnknownProvince {
        given: String,
        closest: Option<&'static str>,
    },
    #[error("{0} is empty")]
    Empty(String),
    #[error("{0} is longer than {MAX_TEXT} characters")]
    TooLong(String),
    #[error("{0} holds a control character (tab, newline, ...)")]
    ControlCharacter(String),
    #[error("other_names holds {0} names; at most {MAX_OTHER_NAMES} are allowed")]
    TooManyOtherNames(usize),
    #[error("other_names[{0}] holds no letter or digit")]
    NoLetter(usize),
    #[error("{field} must be from -{limit} to {limit}, not {value}")]
    Coordinate {
        field: String,
        limit: f64,
        value: f64,
    },
    #[error("{field} must be from 0 to 10, not {value}")]
    Score { field: String, value: f64 },
    #[error("{field} must be greater than 0 and at most 1, not {value}")]
    Weight { field: String, value: f64 },
    #[error("unknown dimension '{}': the dimensions are {}", .0, DIMENSIONS.join(", "))]
    UnknownDimension(String),
    #[error("{0} has an empty source identifier")]
    EmptySource(String),
    #[error(
        "{field}: source '{value}' must be 1 to {MAX_SOURCE} characters without spaces, ';' or ','"
    )]
    Source { field: String, value: String },
    #[error("{field} '{value}' is not a real date of the form YYYY-MM-DD")]
    Date { field: String, value: String },
    #[error(
        "updated_at '{0}' must be YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC), a real date and time"
    )]
    Timestamp(String),
    #[error("truth_score would be {0}, above 10: lower the weights")]
    TruthAboveTen(f64),
    /// `exact`: the weighted sum to 4 decimals, `computed` as it rounds.
    #[error(
        "truth_score {given} is not the weighted sum of the dimensions ({exact}, which rounds to {computed}, half away from zero)"
    )]
    TruthNotSum {
        given: f64,
        exact: f64,
        computed: f64,
    },
    #[error(
        "the last history point ({day}: {score}) must equal truth_score {truth}; fix it, or give a later updated_at so that the importer adds the truth_score point"
    )]
    LastPointNotTruth { day: String, score: f64, truth: f64 },
}

/// Longest id, name, municipality and source identifier accepted.
pub const MAX_ID: usize = 64;
pub const MAX_TEXT: usize = 200;
pub const MAX_SOURCE: usize = 100;

/// An area id: lowercase ASCII letters and digits in runs joined by single
/// hyphens, 1 to 64 characters (the form the API's paths and the seed use).
pub fn slug(id: &str) -> Result<String, Invalid> {
    let well_formed = !id.is_empty()
        && id.len() <= MAX_ID
        && id.split('-').all(|run| {
            !run.is_empty() && run.bytes().all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9'))
        });
    if RESERVED_AREA_IDS.contains(&id) {
        Err(Invalid::ReservedId(id.to_string()))
    } else if well_formed {
        Ok(id.to_string())
    } else {
        Err(Invalid::NotSlug(id.to_string()))
    }
}

/// The provinces' common abbreviations, as their slugs.
const PROVINCE_ABBREVIATIONS: [(&str, &str); 9] = [
    ("ec", "eastern-cape"),
    ("fs", "free-state"),
    ("gp", "gauteng"),
    ("kzn", "kwazulu-natal"),
    ("lp", "limpopo"),
    ("mp", "mpumalanga"),
    ("nw", "north-west"),
    ("nc", "northern-cape"),
    ("wc", "western-cape"),
];

/// How far (in edits) an unknown province may be from a slug for the
/// message to suggest that slug.
const PROVINCE_SUGGESTION_EDITS: usize = 3;

/// A province: its filter slug (`western-cape`) or display name (`Western
/// Cape`) in any case, with spaces, hyphens or underscores between its words
/// (`KWAZULU NATAL`, `north_west`), or a common abbreviation (`KZN`, `WC`), as
/// spreadsheets are typed. Returns (slug, display name) from `PROVINCES`; an
/// unknown one names the closest slug when it is close.
pub fn province(given: &str) -> Result<(&'static str, &'static str), Invalid> {
    let key = province_key(given);
    let slug = PROVINCE_ABBREVIATIONS
        .iter()
        .find(|(abbreviation, _)| *abbreviation == key)
        .map_or(key.as_str(), |(_, slug)| *slug);
    if let Some(found) = PROVINCES.iter().find(|(s, _)| *s == slug) {
        return Ok(*found);
    }
    // The nearest slug, or the slug of the nearest abbreviation ("KZM"),
    // within a few edits.
    let slugs = PROVINCES.iter().map(|(s, _)| (edits(&key, s), *s));
    let abbreviations = PROVINCE_ABBREVIATIONS
        .iter()
        .filter(|(a, _)| edits(&key, a) == 1)
        .map(|(_, s)| (1, *s));
    let closest = slugs
        .chain(abbreviations)
        .min()
        .filter(|(d, _)| *d <= PROVINCE_SUGGESTION_EDITS && !key.is_empty());
    Err(Invalid::UnknownProvince {
        given: given.to_string(),
        closest: closest.map(|(_, s)| s),
    })
}

/// A province as compared: lowercase, its words joined by single hyphens,
/// without a last word "province" ("Gauteng Province").
fn province_key(given: &str) -> String {
    let lower = given.to_lowercase();
    let mut words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || c == '-' || c == '_')
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() > 1 && words.last() == Some(&"province") {
        words.pop();
    }
    words.join("-")
}

/// The Levenshtein distance between two short texts, by characters.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substituted = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// A display text (name, municipality): surrounding whitespace dropped, then
/// 1 to 200 characters with no control characters.
pub fn text(field: &str, value: &str) -> Result<String, Invalid> {
    let value = value.trim();
    if value.is_empty() {
        return Err(Invalid::Empty(field.to_string()));
    }
    if value.chars().count() > MAX_TEXT {
        return Err(Invalid::TooLong(field.to_string()));
    }
    if value.chars().any(char::is_control) {
        return Err(Invalid::ControlCharacter(field.to_string()));
    }
    Ok(value.to_string())
}

/// The most other names an area may carry.
pub const MAX_OTHER_NAMES: usize = 20;
const _: () =
    assert!((MAX_OTHER_NAMES as i64) < crate::search::words::vocabulary::OTHER_NAME_SLOTS);

/// An area's other names: each a display text (`text`), at most
/// `MAX_OTHER_NAMES` of them. A name that folds (search/words/fold.rs) to the
/// area's name, or to a name before it, says nothing new and is dropped.
pub fn other_names(values: &[String], name: Option<&str>) -> Result<Vec<String>, Invalid> {
    if values.len() > MAX_OTHER_NAMES {
        return Err(Invalid::TooManyOtherNames(values.len()));
    }
    let mut seen: Vec<String> = name.map(fold::key).into_iter().collect();
    let mut kept = Vec::new();
    for (i, value) in values.iter().enumerate() {
        let value = text(&format!("other_names[{i}]"), value)?;
        let key = fold::key(&value);
        if key.is_empty() {
            return Err(Invalid::NoLetter(i));
        }
        if !seen.contains(&key) {
            seen.push(key);
            kept.push(value);
        }
    }
    Ok(kept)
}

/// A coordinate within -limit..=limit (90 for lat, 180 for lng).
pub fn coordinate(field: &str, value: f64, limit: f64) -> Result<f64, Invalid> {
    if value.is_finite() && (-limit..=limit).contains(&value) {
        Ok(value)
    } else {
        Err(Invalid::Coordinate {
            field: field.to_string(),
            limit,
            value,
        })
    }
}

/// A score, rounded to 2 decimals by `round2` (so 4.8999999999999995 from
/// float maths is 4.9), then from 0 to 10, as the API promises for every score.
pub fn score(field: &str, value: f64) -> Result<f64, Invalid> {
    // Adding 0.0 turns the -0.0 that rounding -0.004 gives into 0.
    let rounded = round2(value) + 0.0;
    if !(rounded.is_finite() && (0.0..=10.0).contains(&rounded)) {
        return Err(Invalid::Score {
            field: field.to_string(),
            value,
        });
    }
    Ok(rounded)
}

/// Whether `score` changes `value` by rounding it: it had more than 2 decimals.
pub fn needs_rounding(value: f64) -> bool {
    // round2 maps a 2-decimal number onto the very same double, and any other onto a different one.
    value.is_finite() && round2(value) != value
}

/// A dimension weight: greater than 0 and at most 1 (its share of truth_score).
pub fn weight(field: &str, value: f64) -> Result<f64, Invalid> {
    if value.is_finite() && value > 0.0 && value <= 1.0 {
        Ok(value)
    } else {
        Err(Invalid::Weight {
            field: field.to_string(),
            value,
        })
    }
}

/// One of the seven dimension names, as the static name the writer stores.
pub fn dimension(name: &str) -> Result<&'static str, Invalid> {
    DIMENSIONS
        .iter()
        .find(|d| **d == name)
        .copied()
        .ok_or_else(|| Invalid::UnknownDimension(name.to_string()))
}

/// A source identifier: 1 to 100 visible characters, none of them a space, `;`
/// or `,`, so that every identifier can be written in either format unquoted.
pub fn source(field: &str, value: &str) -> Result<String, Invalid> {
    if value.is_empty() {
        return Err(Invalid::EmptySource(field.to_string()));
    }
    let bad = |c: char| c.is_whitespace() || c.is_control() || c == ';' || c == ',';
    if value.chars().count() > MAX_SOURCE || value.chars().any(bad) {
        return Err(Invalid::Source {
            field: field.to_string(),
            value: value.to_string(),
        });
    }
    Ok(value.to_string())
}

/// A calendar date `YYYY-MM-DD` that exists; returns its day number.
pub fn date(field: &str, value: &str) -> Result<i64, Invalid> {
    dates::parse_date(value).ok_or_else(|| Invalid::Date {
        field: field.to_string(),
        value: value.to_string(),
    })
}

/// updated_at: `YYYY-MM-DD` (midnight) or `YYYY-MM-DDTHH:MM:SSZ`, in UTC.
/// Returns the day number and the ISO 8601 form the API serves.
pub fn timestamp(value: &str) -> Result<(i64, String), Invalid> {
    let refuse = || Invalid::Timestamp(value.to_string());
    let (day_text, time) = match value.split_once('T') {
        None => (value, "00:00:00"),
        Some((d, t)) => (d, t.strip_suffix('Z').ok_or_else(refuse)?),
    };
    let day = dates::parse_date(day_text).ok_or_else(refuse)?;
    let parts: Vec<&str> = time.split(':').collect();
    let in_range = |text: &str, max: u32| {
        text.len() == 2
            && text.bytes().all(|b| b.is_ascii_digit())
            && text.parse::<u32>().is_ok_and(|n| n <= max)
    };
    let time_ok = parts.len() == 3
        && in_range(parts[0], 23)
        && in_range(parts[1], 59)
        && in_range(parts[2], 59);
    if !time_ok {
        return Err(refuse());
    }
    Ok((day, format!("{day_text}T{time}Z")))
}

/// A number written in plain decimal notation (`-12.5`, `7`), as CSV cells hold
/// them: no exponent, sign `+`, `nan` or `inf`, which Rust's parser would take.
pub fn decimal(text: &str) -> Option<f64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "0"));
    let plain = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (plain(whole) && plain(fraction))
        .then(|| text.parse().ok())
        .flatten()
}

/// The value of `r`, or None with its message added to `problems`.
pub(super) fn keep<T>(problems: &mut Vec<String>, r: Result<T, Invalid>) -> Option<T> {
    r.map_err(|e| problems.push(e.to_string())).ok()
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
