//! The query string's decoding and its scalar grammars, value by value.

use super::*;

fn param_of(err: ApiError) -> String {
    err.param().unwrap_or_default().to_string()
}

#[test]
fn decodes_plus_and_percent_escapes_in_names_and_values() {
    let mut q = Query::parse("%6Cimit=5&q=cape+town%21&empty=").unwrap();
    assert_eq!(q.take("limit").as_deref(), Some("5"));
    assert_eq!(q.take("q").as_deref(), Some("cape town!"));
    assert_eq!(q.take("empty").as_deref(), Some(""));
    assert!(q.finish(&[]).is_ok());
}

#[test]
fn refuses_repeats_bad_escapes_and_invalid_utf8() {
    assert_eq!(
        param_of(Query::parse("limit=1&limit=2").unwrap_err()),
        "limit"
    );
    assert_eq!(
        param_of(Query::parse("limit=1&%6cimit=2").unwrap_err()),
        "limit"
    );
    assert_eq!(param_of(Query::parse("q=%zz").unwrap_err()), "q");
    assert_eq!(param_of(Query::parse("q=%4").unwrap_err()), "q");
    assert_eq!(param_of(Query::parse("q=%ff%fe").unwrap_err()), "q");
    assert!(Query::parse("%ff=1").is_err());
}

#[test]
fn finish_refuses_leftovers() {
    let q = Query::parse("limit=1&colour=red").unwrap();
    let mut q = q;
    q.take("limit");
    assert_eq!(param_of(q.finish(&["limit"]).unwrap_err()), "colour");
    assert!(Query::parse("&&").unwrap().finish(&[]).is_ok());
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
    assert_eq!(list("ids", "a,b,c").unwrap(), vec!["a", "b", "c"]);
    assert!(list("ids", "a,,b").is_err());
    assert!(list("ids", "a,").is_err());
    assert!(list("ids", "").is_err());
    assert!(list("ids", "a,b,a").is_err());
    assert_eq!(list("ids", "a,A, a").unwrap(), vec!["a", "A", " a"]);
}
