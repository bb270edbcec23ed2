//! Distances on the Earth, and the bounding box that surely holds a circle.
//! The box only ever errs on the large side; area_index.rs narrows with it,
//! then measures the exact haversine distance.

use crate::params::Circle;

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
