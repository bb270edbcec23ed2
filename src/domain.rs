//! The fixed vocabulary of the API: provinces, dimensions, plans, list
//! orderings, history granularities, and score rounding. The words of query
//! parameters that name these live in `api::contract`, with the bounds.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

/// The nine provinces: filter slug and display name (README, "Parameters").
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

/// The seven dimensions, in the order responses list them (README, "Get Area").
pub const DIMENSIONS: [&str; 7] = [
    "safety",
    "infrastructure",
    "service_delivery",
    "market",
    "amenities",
    "environment",
    "sentiment",
];

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
pub const RESERVED_AREA_IDS: [&str; 3] = ["search", "compare", "export"];

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

/// How Get Area History groups its daily points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Granularity {
    Daily,
    Weekly,
    Monthly,
}

/// Scores, changes and distances carry at most two decimals.
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
