//! Synthetic scores for real places, made deterministically from each area's id.
//!
//! The places in seed/za-areas.csv are real (GeoNames); every score is made up
//! here. Each dimension starts from an area-wide base quality, moves by a fixed
//! per-dimension offset (metros have more amenities and less environment, for
//! instance) and by noise, so scores look plausible without meaning anything.
//! The same id always gets the same scores and the same history shape.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::data::boundary::{Boundary, read_cell};
use crate::data::error::DataError;
use crate::data::renames;
use crate::domain::{DIMENSIONS, round2};

/// The seed places, compiled in so that `init` needs nothing beside the binary.
pub const SEED_CSV: &str = include_str!("../../seed/za-areas.csv");

/// The seed places' other names (GeoNames alternate names; seed/README.md):
/// `id,other_names`, the names separated by `;` as in an import's CSV.
pub const SEED_OTHER_NAMES_CSV: &str = include_str!("../../seed/other-names.csv");

/// The seed places' boundaries: `id,boundary`, each a WKT polygon, the
/// cells of a Voronoi diagram of the seed's centres clipped to South Africa,
/// generated (tools/, seed/README.md), not official.
pub const SEED_BOUNDARIES_CSV: &str = include_str!("../../seed/boundaries.csv");

/// Each dimension's share of truth_score, in `DIMENSIONS` order; they sum to 1.
pub const WEIGHTS: [f64; 7] = [0.20, 0.15, 0.15, 0.15, 0.15, 0.10, 0.10];

/// Source identifiers a dimension may cite (synthetic, like the scores).
const SOURCES: [[&str; 3]; 7] = [
    [
        "police-crime-statistics",
        "resident-safety-survey",
        "security-incident-reports",
    ],
    [
        "road-condition-survey",
        "power-outage-log",
        "water-supply-reports",
    ],
    [
        "municipal-service-reports",
        "service-complaints-register",
        "refuse-collection-audit",
    ],
    [
        "property-transfer-records",
        "rental-listings",
        "business-registrations",
    ],
    [
        "school-directory",
        "health-facility-register",
        "retail-locations",
    ],
    [
        "air-quality-monitors",
        "green-space-inventory",
        "flood-risk-maps",
    ],
    ["resident-survey", "social-media-sentiment", "review-sites"],
];

/// How each dimension leans away from the base: (everywhere, extra in metros).
const OFFSETS: [(f64, f64); 7] = [
    (-0.6, -0.4),
    (0.0, 0.9),
    (-0.4, 0.5),
    (-0.2, 1.2),
    (-0.5, 1.5),
    (0.7, -1.0),
    (0.1, 0.0),
];

#[derive(Debug, Clone)]
pub struct Place {
    pub id: String,
    pub name: String,
    pub province_slug: String,
    pub province: String,
    pub municipality: String,
    pub lat: f64,
    pub lng: f64,
    /// Other names (seed/other-names.csv, then seed/renames.csv, for the seed places).
    pub other_names: Vec<String>,
}

/// Reads places in the seed's CSV layout (id,name,province_slug,province,municipality,lat,lng).
pub fn read_places(text: &str) -> Result<Vec<Place>, DataError> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let mut places = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        let refuse = |why: String| DataError::Seed {
            file: "seed",
            line,
            why,
        };
        let r = record.map_err(|e| refuse(e.to_string()))?;
        let number = |k: usize| {
            r[k].parse::<f64>()
                .map_err(|_| refuse("bad coordinate".into()))
        };
        if r.len() != 7 {
            return Err(refuse(format!("expected 7 fields, found {}", r.len())));
        }
        places.push(Place {
            id: r[0].into(),
            name: r[1].into(),
            province_slug: r[2].into(),
            province: r[3].into(),
            municipality: r[4].into(),
            lat: number(5)?,
            lng: number(6)?,
            other_names: Vec::new(),
        });
    }
    Ok(places)
}

/// The seed places with their other names, each list held to the import's
/// rules (data/import/rules.rs), so the seed is what an import would make.
pub fn seed_places() -> Result<Vec<Place>, DataError> {
    let mut places = read_places(SEED_CSV)?;
    let mut reader = csv::Reader::from_reader(SEED_OTHER_NAMES_CSV.as_bytes());
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        let refuse = |why: String| DataError::Seed {
            file: "other names",
            line,
            why,
        };
        let r = record.map_err(|e| refuse(e.to_string()))?;
        let (id, names) = (&r[0], &r[1]);
        let place = places
            .iter_mut()
            .find(|p| p.id == id)
            .ok_or_else(|| refuse(format!("no seed place '{id}'")))?;
        let names: Vec<String> = names.split(';').map(|n| n.trim().to_string()).collect();
        place.other_names = crate::data::import::rules::other_names(&names, Some(&place.name))
            .map_err(|e| refuse(e.to_string()))?;
    }
    add_renames(&mut places)?;
    Ok(places)
}

/// Adds each gazetted rename (data/renames.rs) to its place's other names,
/// after the GeoNames ones, held to the same rules, so a name the place
/// already has is not repeated.
fn add_renames(places: &mut [Place]) -> Result<(), DataError> {
    let renames = renames::read_renames(renames::SEED_RENAMES_CSV)?;
    for (i, rename) in renames.iter().enumerate() {
        let refuse = |why: String| DataError::Seed {
            file: "renames",
            line: i + 2,
            why,
        };
        let place = places
            .iter_mut()
            .find(|p| p.id == rename.id)
            .ok_or_else(|| refuse(format!("no seed place '{}'", rename.id)))?;
        let added = rename
            .other_names_for(&place.name)
            .ok_or_else(|| refuse(format!("'{}' is neither of the rename's names", place.name)))?;
        let names: Vec<String> = place.other_names.iter().cloned().chain(added).collect();
        place.other_names = crate::data::import::rules::other_names(&names, Some(&place.name))
            .map_err(|e| refuse(e.to_string()))?;
    }
    Ok(())
}

/// The seed places' boundaries by id, each held to the import's rules
/// (data/boundary/). A place the file leaves out has none.
pub fn seed_boundaries() -> Result<HashMap<String, Boundary>, DataError> {
    let mut reader = csv::Reader::from_reader(SEED_BOUNDARIES_CSV.as_bytes());
    let mut out = HashMap::new();
    for (i, record) in reader.records().enumerate() {
        let refuse = |why: String| DataError::Seed {
            file: "boundaries",
            line: i + 2,
            why,
        };
        let r = record.map_err(|e| refuse(e.to_string()))?;
        if r.len() != 2 {
            return Err(refuse(format!("expected 2 fields, found {}", r.len())));
        }
        if let Some(boundary) = read_cell(&r[1]).map_err(|e| refuse(e.to_string()))? {
            out.insert(r[0].to_string(), boundary);
        }
    }
    Ok(out)
}

/// A small deterministic generator (SplitMix64), seeded from a string.
pub struct Rng(u64);

impl Rng {
    pub fn from_text(text: &str) -> Rng {
        // FNV-1a: a stable hash, unlike std's randomly keyed one.
        let seed = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Roughly normal with mean 0 and deviation 1 (sum of uniforms).
    pub fn normal(&mut self) -> f64 {
        (0..4).map(|_| self.unit()).sum::<f64>() * 3f64.sqrt() - 2.0 * 3f64.sqrt()
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct DimensionScore {
    pub name: &'static str,
    pub score: f64,
    pub weight: f64,
    /// Borrowed for the seed's fixed identifiers, owned for imported ones.
    pub sources: Vec<Cow<'static, str>>,
}

/// An area's seven dimension scores and the truth_score they weigh up to.
pub fn scores(id: &str, municipality: &str) -> (Vec<DimensionScore>, f64) {
    let mut rng = Rng::from_text(id);
    let metro = municipality.contains("Metropolitan");
    let base = 3.8 + 3.6 * rng.unit();
    let dims: Vec<DimensionScore> = (0..DIMENSIONS.len())
        .map(|k| {
            let (everywhere, in_metro) = OFFSETS[k];
            let raw = base + everywhere + if metro { in_metro } else { 0.0 } + 1.1 * rng.normal();
            let score = (raw.clamp(0.5, 9.8) * 10.0).round() / 10.0;
            let first = rng.below(3);
            let count = 1 + rng.below(3);
            let sources = (0..count)
                .map(|j| Cow::Borrowed(SOURCES[k][(first + j) % 3]))
                .collect();
            DimensionScore {
                name: DIMENSIONS[k],
                score,
                weight: WEIGHTS[k],
                sources,
            }
        })
        .collect();
    let truth = round2(dims.iter().map(|d| d.score * d.weight).sum());
    (dims, truth)
}

/// `days` daily scores, oldest first, ending exactly on `truth_score`: a slow
/// drift plus a few gentle waves, kept within 0 to 10, two decimals.
pub fn history(id: &str, truth_score: f64, days: usize) -> Vec<f64> {
    let mut rng = Rng::from_text(&format!("{id}/history"));
    let drift_per_day = (rng.unit() - 0.5) * 1.2 / 365.0;
    let waves: Vec<(f64, f64, f64)> = [(365.0, 0.45), (91.0, 0.2), (29.0, 0.08)]
        .iter()
        .map(|&(period, size)| {
            (
                period,
                size * (0.3 + rng.unit()),
                rng.unit() * std::f64::consts::TAU,
            )
        })
        .collect();
    let shape = |t: f64| {
        drift_per_day * t
            + waves
                .iter()
                .map(|&(p, a, phase)| a * (t * std::f64::consts::TAU / p + phase).sin())
                .sum::<f64>()
    };
    let end = (days.max(1) - 1) as f64;
    (0..days)
        .map(|t| round2((truth_score + shape(t as f64) - shape(end)).clamp(0.0, 10.0)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_one() {
        assert!((WEIGHTS.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn scores_are_deterministic_bounded_and_weighted() {
        let (dims, truth) = scores("sandton", "City of Johannesburg Metropolitan Municipality");
        assert_eq!(
            (dims.clone(), truth),
            scores("sandton", "City of Johannesburg Metropolitan Municipality")
        );
        assert_eq!(dims.len(), 7);
        let weighted: f64 = dims.iter().map(|d| d.score * d.weight).sum();
        assert!((truth - weighted).abs() <= 0.005 + 1e-9);
        for d in &dims {
            assert!((0.0..=10.0).contains(&d.score));
            assert!((1..=3).contains(&d.sources.len()));
        }
    }

    #[test]
    fn history_ends_on_truth_score() {
        let h = history("sandton", 6.42, 400);
        assert_eq!(h.len(), 400);
        assert_eq!(*h.last().unwrap(), 6.42);
        assert!(h.iter().all(|s| (0.0..=10.0).contains(s)));
        // Smooth: no day moves more than a few hundredths.
        assert!(h.windows(2).all(|w| (w[1] - w[0]).abs() < 0.1));
    }

    #[test]
    fn the_seed_has_every_place() {
        let places = read_places(SEED_CSV).unwrap();
        assert_eq!(places.len(), 938);
        assert!(places.iter().any(|p| p.name == "Daniëlskuil"));
    }
}
