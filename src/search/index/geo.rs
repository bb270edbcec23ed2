//! Distances on the Earth, the bounding box that surely holds a circle, and
//! `Disc`, a circle ready for cheap membership tests. The box only ever errs on
//! the large side; search/shape/circles/ narrows with it, then decides by the chord
//! between unit vectors (no trigonometry), falling back to the exact haversine
//! distance only where the two could disagree.

/// A point and a radius in kilometres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Circle {
    pub lat: f64,
    pub lng: f64,
    pub radius_km: f64,
}

/// Mean Earth radius (IUGG), in kilometres.
pub const EARTH_RADIUS_KM: f64 = 6371.0088;

/// Great-circle distance in kilometres between two points given in degrees.
pub fn haversine_km(lat1: f64, lng1: f64, lat2: f64, lng2: f64) -> f64 {
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let dp = p2 - p1;
    let dl = (lng2 - lng1).to_radians();
    let a = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_KM * a.sqrt().min(1.0).asin()
}

/// The point on the unit sphere at a latitude and longitude in degrees.
pub fn unit_vector(lat: f64, lng: f64) -> [f64; 3] {
    let (p, l) = (lat.to_radians(), lng.to_radians());
    [p.cos() * l.cos(), p.cos() * l.sin(), p.sin()]
}

/// The squared straight-line distance between two unit vectors. Taken from
/// the differences, it keeps its precision for points metres apart. It equals
/// 4·a of the haversine formula, so it orders points exactly as the
/// great-circle distance does, up to rounding.
pub fn chord2(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    let (dx, dy, dz) = (a[0] - b[0], a[1] - b[1], a[2] - b[2]);
    dx * dx + dy * dy + dz * dz
}

/// A unit vector in single precision, as the area index keeps one per area
/// (12 bytes instead of 24: 12 MB at a million areas).
pub fn unit_vector32(lat: f64, lng: f64) -> [f32; 3] {
    let u = unit_vector(lat, lng);
    [u[0] as f32, u[1] as f32, u[2] as f32]
}

/// The squared chord between a unit vector and one in single precision,
/// and a bound on how far it is from the squared chord of the exact point.
/// Rounding to f32 moves each coordinate by at most 2^-24 of itself, so the
/// vector by at most 2^-24 (6e-8); the chord then by at most that, and the
/// squared chord c² by at most 2·6e-8·c + (6e-8)². The bound doubles it.
pub fn chord2_to32(a: &[f64; 3], b: &[f32; 3]) -> (f64, f64) {
    let b = [f64::from(b[0]), f64::from(b[1]), f64::from(b[2])];
    let c2 = chord2(a, &b);
    (c2, 2.4e-7 * c2.sqrt() + 1e-14)
}

/// True when `a` exceeds `b` by more than rounding in `chord2` could explain:
/// a relative 1e-9, plus 1e-21 for points a few metres apart, where the
/// absolute error of the unit vectors (about 1e-16) dominates.
pub fn surely_greater(a: f64, b: f64) -> bool {
    a > b + b * 1e-9 + 1e-21
}

/// A search circle prepared once per request: its centre as a unit vector
/// and its radius as a squared chord.
#[derive(Debug, Clone, Copy)]
pub struct Disc {
    pub circle: Circle,
    pub centre: [f64; 3],
    /// The radius as a squared chord of the unit sphere.
    pub radius_chord2: f64,
    /// How far from `radius_chord2` a squared chord must lie for `contains`
    /// to decide without rounding's bounds (`chord_band`).
    band: f64,
}

/// Twice the most `chord2_to32`'s bound can be for a squared chord up to
/// twice `r2`, plus twice the margin of `surely_greater` at `r2`. A squared
/// chord more than this above `r2` is surely outside after its bound is
/// taken off (past 2·r2 the bound is far below half the chord), and one more
/// than this below is surely inside after it is added.
fn chord_band(r2: f64) -> f64 {
    2.0 * (2.4e-7 * (2.0 * r2 + 1e-12).sqrt() + 1e-14) + 2.0 * (r2 * 1e-9 + 1e-21)
}

impl Disc {
    pub fn new(circle: Circle) -> Disc {
        let half_angle =
            (circle.radius_km / (2.0 * EARTH_RADIUS_KM)).min(std::f64::consts::FRAC_PI_2);
        let radius_chord2 = (2.0 * half_angle.sin()).powi(2);
        Disc {
            circle,
            centre: unit_vector(circle.lat, circle.lng),
            radius_chord2,
            band: chord_band(radius_chord2),
        }
    }

    /// Whether a point (its unit vector, latitude and longitude) lies within
    /// the radius by the haversine rule. The chord decides wherever rounding
    /// cannot matter; in the thin band where it could, haversine does.
    #[inline]
    pub fn contains(&self, unit: &[f32; 3], lat: f64, lng: f64) -> bool {
        let b = [f64::from(unit[0]), f64::from(unit[1]), f64::from(unit[2])];
        let c2 = chord2(&self.centre, &b);
        // Outside the band the answer is that of the tests below, without
        // their square root: the edge cells of a 50 km circle at a million
        // areas test some 20,000 areas. One test, nearly always taken, and
        // the answer a comparison rather than a branch: in an edge cell,
        // inside and outside alternate with no pattern to predict.
        if (c2 - self.radius_chord2).abs() > self.band {
            return c2 < self.radius_chord2;
        }
        let (c2, err) = chord2_to32(&self.centre, unit);
        if surely_greater(c2 - err, self.radius_chord2) {
            false
        } else if surely_greater(self.radius_chord2, c2 + err) {
            true
        } else {
            self.distance_km(lat, lng) <= self.circle.radius_km
        }
    }

    /// The exact haversine distance from the centre.
    pub fn distance_km(&self, lat: f64, lng: f64) -> f64 {
        haversine_km(self.circle.lat, self.circle.lng, lat, lng)
    }
}

/// A latitude/longitude box, in degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundingBox {
    pub min_lat: f64,
    pub max_lat: f64,
    pub min_lng: f64,
    pub max_lng: f64,
}

/// A box holding every point within the circle. Near a pole, or where the circle
/// crosses the antimeridian, it spans all longitudes rather than wrapping.
pub fn bounding_box(c: &Circle) -> BoundingBox {
    // A small margin covers rounding in the trigonometry.
    let margin = 1e-4;
    let dlat = (c.radius_km / EARTH_RADIUS_KM).to_degrees() + margin;
    let (min_lat, max_lat) = (c.lat - dlat, c.lat + dlat);
    let full = (-180.0, 180.0);
    let (min_lng, max_lng) = if min_lat <= -90.0 || max_lat >= 90.0 {
        full
    } else {
        let widest = c.lat.abs() + dlat; // the box's latitude furthest from the equator
        let dlng =
            (c.radius_km / (EARTH_RADIUS_KM * widest.to_radians().cos())).to_degrees() + margin;
        if c.lng - dlng < -180.0 || c.lng + dlng > 180.0 {
            full
        } else {
            (c.lng - dlng, c.lng + dlng)
        }
    };
    BoundingBox {
        min_lat: min_lat.max(-90.0),
        max_lat: max_lat.min(90.0),
        min_lng,
        max_lng,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn haversine_matches_known_distances() {
        // Johannesburg to Cape Town is about 1,260 km.
        let d = haversine_km(-26.20227, 28.04363, -33.92584, 18.42322);
        assert!((d - 1265.0).abs() < 10.0, "{d}");
        assert_eq!(haversine_km(10.0, 20.0, 10.0, 20.0), 0.0);
        // A degree of latitude is R·π/180.
        let deg = haversine_km(0.0, 0.0, 1.0, 0.0);
        assert!((deg - EARTH_RADIUS_KM * std::f64::consts::PI / 180.0).abs() < 1e-9);
    }

    /// The chord decides membership exactly as haversine does, including
    /// points a hair inside and outside the edge.
    #[test]
    fn disc_membership_is_the_haversine_rule() {
        let mut checked = 0;
        for &(lat, lng, radius_km) in &[
            (-26.2041, 28.0473, 50.0),
            (-26.2041, 28.0473, 10.0),
            (-33.9, 18.4, 0.001),
            (0.0, 179.99, 25.0),
            (-89.99, 0.0, 50.0),
        ] {
            let disc = Disc::new(Circle {
                lat,
                lng,
                radius_km,
            });
            for step in 0..720 {
                let bearing = (step as f64 / 2.0).to_radians();
                // Just past the band where the chord alone decides, and in it.
                for scale in [
                    0.5,
                    0.9999,
                    0.999_999,
                    0.999_999_99,
                    1.0,
                    1.000_000_01,
                    1.000_001,
                    1.0001,
                    1.5,
                ] {
                    let ang = radius_km * scale / EARTH_RADIUS_KM;
                    let (p1, l1) = (lat.to_radians(), lng.to_radians());
                    let p2 = (p1.sin() * ang.cos() + p1.cos() * ang.sin() * bearing.cos()).asin();
                    let l2 = l1
                        + (bearing.sin() * ang.sin() * p1.cos())
                            .atan2(ang.cos() - p1.sin() * p2.sin());
                    let (plat, plng) = (p2.to_degrees(), l2.to_degrees());
                    let want = haversine_km(lat, lng, plat, plng) <= radius_km;
                    let got = disc.contains(&unit_vector32(plat, plng), plat, plng);
                    assert_eq!(got, want, "{lat},{lng} r {radius_km}: {plat},{plng}");
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 5 * 720 * 9);
    }

    #[test]
    fn the_box_holds_every_point_on_the_circle() {
        for &(lat, lng) in &[
            (-26.2, 28.0),
            (0.0, 0.0),
            (-89.9, 10.0),
            (60.0, 179.9),
            (-34.0, -179.95),
        ] {
            let c = Circle {
                lat,
                lng,
                radius_km: 50.0,
            };
            let b = bounding_box(&c);
            for step in 0..360 {
                // Walk the circle's edge by bearing, just inside the radius.
                let bearing = (step as f64).to_radians();
                let ang = 49.999 / EARTH_RADIUS_KM;
                let (p1, l1) = (lat.to_radians(), lng.to_radians());
                let p2 = (p1.sin() * ang.cos() + p1.cos() * ang.sin() * bearing.cos()).asin();
                let l2 = l1
                    + (bearing.sin() * ang.sin() * p1.cos()).atan2(ang.cos() - p1.sin() * p2.sin());
                let (plat, mut plng) = (p2.to_degrees(), l2.to_degrees());
                if plng > 180.0 {
                    plng -= 360.0
                }
                if plng < -180.0 {
                    plng += 360.0
                }
                assert!(haversine_km(lat, lng, plat, plng) <= 50.0);
                assert!(
                    plat >= b.min_lat && plat <= b.max_lat,
                    "{lat},{lng} lat {plat}"
                );
                assert!(
                    plng >= b.min_lng && plng <= b.max_lng,
                    "{lat},{lng} lng {plng}"
                );
            }
        }
    }
}
