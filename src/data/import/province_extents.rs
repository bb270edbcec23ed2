//! Where each province lies, roughly: a box per province, and the warning
//! an import prints for an area far outside its province's box (a
//! Johannesburg suburb tagged western-cape). A warning, not a problem: the
//! boxes are coarse, and the operator may know better.

use crate::search::index::geo::haversine_km;

/// How far outside its province's box an area may lie before the import
/// warns about it.
pub const PROVINCE_WARNING_KM: f64 = 50.0;

/// A box of longitude and latitude, in degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Extent {
    pub min_lng: f64,
    pub min_lat: f64,
    pub max_lng: f64,
    pub max_lat: f64,
}

/// Each province's box: the extent of its places in seed/za-areas.csv
/// (GeoNames), widened by 0.5 degree on each side and rounded outward to a
/// tenth of a degree, so that a real place beyond the seed's is rarely
/// warned about. Neighbouring boxes overlap: the warning catches a
/// province far off, not the one next door.
pub const PROVINCE_EXTENTS: [(&str, Extent); 9] = [
    ("eastern-cape", extent(22.6, -34.7, 30.4, -29.7)),
    ("free-state", extent(24.2, -31.2, 30.1, -26.2)),
    ("gauteng", extent(26.7, -27.4, 29.4, -24.9)),
    ("kwazulu-natal", extent(28.8, -31.6, 33.3, -26.4)),
    ("limpopo", extent(26.6, -25.9, 31.7, -21.8)),
    ("mpumalanga", extent(27.9, -27.9, 32.5, -24.0)),
    ("north-west", extent(23.0, -28.5, 28.8, -24.7)),
    ("northern-cape", extent(15.9, -32.5, 25.6, -26.3)),
    ("western-cape", extent(17.3, -35.4, 24.3, -31.0)),
];

const fn extent(min_lng: f64, min_lat: f64, max_lng: f64, max_lat: f64) -> Extent {
    Extent {
        min_lng,
        min_lat,
        max_lng,
        max_lat,
    }
}

/// How far the point lies outside the box, in kilometres (0 inside): the
/// distance to the box's nearest point.
pub fn km_outside(e: &Extent, lat: f64, lng: f64) -> f64 {
    let nearest_lat = lat.clamp(e.min_lat, e.max_lat);
    let nearest_lng = lng.clamp(e.min_lng, e.max_lng);
    haversine_km(lat, lng, nearest_lat, nearest_lng)
}

/// The warning for an area more than `PROVINCE_WARNING_KM` outside its
/// province's box, naming the province and the distance.
pub fn warning(province_slug: &str, lat: f64, lng: f64) -> Option<String> {
    let (_, e) = PROVINCE_EXTENTS.iter().find(|(s, _)| *s == province_slug)?;
    let km = km_outside(e, lat, lng);
    (km > PROVINCE_WARNING_KM).then(|| {
        format!(
            "lat {lat} and lng {lng} lie {km:.0} km outside the box of {province_slug} (more than \
             the {PROVINCE_WARNING_KM} km allowed): check the province and the coordinates"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::PROVINCES;

    #[test]
    fn every_province_has_one_box() {
        for (slug, _) in PROVINCES {
            let boxes = PROVINCE_EXTENTS.iter().filter(|(s, _)| *s == slug);
            assert_eq!(boxes.count(), 1, "{slug}");
        }
    }

    #[test]
    fn no_seed_place_is_warned_about() {
        let places = crate::data::seed::seed_places().unwrap();
        assert_eq!(places.len(), 938);
        for p in places {
            assert_eq!(warning(&p.province_slug, p.lat, p.lng), None, "{}", p.id);
        }
    }

    #[test]
    fn a_johannesburg_suburb_tagged_western_cape_is_warned_about() {
        let w = warning("western-cape", -26.1076, 28.0567).unwrap();
        assert!(
            w.contains("lie 656 km outside the box of western-cape"),
            "{w}"
        );
        assert_eq!(warning("gauteng", -26.1076, 28.0567), None);
    }

    #[test]
    fn the_distance_is_to_the_nearest_edge() {
        let e = extent(20.0, -30.0, 21.0, -29.0);
        assert_eq!(km_outside(&e, -29.5, 20.5), 0.0);
        let one_degree_north = km_outside(&e, -28.0, 20.5);
        assert!((one_degree_north - 111.2).abs() < 0.5, "{one_degree_north}");
    }
}
