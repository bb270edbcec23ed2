//! The query string's decoding and its scalar grammars, value by value.

use super::*;

/// Room for every query of these tests that is not about the cap.
const SOME: [&str; 4] = ["limit", "q", "colour", "empty"];

fn param_of(err: ApiError) -> String {
    err.param().unwrap_or_default().to_string()
}

#[test]
fn decodes_plus_and_percent_escapes_in_names_and_values() {
    let mut q = Query::parse("%6Cimit=5&q=cape+town%21&empty=", &["limit", "q", "empty"]).unwrap();
    assert_eq!(q.take("limit").as_deref(), Some("5"));
    assert_eq!(q.take("q").as_deref(), Some("cape town!"));
    assert_eq!(q.take("empty").as_deref(), Some(""));
    assert!(q.finish(&[]).is_ok());
}

#[test]
fn refuses_repeats_bad_escapes_and_invalid_utf8() {
    assert_eq!(
        param_of(Query::parse("limit=1&limit=2", &SOME).unwrap_err()),
        "limit"
    );
    assert_eq!(
        param_of(Query::parse("limit=1&%6cimit=2", &SOME).unwrap_err()),
        "limit"
    );
    assert_eq!(param_of(Query::parse("q=%zz", &SOME).unwrap_err()), "q");
    assert_eq!(param_of(Query::parse("q=%4", &SOME).unwrap_err()), "q");
    assert_eq!(param_of(Query::parse("q=%ff%fe", &SOME).unwrap_err()), "q");
    assert!(Query::parse("%ff=1", &SOME).is_err());
}

#[test]
fn finish_refuses_leftovers() {
    let q = Query::parse("limit=1&colour=red", &SOME).unwrap();
    let mut q = q;
    q.take("limit");
    assert_eq!(param_of(q.finish(&["limit"]).unwrap_err()), "colour");
    assert!(Query::parse("&&", &[]).unwrap().finish(&[]).is_ok());
}

#[test]
fn integers_are_plain_digits_within_bounds() {
    assert_eq!(integer("limit", "100", 1, 100), Ok(100));
    assert_eq!(integer("limit", "-0", -5, 5), Ok(0));
    for bad in [
        "0",
        "101",
        "1.0",
        "1e2",
        "+5",
        "",
        "-",
        " 5",
        "99999999999999999999",
    ] {
        let err = integer("limit", bad, 1, 100).unwrap_err();
        assert_eq!(
            err.message(),
            "limit must be an integer from 1 to 100",
            "{bad}"
        );
    }
}

#[test]
fn numbers_are_decimal_or_exponent_notation_within_bounds() {
    let b = || Bounds {
        min: 0.0,
        min_exclusive: true,
        max: 50.0,
    };
    assert_eq!(number("radius", "50", b()), Ok(50.0));
    assert_eq!(number("radius", ".5", b()), Ok(0.5));
    assert_eq!(number("radius", "2.", b()), Ok(2.0));
    assert_eq!(number("radius", "1e-05", b()), Ok(0.00001));
    assert_eq!(number("radius", "2.5E1", b()), Ok(25.0));
    assert_eq!(number("radius", "5e+0", b()), Ok(5.0));
    for bad in [
        "0", "50.0001", "nan", "inf", "NaN", "infinity", "1e2", "", ".", "-", "+1", "0x1", "1,5",
        "1e", "e5", "1e+", "1e1.5", "1ee1", ".e1", "1e999", "0e0",
    ] {
        assert!(number("radius", bad, b()).is_err(), "{bad}");
    }
    let lat = Bounds {
        min: -90.0,
        min_exclusive: false,
        max: 90.0,
    };
    assert_eq!(number("lat", "-90", lat), Ok(-90.0));
}

#[test]
fn lists_refuse_empty_and_repeated_items() {
    assert_eq!(list("ids", "a,b,c", 5).unwrap(), vec!["a", "b", "c"]);
    assert!(list("ids", "a,,b", 5).is_err());
    assert!(list("ids", "a,", 5).is_err());
    assert!(list("ids", "", 5).is_err());
    assert!(list("ids", "a,b,a", 5).is_err());
    assert_eq!(list("ids", "a,A, a", 5).unwrap(), vec!["a", "A", " a"]);
}

#[test]
fn a_query_of_more_pairs_than_the_route_has_parameters_names_an_unknown_or_repeated_one() {
    // More pairs than names: the first unknown one is named, decoded...
    let err = Query::parse("limit=1&x1&x2&q=2", &["limit", "q"]).unwrap_err();
    assert_eq!(param_of(err.clone()), "x1");
    assert!(
        err.message().starts_with("unknown parameter 'x1'"),
        "{}",
        err.message()
    );
    // ...or the first repeat, however it is spelled.
    let err = Query::parse("limit=1&q=2&%6cimit=3", &["limit", "q"]).unwrap_err();
    assert_eq!(err.message(), "limit may be given only once");
    let err = Query::parse("include=a&include=b", &["include"]).unwrap_err();
    assert_eq!(err.message(), "include may be given only once");
    // A route that takes none refuses the first pair, as an unknown one.
    let err = Query::parse("&&aa&ab", &[]).unwrap_err();
    assert_eq!(param_of(err.clone()), "aa");
    assert!(
        err.message().contains("takes no parameters"),
        "{}",
        err.message()
    );
    // Empty segments are no pairs.
    assert!(Query::parse("&&limit=1&&", &["limit"]).is_ok());
}

#[test]
fn refusals_of_a_word_outside_a_set_list_the_set() {
    let err = one_of("order", "up", &ORDER_WORDS).unwrap_err();
    let ApiError::InvalidParameter { allowed, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(
        allowed.as_deref(),
        Some(&["asc".to_string(), "desc".to_string()][..])
    );
    let body: serde_json::Value = serde_json::from_slice(&err.body()).unwrap();
    assert_eq!(body["error"]["allowed"], serde_json::json!(["asc", "desc"]));
    let unknown = Query::parse("colour=red", &SOME)
        .unwrap()
        .finish(&["limit", "q"]);
    let body: serde_json::Value = serde_json::from_slice(&unknown.unwrap_err().body()).unwrap();
    assert_eq!(body["error"]["allowed"], serde_json::json!(["limit", "q"]));
}

const ORDER_WORDS: [(&str, u8); 2] = [("asc", 0), ("desc", 1)];

#[test]
fn a_list_is_counted_against_its_cap_before_duplicates_are_looked_for() {
    assert_eq!(list("ids", "a,b,c", 3), Ok(vec!["a", "b", "c"]));
    let err = list("ids", "a,b,c,a", 3).unwrap_err();
    assert!(err.message().contains("at most 3"), "{}", err.message());
    let err = list("ids", "a,b,a", 3).unwrap_err();
    assert!(
        err.message().contains("more than once"),
        "{}",
        err.message()
    );
    assert!(list("ids", "a,,b", 3).is_err());
}
