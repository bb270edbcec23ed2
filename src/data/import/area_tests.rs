//! Unit tests of `area::check`: the rules that tie an area's fields together.

use super::*;
use crate::dates;

/// 2026-03-01T12:00:00Z, the import time of these tests.
const NOW: i64 = 1_772_366_400;

fn dim(name: &str, score: f64, weight: f64) -> DraftDimension {
    DraftDimension {
        name: name.into(),
        score: Some(score),
        weight: Some(weight),
        sources: vec!["survey".into()],
    }
}

fn point(date: &str, score: f64) -> DraftPoint {
    DraftPoint {
        date: date.into(),
        score: Some(score),
    }
}

fn draft() -> Draft {
    Draft {
        id: Some("sea-point".into()),
        name: Some("Sea Point".into()),
        province: Some("western-cape".into()),
        municipality: Some("City of Cape Town".into()),
        lat: Some(-33.91),
        lng: Some(18.38),
        dimensions: vec![dim("safety", 6.0, 0.5), dim("market", 8.25, 0.5)],
        ..Draft::default()
    }
}

fn problems(d: &Draft) -> String {
    check(d, NOW).unwrap_err().join("\n")
}

#[test]
fn a_good_area_gets_computed_truth_and_a_one_point_history() {
    let a = check(&draft(), NOW).unwrap();
    assert_eq!(a.truth_score, 7.13); // 3.0 + 4.125 = 7.125, rounded half away from zero
    assert_eq!(
        (a.province_slug, a.province),
        ("western-cape", "Western Cape")
    );
    assert_eq!(a.updated_at, "2026-03-01T12:00:00Z");
    assert_eq!(
        (a.first_day, a.history.clone()),
        (dates::from_civil(2026, 3, 1), vec![7.13])
    );
    assert_eq!(
        a.dimensions.iter().map(|d| d.name).collect::<Vec<_>>(),
        ["safety", "market"]
    );
}

#[test]
fn dimensions_are_stored_in_api_order() {
    let mut d = draft();
    d.dimensions.reverse();
    let names: Vec<&str> = check(&d, NOW)
        .unwrap()
        .dimensions
        .iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(names, ["safety", "market"]);
}

#[test]
fn every_problem_of_a_row_is_reported() {
    let mut d = draft();
    d.id = Some("Sea Point".into());
    d.province = Some("cape".into());
    d.lat = Some(-95.0);
    d.dimensions.push(dim("crime", 5.0, 0.1));
    d.dimensions[0].sources.clear();
    let text = problems(&d);
    for expected in [
        "not a slug",
        "province 'cape'",
        "lat must be",
        "unknown dimension 'crime'",
        "safety needs at least one source",
    ] {
        assert!(text.contains(expected), "{expected} missing from:\n{text}");
    }
}

#[test]
fn weights_must_sum_to_one_within_a_hundredth() {
    let mut d = draft();
    d.dimensions[1].weight = Some(0.509);
    assert!(check(&d, NOW).is_ok());
    d.dimensions[1].weight = Some(0.52);
    assert!(problems(&d).contains("weights sum to 1.02"));
    // Reported alongside other problems of the dimensions, once every weight is readable.
    d.dimensions[0].sources.clear();
    let text = problems(&d);
    assert!(
        text.contains("weights sum to 1.02") && text.contains("needs at least one source"),
        "{text}"
    );
    d.dimensions[0].weight = None;
    assert!(!problems(&d).contains("weights sum"));
}

#[test]
fn a_given_truth_score_must_match_the_weighted_sum() {
    let mut d = draft();
    d.truth_score = Some(7.13); // 7.125, rounded half away from zero
    assert_eq!(check(&d, NOW).unwrap().truth_score, 7.13);
    d.truth_score = Some(7.12); // rounded half to even: not the API's rule
    assert!(problems(&d).contains("rounds to 7.13"));
    d.truth_score = Some(7.2);
    assert!(problems(&d).contains("not the weighted sum"));
}

#[test]
fn a_sum_just_below_a_halfway_point_in_binary_rounds_up_as_in_decimal() {
    let mut d = draft();
    // 1.785 + 1.73 is 3.5149999999999997 in doubles, 3.515 in decimal.
    d.dimensions = vec![dim("safety", 3.57, 0.5), dim("market", 3.46, 0.5)];
    d.history = vec![point("2026-02-01", 3.4), point("2026-02-02", 3.52)];
    d.truth_score = Some(3.52);
    let a = check(&d, NOW).unwrap();
    assert_eq!((a.truth_score, a.history), (3.52, vec![3.4, 3.52]));
}

#[test]
fn scores_with_float_noise_are_rounded_and_counted_weights_kept() {
    let mut d = draft();
    d.dimensions = vec![
        dim("safety", 4.8999999999999995, 0.3333),
        dim("market", 7.0, 0.6667),
    ];
    d.history = vec![point("2026-02-01", 6.1000000000000005)];
    d.truth_score = Some(6.299999999999999);
    d.updated_at = Some("2026-02-02".into());
    let a = check(&d, NOW).unwrap();
    assert_eq!(a.dimensions[0].score, 4.9);
    assert_eq!(
        (a.dimensions[0].weight, a.dimensions[1].weight),
        (0.3333, 0.6667)
    );
    assert_eq!((a.truth_score, a.history), (6.3, vec![6.1, 6.3]));
    assert_eq!(a.rounded, 3);
    assert_eq!(check(&draft(), NOW).unwrap().rounded, 0);
}

#[test]
fn history_is_carried_forward_and_ends_on_truth() {
    let mut d = draft();
    d.history = vec![point("2026-02-03", 7.0), point("2026-02-01", 6.5)];
    d.updated_at = Some("2026-02-05T08:30:00Z".into());
    let a = check(&d, NOW).unwrap();
    assert_eq!(a.first_day, dates::from_civil(2026, 2, 1));
    assert_eq!(a.history, [6.5, 6.5, 7.0, 7.0, 7.13]);
    assert_eq!(a.updated_at, "2026-02-05T08:30:00Z");
}

#[test]
fn without_updated_at_the_last_history_date_is_the_update() {
    let mut d = draft();
    d.history = vec![point("2026-02-01", 6.5), point("2026-02-02", 7.13)];
    let a = check(&d, NOW).unwrap();
    assert_eq!(a.updated_at, "2026-02-02T00:00:00Z");
    assert_eq!(a.history, [6.5, 7.13]);
    d.history[1].score = Some(7.0);
    assert!(problems(&d).contains("must equal truth_score 7.13"));
}

#[test]
fn bad_history_is_refused() {
    let mut d = draft();
    d.history = vec![
        point("2026-02-30", 6.0),
        point("2026-01-01", 11.0),
        point("2026-01-02", 6.0),
        point("2026-01-02", 6.1),
    ];
    let text = problems(&d);
    for expected in [
        "'2026-02-30' is not a real date",
        "from 0 to 10, not 11",
        "2026-01-02 twice",
    ] {
        assert!(text.contains(expected), "{expected} missing from:\n{text}");
    }
    let mut d = draft();
    d.updated_at = Some("2026-01-10".into());
    d.history = vec![point("2026-01-11", 6.0)];
    assert!(problems(&d).contains("after updated_at"));
    d.history = vec![point("2016-01-01", 6.0)];
    assert!(problems(&d).contains("more than 3660"));
    d.history.clear();
    d.updated_at = Some("2026-03-03".into());
    assert!(problems(&d).contains("in the future"));
    d.updated_at = Some("2026-03-02T23:59:59Z".into());
    assert!(check(&d, NOW).is_ok(), "tomorrow is allowed for time zones");
}

#[test]
fn duplicate_dimensions_and_missing_ones_are_refused() {
    let mut d = draft();
    d.dimensions.push(dim("market", 8.0, 0.5));
    assert!(problems(&d).contains("market is given twice"));
    d.dimensions.clear();
    assert!(problems(&d).contains("no dimensions"));
}

#[test]
fn weights_above_one_cannot_push_truth_past_ten() {
    let mut d = draft();
    d.dimensions = vec![dim("safety", 10.0, 0.505), dim("market", 10.0, 0.505)];
    assert!(problems(&d).contains("above 10"));
}

/// A square of 0.1 degree about Sea Point's centre in `draft()`.
fn sea_point_square() -> crate::data::boundary::Boundary {
    let wkt = "POLYGON((18.33 -33.96, 18.43 -33.96, 18.43 -33.86, 18.33 -33.86, 18.33 -33.96))";
    crate::data::boundary::from_wkt(wkt).unwrap().unwrap()
}

#[test]
fn beside_a_boundary_the_centre_may_be_left_out_and_is_then_inside_it() {
    let boundary = sea_point_square();
    let d = Draft {
        lat: None,
        lng: None,
        boundary: Some(boundary.clone()),
        ..draft()
    };
    let area = check(&d, NOW).unwrap();
    assert!(
        boundary.holds(area.lat, area.lng),
        "{} {}",
        area.lat,
        area.lng
    );
    assert_eq!(area.boundary, Some(boundary));
    // Given, it is kept as given.
    let given = check(
        &Draft {
            boundary: Some(sea_point_square()),
            ..draft()
        },
        NOW,
    )
    .unwrap();
    assert_eq!((given.lat, given.lng), (-33.91, 18.38));
}

#[test]
fn a_centre_far_from_its_boundary_or_given_by_half_is_refused() {
    let swapped = Draft {
        lat: Some(18.38),
        lng: Some(-33.91),
        boundary: Some(sea_point_square()),
        ..draft()
    };
    let text = problems(&swapped);
    assert!(text.contains("km outside the boundary"), "{text}");
    assert!(text.contains("are lat and lng swapped?"), "{text}");
    let half = Draft {
        lng: None,
        boundary: Some(sea_point_square()),
        ..draft()
    };
    assert_eq!(
        problems(&half),
        "lat is given without lng: give both, or neither to take a point inside the boundary"
    );
}
