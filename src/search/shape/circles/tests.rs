//! Circle searches against a brute-force haversine over every area.

use super::*;
use crate::search::index::geo::Circle;
use crate::search::index::geo::haversine_km;
use crate::search::index::test_points::{cloud, index_of};

/// The areas within `circle` that `keep` admits (by area_no and point),
/// nearest first, ties by area_no, by haversine over every area.
fn brute_force(
    points: &[(f64, f64, f64)],
    circle: &Circle,
    keep: impl Fn(i64, &(f64, f64, f64)) -> bool,
) -> Vec<Hit> {
    let mut want: Vec<Hit> = points
        .iter()
        .enumerate()
        .map(|(i, p)| (i as i64 + 1, p))
        .filter(|(no, p)| keep(*no, p))
        .map(|(no, p)| Hit {
            area_no: no,
            distance_km: haversine_km(circle.lat, circle.lng, p.0, p.1),
        })
        .filter(|h| h.distance_km <= circle.radius_km)
        .collect();
    want.sort_by(|a, b| {
        a.distance_km
            .total_cmp(&b.distance_km)
            .then(a.area_no.cmp(&b.area_no))
    });
    want
}

/// Every circle, k, minimum score and left-out area gives exactly what a
/// brute-force haversine over all areas gives, near the antimeridian and
/// a pole too, where the rings give way to a full scan.
#[test]
fn nearest_equals_brute_force_everywhere() {
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
    let points = cloud(&centres, 1500, 7);
    let index = index_of(&points);
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
            let want = brute_force(&points, &circle, |no, p| {
                p.2 >= min_score && Some(no) != skip
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

/// A circle and a viewport together hold exactly the areas in both, nearest
/// first, across the antimeridian too.
#[test]
fn nearest_in_a_box_equals_brute_force() {
    let centres = [(-26.2, 28.05), (0.0, 179.95), (-33.9, 18.4)];
    let points = cloud(&centres, 1500, 11);
    let index = index_of(&points);
    let boxes = [
        BBox {
            min_lng: 27.9,
            min_lat: -26.4,
            max_lng: 28.1,
            max_lat: -26.1,
        },
        BBox {
            min_lng: 179.9,
            min_lat: -0.3,
            max_lng: -179.8,
            max_lat: 0.2,
        },
        BBox {
            min_lng: 18.0,
            min_lat: -34.0,
            max_lng: 19.0,
            max_lat: -33.0,
        },
        BBox {
            min_lng: 28.05,
            min_lat: -26.2,
            max_lng: 28.05,
            max_lat: -26.2,
        },
    ];
    let mut checked = 0;
    for &(lat, lng) in &centres {
        for bbox in &boxes {
            for (radius_km, min_score) in [(50.0, 0.0), (10.0, 5.0)] {
                let circle = Circle {
                    lat,
                    lng,
                    radius_km,
                };
                let want = brute_force(&points, &circle, |_, p| {
                    p.2 >= min_score && bbox.contains(p.0, p.1)
                });
                let got = index.nearest_within(
                    &Disc::new(circle),
                    Within {
                        bbox: Some(bbox),
                        province: None,
                    },
                    min_score,
                    15,
                );
                assert_eq!(got.total, want.len(), "{circle:?} {bbox:?}");
                assert_eq!(got.hits, want[..15.min(want.len())], "{circle:?} {bbox:?}");
                checked += usize::from(!want.is_empty());
            }
        }
    }
    assert!(checked >= 6, "several combinations hold areas: {checked}");
}
