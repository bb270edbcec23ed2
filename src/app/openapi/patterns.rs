//! The document's regular expressions, built from the contract's values:
//! the string parameters' grammars (bbox, ids, dimensions, include, q) and
//! the header fields' (RateLimit-Policy, RateLimit, Link, Content-Disposition).
//!
//! Each is an ECMA-262 pattern that Python's `re` reads the same way, and
//! never narrower than the server: what a pattern refuses, the server refuses.

use crate::api::contract::*;
use crate::api::format::Format;

/// |x| <= 90 in decimal notation: the numeric range, written as a grammar,
/// has no simpler derivation from the bound than this spelling of it.
const LAT_DECIMAL: &str = r"-?(?:0*(?:[1-8]?[0-9](?:\.[0-9]*)?|90(?:\.0*)?)|\.[0-9]+)";
/// |x| <= 180 in decimal notation.
const LNG_DECIMAL: &str =
    r"-?(?:0*(?:(?:1[0-7][0-9]|[1-9]?[0-9])(?:\.[0-9]*)?|180(?:\.0*)?)|\.[0-9]+)";
/// Any number in exponent notation: its range is stated in prose only.
const EXPONENT: &str = r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+";

/// bbox: minLng,minLat,maxLng,maxLat, each in decimal notation within its
/// range, or in exponent notation.
pub fn bbox() -> String {
    assert_eq!((LAT.max, LNG.max), (90.0, 180.0), "the decimal grammars");
    let lng = format!("(?:{LNG_DECIMAL}|{EXPONENT})");
    let lat = format!("(?:{LAT_DECIMAL}|{EXPONENT})");
    const { assert!(BBOX_NUMBERS == 4) };
    format!("^{lng},{lat},{lng},{lat}$")
}

/// ids: COMPARE_IDS_MIN to COMPARE_IDS_MAX items, none empty (ids are
/// taken as given, so an item is any text without a comma).
pub fn ids() -> String {
    format!(
        "^[^,]+(?:,[^,]+){{{},{}}}$",
        COMPARE_IDS_MIN - 1,
        COMPARE_IDS_MAX - 1
    )
}

/// List's ids: 1 to LIST_IDS_MAX items, none empty, each taken as given.
pub fn list_ids() -> String {
    format!("^[^,]+(?:,[^,]+){{0,{}}}$", LIST_IDS_MAX - 1)
}

/// dimensions: 1 to all of the known names. That none repeats is said in
/// prose: a pattern that says it needs look-ahead, which few generators read.
pub fn dimension_list() -> String {
    let one = format!("(?:{})", DIMENSIONS.join("|"));
    format!("^{one}(?:,{one}){{0,{}}}$", DIMENSIONS.len() - 1)
}

/// include: each extra at most once, in any order, so every allowed value
/// (each ordering of each set of extras) is listed.
pub fn include() -> String {
    let mut values = Vec::new();
    orderings(&mut Vec::new(), &mut values);
    format!("^(?:{})$", values.join("|"))
}

/// Every non-empty ordering of distinct items of `INCLUDES` that starts
/// with `taken`, added to `out`.
fn orderings(taken: &mut Vec<&'static str>, out: &mut Vec<String>) {
    for item in INCLUDES {
        if !taken.contains(&item) {
            taken.push(item);
            out.push(taken.join(","));
            orderings(taken, out);
            taken.pop();
        }
    }
}

/// "A letter or digit" in q, Rust's `char::is_alphanumeric`, as an explicit
/// class: ECMA-262's `\w` is ASCII only and Python's `re` has no `\p{..}`.
/// Code points of the BMP are `\uXXXX` escapes, the others the characters
/// themselves (no escape for them is common to ECMA-262 and Python).
pub fn alphanumeric() -> String {
    let one = |c: char| {
        if u32::from(c) <= 0xFFFF {
            format!("\\u{:04x}", u32::from(c))
        } else {
            c.to_string()
        }
    };
    let mut class = String::from("[");
    for (first, last) in alphanumeric_ranges() {
        class.push_str(&one(first));
        if first != last {
            class.push('-');
            class.push_str(&one(last));
        }
    }
    class.push(']');
    class
}

/// The runs of code points that `char::is_alphanumeric` takes.
fn alphanumeric_ranges() -> Vec<(char, char)> {
    let mut ranges: Vec<(char, char)> = Vec::new();
    let mut previous: Option<char> = None;
    for c in (0..=0x10FFFF).filter_map(char::from_u32) {
        if !c.is_alphanumeric() {
            previous = None;
            continue;
        }
        match (previous, ranges.last_mut()) {
            (Some(_), Some(run)) => run.1 = c,
            _ => ranges.push((c, c)),
        }
        previous = Some(c);
    }
    ranges
}

/// A plan's policy name, or the keyless budget's, in the RateLimit fields.
fn plan_policy() -> String {
    let plans: Vec<&str> = crate::domain::Plan::ALL.iter().map(|p| p.name()).collect();
    format!("\"(?:{})\"", plans.join("|"))
}

/// RateLimit-Policy: a plan's requests per window (any positive number, an
/// operator may set it), or the keyless budget's fixed one.
pub fn ratelimit_policy(keyless: &str, keyless_per_minute: u32, window: u64) -> String {
    format!(
        "^(?:{};q=[1-9][0-9]*|\"{keyless}\";q={keyless_per_minute});w={window}$",
        plan_policy()
    )
}

/// RateLimit: the same names, with what is left and the seconds until full.
pub fn ratelimit(keyless: &str) -> String {
    format!(
        "^(?:{}|\"{keyless}\");r=(?:0|[1-9][0-9]*);t=(?:0|[1-9][0-9]*)$",
        plan_policy()
    )
}

/// Link: links of the four relations, first and last always among them.
pub fn link() -> String {
    let rel = "<[^<>]+>; rel=\"(?:first|prev|next|last)\"";
    format!("^(?=.*rel=\"first\")(?=.*rel=\"last\"){rel}(?:, {rel})*$")
}

/// Content-Disposition: the export's file, dated, with its format's extension.
pub fn content_disposition() -> String {
    let extensions: Vec<&str> = EXPORT_FORMATS
        .iter()
        .map(|f| Format::extension(*f))
        .collect();
    format!(
        "^attachment; filename=\"areas(?:-[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})?\\.(?:{})\"$",
        extensions.join("|")
    )
}
