//! Circle searches against a brute-force haversine over every area.

use super::*;
use crate::search::geo::Circle;
use crate::search::geo::haversine_km;

/// A small deterministic generator, so failures repeat.
struct Lcg(u64);
impl Lcg {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Every circle, k, minimum score and left-out area gives exactly what a
/// brute-force haversine over all areas gives, near the antimeridian and
/// a pole too, where the rings give way to a full scan.
#[test]
fn nearest_equals_brute_force_everywhere() {
    let mut rng = Lcg(7);
    let centres = [
        (85.0, 40.0),
        (70.0, 10.0),
        (-89.4, 0.0),
        (-26.2, 28.05),
        (-33.9, 18.4),
        (0.0, 179.95),
        (-89.8, 10.0),
        (51.5, -0.1),
    ];
    let mut points = Vec::new();
    for &(lat, lng) in &centres {
        for _ in 0..1500 {
            // Dense near the centre, thinning out to about 80 km.
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
    let index = AreaIndex::new(
        points
            .iter()
            .enumerate()
            .map(|(i, &(la, ln, s))| (i as u32 + 1, la, ln, s))
            .collect(),
        Vec::new(),
    );
    let mut checked = 0;
    for &(lat, lng) in &centres {
        for (radius_km, min_score, k, skip) in [
            (50.0, 0.0, 20, None),
            (10.0, 5.0, 10, Some(3)),
            (25.0, 0.0, 5, Some(1501)),
            (3.0, 0.0, 50, None),
            (0.5, 0.0, 1, None),
            (50.0, 9.5, 0, None),
        ] {
            let circle = Circle {
                lat,
                lng,
                radius_km,
            };
            let mut want: Vec<Hit> = points
                .iter()
                .enumerate()
                .map(|(i, p)| (i as i64 + 1, p))
                .filter(|(no, p)| p.2 >= min_score && Some(*no) != skip)
                .map(|(no, p)| Hit {
                    area_no: no,
                    distance_km: haversine_km(lat, lng, p.0, p.1),
                })
                .filter(|h| h.distance_km <= radius_km)
                .collect();
            want.sort_by(|a, b| {
                a.distance_km
                    .total_cmp(&b.distance_km)
                    .then(a.area_no.cmp(&b.area_no))
            });
            let got = index.nearest(&Disc::new(circle), min_score, k, skip);
            assert_eq!(
                got.total,
                want.len(),
                "{circle:?} min {min_score} skip {skip:?}"
            );
            assert_eq!(got.hits, want[..k.min(want.len())], "{circle:?} k {k}");
            checked += usize::from(!want.is_empty());
        }
    }
    assert!(checked >= 40, "most circles hold areas: {checked}");
}
