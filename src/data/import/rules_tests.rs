//! Unit tests of the single-value rules of an import.

use super::*;

#[test]
fn slugs_are_lowercase_runs_joined_by_single_hyphens() {
    for good in ["a", "sea-point", "area-51", "x1-2-3", &"a".repeat(64)] {
        assert_eq!(slug(good), Ok(good.to_string()), "{good}");
    }
    for bad in [
        "",
        "Sea-Point",
        "sea--point",
        "-sea",
        "sea-",
        "sea_point",
        "sea point",
        "daniëlskuil",
        &"a".repeat(65),
    ] {
        assert!(slug(bad).is_err(), "{bad}");
    }
    for reserved in ["search", "compare", "export"] {
        let refusal = slug(reserved).unwrap_err();
        assert_eq!(refusal, Invalid::ReservedId(reserved.into()));
        assert!(refusal.to_string().contains("reserved"), "{refusal}");
    }
    assert!(
        slug("export-zone").is_ok(),
        "only the exact segments are reserved"
    );
}

#[test]
fn provinces_are_the_nine_slugs_or_their_display_names_in_any_case() {
    for (slug, name) in PROVINCES {
        assert_eq!(province(slug), Ok((slug, name)));
        assert_eq!(province(name), Ok((slug, name)));
        assert_eq!(province(&name.to_uppercase()), Ok((slug, name)));
    }
    let kzn = Ok(("kwazulu-natal", "KwaZulu-Natal"));
    for given in [
        "Kwazulu-Natal",
        "KWAZULU NATAL",
        " kwazulu_natal ",
        "KZN",
        "kzn",
    ] {
        assert_eq!(province(given), kzn, "{given}");
    }
    assert_eq!(province("north west"), Ok(("north-west", "North West")));
    assert_eq!(
        province("Western-Cape"),
        Ok(("western-cape", "Western Cape"))
    );
    let abbreviations = [
        ("GP", "gauteng"),
        ("WC", "western-cape"),
        ("EC", "eastern-cape"),
        ("NW", "north-west"),
        ("FS", "free-state"),
        ("NC", "northern-cape"),
        ("MP", "mpumalanga"),
        ("LP", "limpopo"),
    ];
    for (given, slug) in abbreviations {
        assert_eq!(province(given).map(|p| p.0), Ok(slug), "{given}");
    }
}

#[test]
fn an_unknown_province_names_the_closest_when_it_is_close() {
    let err = province("Westren Cape").unwrap_err().to_string();
    assert!(
        err.contains("western-cape") && err.contains("gauteng"),
        "{err}"
    );
    assert!(err.ends_with("; did you mean western-cape?"), "{err}");
    let closest = |given: &str| match province(given) {
        Err(Invalid::UnknownProvince { closest, .. }) => closest,
        other => panic!("{given}: {other:?}"),
    };
    assert_eq!(closest("Gauteg"), Some("gauteng"));
    assert_eq!(closest("Northwest"), Some("north-west"));
    assert_eq!(
        closest("KZM"),
        Some("kwazulu-natal"),
        "a slip in an abbreviation"
    );
    assert_eq!(province("Gauteng Province").unwrap().0, "gauteng");
    assert_eq!(province("Western Cape province").unwrap().0, "western-cape");
    for far in ["Natal", "Cape", "", "ZZ"] {
        assert_eq!(closest(far), None, "{far}");
        let err = province(far).unwrap_err().to_string();
        assert!(!err.contains("did you mean"), "{far}: {err}");
    }
}

#[test]
fn texts_are_trimmed_and_must_hold_something() {
    assert_eq!(text("name", "  Daniëlskuil "), Ok("Daniëlskuil".into()));
    assert!(text("name", "   ").is_err());
    assert!(text("name", "a\tb").is_err());
    assert!(text("name", &"x".repeat(201)).is_err());
}

#[test]
fn coordinates_stay_in_range() {
    assert!(coordinate("lat", -90.0, 90.0).is_ok());
    assert!(coordinate("lat", 90.01, 90.0).is_err());
    assert!(coordinate("lng", f64::NAN, 180.0).is_err());
}

#[test]
fn scores_are_rounded_to_2_decimals_then_0_to_10() {
    for good in [0.0, 10.0, 6.5, 0.29, 7.07, 9.99] {
        assert_eq!(score("s", good), Ok(good));
        assert!(!needs_rounding(good), "{good}");
    }
    for (given, stored) in [(4.8999999999999995, 4.9), (6.555, 6.56), (0.001, 0.0)] {
        assert_eq!(score("s", given), Ok(stored));
        assert!(needs_rounding(given), "{given}");
    }
    assert!(score("s", -0.004).unwrap().is_sign_positive());
    for bad in [-0.01, 10.01, f64::INFINITY, f64::NAN] {
        assert!(score("s", bad).is_err(), "{bad}");
    }
}

#[test]
fn weights_are_positive_shares() {
    assert!(weight("w", 0.15).is_ok());
    assert!(weight("w", 1.0).is_ok());
    assert!(weight("w", 0.0).is_err());
    assert!(weight("w", 1.2).is_err());
}

#[test]
fn dimensions_and_sources() {
    assert_eq!(dimension("service_delivery"), Ok("service_delivery"));
    assert!(
        dimension("crime")
            .unwrap_err()
            .to_string()
            .contains("safety")
    );
    assert!(source("s", "stats-sa:census-2022").is_ok());
    for bad in ["", "a b", "a;b", "a,b"] {
        assert!(source("s", bad).is_err(), "{bad}");
    }
}

#[test]
fn dates_and_timestamps_must_exist() {
    assert_eq!(date("d", "2024-02-29"), Ok(dates::from_civil(2024, 2, 29)));
    assert!(date("d", "2025-02-29").is_err());
    let day = dates::from_civil(2026, 1, 31);
    assert_eq!(
        timestamp("2026-01-31"),
        Ok((day, "2026-01-31T00:00:00Z".into()))
    );
    assert_eq!(
        timestamp("2026-01-31T23:59:59Z"),
        Ok((day, "2026-01-31T23:59:59Z".into()))
    );
    for bad in [
        "2026-01-31T24:00:00Z",
        "2026-01-31T10:00:00",
        "2026-01-31T10:00Z",
        "2026-02-30",
        "2026-01-31T1:00:00Z",
        "2026-01-31T10:00:00+02:00",
    ] {
        assert!(timestamp(bad).is_err(), "{bad}");
    }
}

#[test]
fn decimals_are_plain_notation_only() {
    assert_eq!(decimal("-33.91"), Some(-33.91));
    assert_eq!(decimal("7"), Some(7.0));
    for bad in ["", "-", ".5", "5.", "+5", "1e2", "nan", "inf", "6,5", " 6"] {
        assert_eq!(decimal(bad), None, "{bad}");
    }
}
