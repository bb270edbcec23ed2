//! The patterns of the string parameters against the server's own parsers:
//! bbox (four numbers), ids, dimensions and include (comma-separated lists),
//! and q (at least one letter or digit).
//! A pattern may admit what only a rule in prose refuses (a repeated item,
//! minLat above maxLat, an exponent-notation number out of range), never
//! less than the server accepts.

use std::collections::BTreeSet;

use area_scoring::api::contract::*;
use area_scoring::api::params;
use area_scoring::api::query::{Bounds, Query};
use area_scoring::error::ApiError;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;

use super::doc::*;
use super::regex;

/// `name=value`, every byte of value percent-escaped, as a Query.
fn query_of(name: &str, value: &str, rest: &str) -> Query {
    let escaped: String = value.bytes().map(|b| format!("%{b:02X}")).collect();
    Query::parse(&format!("{name}={escaped}{rest}"), &[name, "ids"]).unwrap()
}

/// Whether a parser refuses the query because of `name`.
fn refuses(result: Result<(), ApiError>, name: &str) -> bool {
    result.is_err_and(|e| e.param() == Some(name))
}

fn bbox_refused(value: &str) -> bool {
    refuses(
        params::search(query_of("bbox", value, ""), None).map(drop),
        "bbox",
    )
}

/// Values around and between the bounds, in decimal and exponent notation,
/// and text that is not a number.
fn probes(b: Bounds) -> Vec<String> {
    let mut out: Vec<String> = [
        "", ".", "-", "-0", "-0.0", "-.0", "0.", ".5", "-.5", "+1", "1e1", "1E-5", "-2.5e+1", "1e",
        "e1", "1e999", "nan", "inf", "1.2.3", " 1", "1 ", "0x1", "1;5",
    ]
    .map(String::from)
    .to_vec();
    for edge in [b.min, b.max] {
        for delta in [0.0, 0.0001, -0.0001, 0.5, -0.5, 1.0, -1.0] {
            out.push((edge + delta).to_string());
            out.push(format!("{:e}", edge + delta));
        }
        out.push(format!("{edge}.000"));
        out.push(format!("00{edge}"));
    }
    let (low, high) = (b.min.floor() as i64 - 2, b.max.ceil() as i64 + 2);
    for n in low..=high {
        out.push(n.to_string());
        out.push(format!("{n}.5"));
        out.push(format!("{n}.25"));
    }
    out
}

#[test]
fn bbox_pattern_admits_what_the_server_accepts() {
    let pattern = pattern("/v1/areas/search", "bbox");
    // Each position probed with the others fixed so that minLat <= maxLat
    // holds for every latitude in range.
    let others = ["0", "-90", "0", "90"];
    for (at, bounds) in [LNG, LAT, LNG, LAT].into_iter().enumerate() {
        for probe in probes(bounds) {
            let mut numbers = others.map(String::from);
            numbers[at] = probe.clone();
            let value = numbers.join(",");
            let accepted = !bbox_refused(&value);
            let admitted = regex::is_match(&pattern, &value);
            if probe.contains(['e', 'E']) {
                assert!(admitted || !accepted, "bbox={value:?}: pattern {pattern}");
            } else {
                assert_eq!(admitted, accepted, "bbox={value:?}: pattern {pattern}");
            }
        }
    }
    for count in 0..=BBOX_NUMBERS + 2 {
        let value = vec!["1"; count].join(",");
        let four = count == BBOX_NUMBERS;
        assert_eq!(regex::is_match(&pattern, &value), four, "bbox={value:?}");
        assert_eq!(!bbox_refused(&value), four, "bbox={value:?}");
    }
    assert!(bbox_refused("0,10,0,-10"), "minLat above maxLat");
    assert!(
        !bbox_refused("170,-10,-170,10"),
        "a box across the antimeridian"
    );

    let unanchored = pattern
        .strip_prefix('^')
        .unwrap()
        .strip_suffix('$')
        .unwrap();
    let drawn = proptest::string::string_regex(unanchored).unwrap();
    let mut runner = TestRunner::deterministic();
    for _ in 0..2000 {
        let value = drawn.new_tree(&mut runner).unwrap().current();
        let n: Vec<f64> = value.split(',').map(|p| p.parse().unwrap()).collect();
        let in_prose = n[1] <= n[3] && !value.contains(['e', 'E']);
        if in_prose {
            assert!(!bbox_refused(&value), "bbox={value:?}");
        }
    }
}

fn ids_refused(items: &[String]) -> bool {
    let result = params::compare(query_of("ids", &items.join(","), "")).map(drop);
    refuses(result, "ids")
}

#[test]
fn ids_pattern_admits_two_to_five_ids() {
    let pattern = pattern("/v1/areas/compare", "ids");
    for count in 0..=COMPARE_IDS_MAX + 2 {
        let items: Vec<String> = (0..count).map(|i| format!("area {i}")).collect();
        let value = items.join(",");
        let allowed = (COMPARE_IDS_MIN..=COMPARE_IDS_MAX).contains(&count);
        assert_eq!(regex::is_match(&pattern, &value), allowed, "ids={value:?}");
        assert_eq!(!ids_refused(&items), allowed, "ids={value:?}");
    }
    for value in ["a,,b", ",a,b", "a,b,"] {
        assert!(!regex::is_match(&pattern, value), "ids={value:?}");
        let items: Vec<String> = value.split(',').map(String::from).collect();
        assert!(ids_refused(&items), "ids={value:?}");
    }
}

/// List's ids: 1 to 100 items, each taken as given (an unknown one is
/// missing from the answer, not refused), as the parser takes them.
#[test]
fn list_ids_pattern_admits_one_to_a_hundred_ids() {
    let pattern = pattern("/v1/areas", "ids");
    let refused = |items: &[String]| {
        let q = Query::parse(
            &format!("ids={}", items.join(",").replace(' ', "+")),
            &LIST_PARAMS,
        )
        .unwrap();
        refuses(params::list(q, None).map(drop), "ids")
    };
    for count in [
        0,
        1,
        2,
        50,
        LIST_IDS_MAX,
        LIST_IDS_MAX + 1,
        LIST_IDS_MAX + 2,
    ] {
        let items: Vec<String> = (0..count).map(|i| format!("area {i}")).collect();
        let value = items.join(",");
        let allowed = (1..=LIST_IDS_MAX).contains(&count);
        assert_eq!(regex::is_match(&pattern, &value), allowed, "{count} ids");
        assert_eq!(!refused(&items), allowed, "{count} ids");
    }
    for value in ["a,,b", ",a", "a,"] {
        assert!(!regex::is_match(&pattern, value), "ids={value:?}");
        let items: Vec<String> = value.split(',').map(String::from).collect();
        assert!(refused(&items), "ids={value:?}");
    }
}

/// Every order of every non-empty selection of `items`, comma-joined.
pub fn orderings(items: &[&str]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, first) in items.iter().enumerate() {
        out.insert(first.to_string());
        let rest: Vec<&str> = [&items[..i], &items[i + 1..]].concat();
        for tail in orderings(&rest) {
            out.insert(format!("{first},{tail}"));
        }
    }
    out
}

#[test]
fn dimensions_pattern_admits_every_selection_of_dimensions() {
    let pattern = pattern("/v1/areas/compare", "dimensions");
    let accepted = |value: &str| {
        let q = query_of("dimensions", value, "&ids=a,b");
        !refuses(params::compare(q).map(drop), "dimensions")
    };
    for value in orderings(&DIMENSIONS) {
        assert!(regex::is_match(&pattern, &value), "dimensions={value:?}");
        assert!(accepted(&value), "dimensions={value:?}");
    }
    let too_many = [DIMENSIONS.as_slice(), &DIMENSIONS[..1]].concat().join(",");
    for value in [
        "",
        "colour",
        "safety,",
        "Safety",
        "safety,,market",
        too_many.as_str(),
    ] {
        assert!(!regex::is_match(&pattern, value), "dimensions={value:?}");
        assert!(!accepted(value), "dimensions={value:?}");
    }
}

#[test]
fn include_pattern_admits_exactly_what_the_server_accepts() {
    let pattern = pattern("/v1/areas/{area_id}", "include");
    let mut candidates: BTreeSet<String> = ["", ",", "colour", "History"].map(String::from).into();
    for a in INCLUDES {
        candidates.insert(a.to_string());
        for b in INCLUDES {
            candidates.insert(format!("{a},{b}"));
            for c in INCLUDES {
                candidates.insert(format!("{a},{b},{c}"));
                for d in INCLUDES {
                    candidates.insert(format!("{a},{b},{c},{d}"));
                }
            }
        }
    }
    let mut admitted = BTreeSet::new();
    for value in candidates {
        let accepted = params::area(query_of("include", &value, "")).is_ok();
        assert_eq!(
            regex::is_match(&pattern, &value),
            accepted,
            "include={value:?}"
        );
        if accepted {
            admitted.insert(value);
        }
    }
    assert_eq!(admitted, orderings(&INCLUDES));
}

#[test]
fn numbers_as_clients_print_them_are_accepted() {
    // What a client library prints for a float in range: shortest round-trip
    // forms, with and without exponents.
    for (name, b) in [
        ("lat", LAT),
        ("lng", LNG),
        ("radius", RADIUS_KM),
        ("min_score", MIN_SCORE),
    ] {
        for value in ["1e-05", "1E-05", "2.5e+00", "0.00001", "5e-324"] {
            let n: f64 = value.parse().unwrap();
            let ok = area_scoring::api::query::number(name, value, b).is_ok();
            assert_eq!(ok, b.contains(n), "{name}={value}");
        }
        let max = format!("{:e}", b.max);
        assert!(
            area_scoring::api::query::number(name, &max, b).is_ok(),
            "{name}={max}"
        );
    }
}

/// q's pattern is found in a text exactly when the server finds a letter or
/// digit in it (`char::is_alphanumeric`), in and beyond the BMP.
#[test]
fn q_pattern_finds_a_letter_or_digit_where_the_server_does() {
    let pattern = pattern("/v1/areas/search", "q");
    let accepted = |q: &str| params::search(query_of("q", q, ""), None).is_ok();
    let mut texts: Vec<String> = [
        "a",
        "Z",
        "7",
        "\u{24b6}",
        "\u{661}",
        "\u{e9}",
        "\u{4e2d}",
        "\u{1d538}",
        "\u{10400}",
        "\u{1f600}",
        "!!",
        " ",
        "-",
        "\u{301}",
        "\u{640}",
        "\u{2028}",
        "_",
        "\u{ff10}",
        "\u{2160}",
    ]
    .map(String::from)
    .to_vec();
    // A sample of every plane's code points, one in 97.
    texts.extend(
        (0..0x10FFFF)
            .step_by(97)
            .filter_map(char::from_u32)
            .filter(|c| !c.is_control())
            .map(String::from),
    );
    for text in texts {
        let found = regex::is_match(&pattern, &text);
        assert_eq!(found, accepted(&text), "q={text:?} against the server");
        assert_eq!(found, text.chars().any(char::is_alphanumeric), "q={text:?}");
    }
}
