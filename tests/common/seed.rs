//! The seed, read independently of the crate under test, for tests that must
//! derive expected values from it.

use std::path::Path;

/// A place of seed/za-areas.csv, read here with the csv crate rather than
/// through the crate under test.
#[derive(Debug, Clone)]
pub struct SeedPlace {
    pub id: String,
    pub name: String,
    pub province_slug: String,
    pub province: String,
    pub municipality: String,
    pub lat: f64,
    pub lng: f64,
}

pub fn seed_places() -> Vec<SeedPlace> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("seed/za-areas.csv");
    let mut reader = csv::Reader::from_path(path).expect("seed/za-areas.csv");
    reader
        .records()
        .map(|r| {
            let r = r.expect("a seed row");
            SeedPlace {
                id: r[0].into(),
                name: r[1].into(),
                province_slug: r[2].into(),
                province: r[3].into(),
                municipality: r[4].into(),
                lat: r[5].parse().expect("a latitude"),
                lng: r[6].parse().expect("a longitude"),
            }
        })
        .collect()
}

/// The number of areas seed/za-areas.csv holds: its lines, less the header.
pub fn seed_area_count() -> u64 {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("seed/za-areas.csv");
    let text = std::fs::read_to_string(path).expect("seed/za-areas.csv");
    text.lines().filter(|l| !l.trim().is_empty()).count() as u64 - 1
}

/// The seven dimension names in the order of docs/api.md "Get Area", written out
/// here rather than taken from src/, so that the tests check src/ against docs/api.md.
pub const DIMENSIONS: [&str; 7] = [
    "safety",
    "infrastructure",
    "service_delivery",
    "market",
    "amenities",
    "environment",
    "sentiment",
];
