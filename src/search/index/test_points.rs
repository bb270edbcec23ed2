//! Random areas for the search structures' tests: clouds of points around
//! chosen centres, dense near each and thinning out to about 80 km, with
//! scores of two decimals. Deterministic, so a failure repeats.

use crate::search::index::AreaIndex;
use crate::search::index::geo::{Circle, Disc};

/// A small linear congruential generator.
pub struct Lcg(pub u64);

impl Lcg {
    /// A number in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `per_centre` points (lat, lng, score) around each centre; area_no is the
/// position in the result plus one.
pub fn cloud(centres: &[(f64, f64)], per_centre: usize, seed: u64) -> Vec<(f64, f64, f64)> {
    let mut rng = Lcg(seed);
    let mut points = Vec::new();
    for &(lat, lng) in centres {
        for _ in 0..per_centre {
            let (r, a) = (
                rng.unit().powi(2) * 0.75,
                rng.unit() * std::f64::consts::TAU,
            );
            let plat = (lat + r * a.sin()).clamp(-90.0, 90.0);
            let mut plng = lng + r * a.cos() / (plat.to_radians().cos().max(0.05));
            plng = (plng + 540.0).rem_euclid(360.0) - 180.0;
            let score = (rng.unit() * 1000.0).round() / 100.0;
            points.push((plat, plng, score));
        }
    }
    points
}

/// The index of a cloud, without search ranks.
pub fn index_of(points: &[(f64, f64, f64)]) -> AreaIndex {
    ranked_index(points, Vec::new())
}

/// The index of a cloud, with the area_no of each search rank from 1.
pub fn ranked_index(points: &[(f64, f64, f64)], by_rank: Vec<u32>) -> AreaIndex {
    AreaIndex::new(
        points
            .iter()
            .enumerate()
            .map(|(i, &(la, ln, s))| (i as u32 + 1, la, ln, s))
            .collect(),
        by_rank,
    )
}

/// No circle, then a circle of each radius around each centre.
pub fn discs_around(centres: &[(f64, f64)], radii: &[f64]) -> Vec<Option<Disc>> {
    let circles = centres.iter().flat_map(|&(lat, lng)| {
        radii.iter().map(move |&radius_km| {
            Some(Disc::new(Circle {
                lat,
                lng,
                radius_km,
            }))
        })
    });
    std::iter::once(None).chain(circles).collect()
}
