//! Viewports against a brute-force check over every area: boxes of every
//! size, across the antimeridian, at the poles, on their edges, and with a
//! score floor met exactly.

use super::*;
use crate::search::index::test_points::{Lcg, cloud, index_of};

/// The area_nos a brute force finds in a box, in area_no order.
fn brute_force(points: &[(f64, f64, f64)], bbox: &BBox, min_score: f64) -> Vec<u32> {
    points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.2 >= min_score && bbox.contains(p.0, p.1))
        .map(|(i, _)| i as u32 + 1)
        .collect()
}

fn found(index: &AreaIndex, bbox: &BBox, min_score: f64) -> Vec<u32> {
    let mut got: Vec<u32> = index.in_box(bbox, min_score).map(|e| e.area_no).collect();
    got.sort_unstable();
    got
}

#[test]
fn random_boxes_hold_exactly_the_areas_brute_force_finds() {
    let centres = [
        (-26.2, 28.05),
        (0.0, 179.95),
        (89.9, 0.0),
        (-89.9, 45.0),
        (-33.9, 18.4),
    ];
    let points = cloud(&centres, 1200, 3);
    let index = index_of(&points);
    let mut rng = Lcg(5);
    let mut nonempty = 0;
    for i in 0..400 {
        let (lat, lng) = centres[i % centres.len()];
        let span = |rng: &mut Lcg| rng.unit() * [0.01, 0.3, 2.0][i % 3];
        let south = (lat - span(&mut rng)).max(-90.0);
        let north = (lat + span(&mut rng)).min(90.0);
        let wrap = |x: f64| (x + 540.0).rem_euclid(360.0) - 180.0;
        let bbox = BBox {
            min_lng: wrap(lng - span(&mut rng)),
            min_lat: south,
            max_lng: wrap(lng + span(&mut rng)),
            max_lat: north,
        };
        let min_score = [0.0, 5.0, 9.9][i % 3];
        let want = brute_force(&points, &bbox, min_score);
        assert_eq!(
            found(&index, &bbox, min_score),
            want,
            "{bbox:?} min {min_score}"
        );
        nonempty += usize::from(!want.is_empty());
    }
    assert!(nonempty > 200, "most boxes hold areas: {nonempty}");
}

#[test]
fn edges_count_as_inside_and_a_score_at_the_floor_is_in() {
    let points = vec![(-26.0, 28.0, 5.0), (-26.5, 28.5, 4.99), (-25.0, 29.0, 7.0)];
    let index = index_of(&points);
    let exact = BBox {
        min_lng: 28.0,
        min_lat: -26.5,
        max_lng: 28.5,
        max_lat: -26.0,
    };
    assert_eq!(found(&index, &exact, 0.0), vec![1, 2]);
    assert_eq!(
        found(&index, &exact, 5.0),
        vec![1],
        "5.0 meets a floor of 5"
    );
    let point = BBox {
        min_lng: 29.0,
        min_lat: -25.0,
        max_lng: 29.0,
        max_lat: -25.0,
    };
    assert_eq!(found(&index, &point, 0.0), vec![3], "a box of one point");
    let empty = BBox {
        min_lng: 10.0,
        min_lat: 10.0,
        max_lng: 11.0,
        max_lat: 11.0,
    };
    assert!(found(&index, &empty, 0.0).is_empty());
}

#[test]
fn the_whole_world_holds_every_area_and_the_antimeridian_splits_it() {
    let points = vec![
        (0.0, 179.99, 1.0),
        (0.0, -179.99, 2.0),
        (0.0, 0.0, 3.0),
        (90.0, 180.0, 4.0),
        (-90.0, -180.0, 5.0),
    ];
    let index = index_of(&points);
    let world = BBox {
        min_lng: -180.0,
        min_lat: -90.0,
        max_lng: 180.0,
        max_lat: 90.0,
    };
    assert_eq!(found(&index, &world, 0.0), vec![1, 2, 3, 4, 5]);
    let across = BBox {
        min_lng: 179.0,
        min_lat: -1.0,
        max_lng: -179.0,
        max_lat: 1.0,
    };
    assert_eq!(found(&index, &across, 0.0), vec![1, 2]);
    let not_across = BBox {
        min_lng: -179.0,
        min_lat: -1.0,
        max_lng: 179.0,
        max_lat: 1.0,
    };
    assert_eq!(found(&index, &not_across, 0.0), vec![3]);
}

/// Longitude 180 and -180 are one meridian: a box that ends at either side
/// holds an area written with the other.
#[test]
fn an_area_on_the_antimeridian_is_in_a_box_that_ends_on_either_side() {
    let points = vec![
        (10.0, 180.0, 1.0),
        (10.0, -180.0, 2.0),
        (10.0, -179.5, 3.0),
        (10.0, 179.5, 4.0),
    ];
    let index = index_of(&points);
    let boxed = |min_lng, max_lng| BBox {
        min_lng,
        min_lat: 9.0,
        max_lng,
        max_lat: 11.0,
    };
    let (west, east, elsewhere) = (
        boxed(-180.0, -179.0),
        boxed(179.0, 180.0),
        boxed(-179.9, 179.9),
    );
    assert_eq!(found(&index, &west, 0.0), vec![1, 2, 3]);
    assert_eq!(found(&index, &east, 0.0), vec![1, 2, 4]);
    assert_eq!(found(&index, &elsewhere, 0.0), vec![3, 4]);
    for bbox in [west, east, elsewhere] {
        let want = brute_force(&points, &bbox, 0.0);
        assert_eq!(found(&index, &bbox, 0.0), want, "{bbox:?}");
    }
}
