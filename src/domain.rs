//! The fixed vocabulary of the API: provinces, dimensions, plans, list
//! orderings, history granularities, and score rounding. The words of query
//! parameters that name these live in `api::contract`, with the bounds.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

/// The nine provinces: filter slug and display name (docs/api.md, "Parameters").
pub const PROVINCES: [(&str, &str); 9] = [
    ("eastern-cape", "Eastern Cape"),
    ("free-state", "Free State"),
    ("gauteng", "Gauteng"),
    ("kwazulu-natal", "KwaZulu-Natal"),
    ("limpopo", "Limpopo"),
    ("mpumalanga", "Mpumalanga"),
    ("north-west", "North West"),
    ("northern-cape", "Northern Cape"),
    ("western-cape", "Western Cape"),
];

/// The seven dimensions, in the order responses list them (docs/api.md, "Get Area").
pub const DIMENSIONS: [&str; 7] = [
    "safety",
    "infrastructure",
    "service_delivery",
    "market",
    "amenities",
    "environment",
    "sentiment",
];

/// What statistics and standings are of: the truth_score, then each
/// dimension in `DIMENSIONS` order (docs/api.md, "Area statistics").
pub const MEASURES: [&str; 1 + DIMENSIONS.len()] = {
    let mut all = ["truth_score"; 1 + DIMENSIONS.len()];
    let mut i = 0;
    while i < DIMENSIONS.len() {
        all[i + 1] = DIMENSIONS[i];
        i += 1;
    }
    all
};

/// Position of a dimension name in `DIMENSIONS`, for ordering.
pub fn dimension_position(name: &str) -> usize {
    DIMENSIONS
        .iter()
        .position(|d| *d == name)
        .unwrap_or(DIMENSIONS.len())
}

/// A JSON object keyed by dimension name, in the order of the pairs (the
/// order of `DIMENSIONS`), which a plain map would lose.
#[derive(Debug)]
pub struct DimensionMap<T>(pub Vec<(&'static str, T)>);

impl<T: Serialize> Serialize for DimensionMap<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// Path segments under /v1/areas that name an endpoint, not an area: no
/// area may have one as its id.
pub const RESERVED_AREA_IDS: [&str; 5] = ["search", "compare", "export", "at", "stats"];

/// Plans, in rank order: a plan may do whatever a lower one may.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Plan {
    Free,
    Starter,
    Growth,
    Enterprise,
}

impl Plan {
    pub const ALL: [Plan; 4] = [Plan::Free, Plan::Starter, Plan::Growth, Plan::Enterprise];

    pub fn name(self) -> &'static str {
        match self {
            Plan::Free => "free",
            Plan::Starter => "starter",
            Plan::Growth => "growth",
            Plan::Enterprise => "enterprise",
        }
    }

    pub fn from_name(name: &str) -> Option<Plan> {
        Plan::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// The fields List Areas sorts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    Name,
    TruthScore,
    UpdatedAt,
}

/// The directions of a sort.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Asc,
    Desc,
}

/// What Area Statistics groups areas by; without one, every area is one group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    Province,
    Municipality,
}

/// How Get Area History groups its daily points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Granularity {
    Daily,
    Weekly,
    Monthly,
}

/// Scores, changes and distances carry at most two decimals, rounded half
/// away from zero in decimal: 3.515 gives 3.52 and 1.005 gives 1.01, although
/// the nearest doubles (3.5149999999999997 from 1.785 + 1.73, and
/// 1.00499999999999989...) lie just below the halfway point. A value within
/// 1e-9 of a halfway point counts as on it, which absorbs the error of float
/// sums of 2-decimal scores; see `round2_in_decimal` for the rule itself.
pub fn round2(x: f64) -> f64 {
    // Away from a halfway point the binary product rounds the same way as the
    // decimal rule, without formatting a string; only near one does it differ.
    let hundredths = x * 100.0;
    let from_half = (hundredths.fract().abs() - 0.5).abs();
    if x.abs() < 1e7 && from_half > 1e-4 {
        hundredths.round() / 100.0
    } else {
        round2_in_decimal(x)
    }
}

/// The rule of `round2`: `x` written with 9 decimals (the nearest such
/// decimal, so float noise below 5e-10 disappears), then rounded to 2 decimals
/// half away from zero on those digits.
fn round2_in_decimal(x: f64) -> f64 {
    // From 1e13 on a double's step is several thousandths: nothing to round,
    // and whole hundredths would no longer fit a double's 53 bits exactly.
    if !x.is_finite() || x.abs() >= 1e13 {
        return x;
    }
    let text = format!("{:.9}", x.abs());
    let (whole, fraction) = text.split_once('.').expect("{:.9} writes a point");
    let whole: u64 = whole
        .parse()
        .expect("{:.9} of a finite number writes digits");
    let digit = |i: usize| u64::from(fraction.as_bytes()[i] - b'0');
    let cents = whole * 100 + digit(0) * 10 + digit(1) + u64::from(digit(2) >= 5);
    (cents as f64 / 100.0).copysign(x)
}

#[cfg(test)]
mod round_tests {
    use super::*;

    /// Every halfway value `w.ab5` (and its negative) for w in 0..=12, parsed
    /// from its decimal text, against the rounding done on integers.
    #[test]
    fn halfway_values_round_away_from_zero_in_decimal() {
        for thousandths in (5..13_000u64).step_by(10) {
            let text = format!("{}.{:03}", thousandths / 1000, thousandths % 1000);
            let x: f64 = text.parse().unwrap();
            let want = ((thousandths + 5) / 10) as f64 / 100.0;
            assert_eq!(round2(x), want, "{text}");
            assert_eq!(round2(-x), -want, "-{text}");
        }
    }

    #[test]
    fn the_known_cases() {
        for (x, want) in [
            (3.515, 3.52),
            (1.005, 1.01),
            (2.675, 2.68),
            (-0.125, -0.13),
            (0.5 * 3.57 + 0.5 * 3.46, 3.52),
            (4.8999999999999995, 4.9),
            (7.125, 7.13),
            (6.504, 6.5),
            (10.0, 10.0),
            (1234.5678, 1234.57),
        ] {
            assert_eq!(round2(x), want, "{x}");
        }
        assert!(round2(f64::NAN).is_nan());
        assert_eq!(round2(f64::INFINITY), f64::INFINITY);
        assert_eq!(round2(1e300), 1e300);
    }

    /// The shortcut away from halfway points gives what the rule gives.
    #[test]
    fn the_shortcut_agrees_with_the_rule() {
        let mut x: f64 = -2000.0;
        while x < 2000.0 {
            assert_eq!(round2(x), round2_in_decimal(x), "{x}");
            x += 0.000_731;
        }
    }
}
