//! Shapes over the grid against a brute force over every area: counts and
//! matches of bitmaps inside circles and boxes at the poles and astride the
//! antimeridian, a score floor exactly at an area's score, shapes that hold
//! nothing and one that holds every area; and the best of a viewport.

use super::*;
use crate::search::index::test_points::{Lcg, cloud, discs_around, index_of};

const CENTRES: [(f64, f64); 6] = [
    (89.9, 40.0),
    (-89.7, 0.0),
    (0.0, 179.95),
    (0.0, -179.95),
    (-26.2, 28.05),
    (10.0, 0.0),
];

/// A bitmap over the index's positions setting about `share` of them, and
/// the area_no of each position set.
fn random_bits(index: &AreaIndex, rng: &mut Lcg, share: f64) -> (Bits, Vec<bool>) {
    let mut bits = Bits::new(index.area_count());
    let mut by_no = vec![false; index.area_count() + 2];
    for i in 0..index.area_count() {
        if rng.unit() < share {
            bits.set(i);
            by_no[index.at(i).area_no as usize] = true;
        }
    }
    (bits, by_no)
}

fn boxes() -> Vec<BBox> {
    vec![
        // Astride the antimeridian, and each side of it.
        BBox {
            min_lng: 179.5,
            min_lat: -1.0,
            max_lng: -179.5,
            max_lat: 1.0,
        },
        BBox {
            min_lng: 179.9,
            min_lat: -0.5,
            max_lng: 180.0,
            max_lat: 0.5,
        },
        BBox {
            min_lng: -180.0,
            min_lat: -0.5,
            max_lng: -179.9,
            max_lat: 0.5,
        },
        // Up to the poles.
        BBox {
            min_lng: -180.0,
            min_lat: 89.0,
            max_lng: 180.0,
            max_lat: 90.0,
        },
        BBox {
            min_lng: -10.0,
            min_lat: -90.0,
            max_lng: 10.0,
            max_lat: -89.8,
        },
        BBox {
            min_lng: 27.9,
            min_lat: -26.4,
            max_lng: 28.2,
            max_lat: -26.0,
        },
        // Nothing in it.
        BBox {
            min_lng: 100.0,
            min_lat: 30.0,
            max_lng: 101.0,
            max_lat: 31.0,
        },
    ]
}

#[test]
fn counts_in_shapes_equal_brute_force_at_poles_and_antimeridian() {
    let points = cloud(&CENTRES, 700, 11);
    let index = index_of(&points);
    let mut rng = Lcg(3);
    let floors = [0.0, points[5].2, points[77].2, 7.5, 10.0, 10.01];
    let mut checked = 0;
    for share in [0.0, 0.3, 1.0] {
        let (bits, by_no) = random_bits(&index, &mut rng, share);
        // Counted beside `bits` in the same walk of the shape.
        let (beside, beside_by_no) = random_bits(&index, &mut rng, 0.5);
        let discs = discs_around(&CENTRES, &[1.0, 30.0, 120.0]);
        let mut bboxes: Vec<Option<BBox>> = boxes().into_iter().map(Some).collect();
        bboxes.push(None);
        for disc in &discs {
            for bbox in &bboxes {
                for &min_score in &floors {
                    // The first walk keeps the runs; the others read them.
                    let kept = KeptRuns::new();
                    let shape = Shape {
                        min_score,
                        disc: disc.as_ref(),
                        bbox: bbox.as_ref(),
                        province: None,
                        kept: Some(&kept),
                    };
                    let matching = |by_no: &[bool]| -> Vec<u32> {
                        (0..points.len())
                            .filter(|&i| {
                                let (lat, lng, score) = points[i];
                                by_no[i + 1]
                                    && score >= min_score
                                    && disc.is_none_or(|d| {
                                        d.distance_km(lat, lng) <= d.circle.radius_km
                                    })
                                    && bbox.is_none_or(|b| b.contains(lat, lng))
                            })
                            .map(|i| i as u32 + 1)
                            .collect()
                    };
                    let mut want = matching(&by_no);
                    assert_eq!(index.count_in(&shape, &[&bits]), want.len(), "{shape:?}");
                    assert_eq!(
                        index.count_in_each(&shape, [&[&bits][..], &[&beside][..]]),
                        [want.len(), matching(&beside_by_no).len()],
                        "{shape:?}"
                    );
                    let mut got = Vec::new();
                    index.each_in(&shape, &[&bits], |i, e| {
                        assert_eq!(index.at(i).area_no, e.area_no);
                        got.push(e.area_no)
                    });
                    got.sort_unstable();
                    want.sort_unstable();
                    assert_eq!(got, want, "{shape:?}");
                    checked += usize::from(!want.is_empty());
                }
            }
        }
    }
    assert!(checked > 300, "only {checked} shapes held anything");
}

/// No shape but the floor: every area counts at floor 0, none above 10,
/// and an area scoring exactly the floor is in.
#[test]
fn the_floor_alone_counts_every_area_or_none_or_the_exact_score() {
    let points = cloud(&CENTRES, 300, 5);
    let index = index_of(&points);
    let all = {
        let mut b = Bits::new(index.area_count());
        (0..index.area_count()).for_each(|i| b.set(i));
        b
    };
    let shape = |min_score| Shape {
        min_score,
        disc: None,
        bbox: None,
        province: None,
        kept: None,
    };
    assert_eq!(index.count_in(&shape(0.0), &[&all]), points.len());
    assert_eq!(index.count_in(&shape(10.5), &[&all]), 0);
    for (_, _, score) in points.iter().take(40) {
        let want = points.iter().filter(|p| p.2 >= *score).count();
        assert_eq!(index.count_in(&shape(*score), &[&all]), want);
        assert_eq!(index.count_scoring(*score) as usize, want);
        // Just above the score, that area is out.
        let above = points.iter().filter(|p| p.2 > *score).count();
        assert_eq!(index.count_scoring(score + 1e-9) as usize, above);
    }
    assert_eq!(index.count_scoring(0.0) as usize, points.len());
    assert_eq!(index_of(&[]).count_scoring(0.0), 0);
}

/// A bitmap in score order counts and lists, above any floor (exact, none,
/// every area), what the same bitmap in grid order does over all cells.
#[test]
fn score_order_counts_what_the_grid_counts() {
    let mut points = cloud(&CENTRES, 400, 17);
    for p in points.iter_mut().step_by(5) {
        p.2 = 4.5; // ties, broken by area_no
    }
    let index = index_of(&points);
    let mut rng = Lcg(9);
    for share in [0.0, 0.2, 1.0] {
        let (bits, _) = random_bits(&index, &mut rng, share);
        let by_score = index.in_score_order(&bits);
        for min_score in [0.0, 4.5, points[3].2, 9.0, 10.0, 11.0] {
            let shape = Shape {
                min_score,
                disc: None,
                bbox: None,
                province: None,
                kept: None,
            };
            let want = index.count_in(&shape, &[&bits]);
            assert_eq!(
                index.count_scoring_in(&shape, &[&by_score]),
                want,
                "{min_score}"
            );
            let mut got = Vec::new();
            index.each_scoring_in(&shape, &[&by_score], |i, e| {
                assert!(bits.get(i) && e.truth_score >= min_score);
                got.push((e.truth_score, e.area_no));
            });
            assert_eq!(got.len(), want);
            // In score order: best first, ties by area_no.
            assert!(
                got.windows(2)
                    .all(|w| w[0].0 > w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1))
            );
        }
    }
}

/// The best areas of a viewport, merged from its cells, are the first of
/// all its areas sorted by score descending, ties by area_no.
#[test]
fn the_best_of_a_viewport_equal_brute_force() {
    let mut points = cloud(&CENTRES, 500, 13);
    // Ties: several areas with one score.
    for p in points.iter_mut().step_by(7) {
        p.2 = 6.25;
    }
    let index = index_of(&points);
    let mut whole_world = boxes();
    whole_world.push(BBox {
        min_lng: -180.0,
        min_lat: -90.0,
        max_lng: 180.0,
        max_lat: 90.0,
    });
    for bbox in &whole_world {
        for min_score in [0.0, 6.25, 9.0] {
            let mut want: Vec<(f64, u32)> = (0..points.len())
                .filter(|&i| points[i].2 >= min_score && bbox.contains(points[i].0, points[i].1))
                .map(|i| (points[i].2, i as u32 + 1))
                .collect();
            want.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            for k in [0, 1, 20, 5000] {
                let (total, best) = index.best_in_box(bbox, min_score, None, k);
                assert_eq!(total, want.len(), "{bbox:?} {min_score}");
                let want_k: Vec<u32> = want.iter().take(k).map(|w| w.1).collect();
                assert_eq!(best, want_k, "{bbox:?} {min_score} k {k}");
            }
        }
    }
    let (total, _) = index.best_in_box(whole_world.last().unwrap(), 0.0, None, 1);
    assert_eq!(total, points.len());
}

/// A cell's areas scoring at least a floor, against a count of them: floors
/// at an area's score, between scores, above and below every score; and past
/// the 65,535 distinct scores the compact places hold, where the count falls
/// back to the scores themselves.
#[test]
fn scoring_in_cell_counts_exactly_past_every_distinct_score() {
    for distinct in [5, 70_000] {
        // One cell near Johannesburg, every score distinct from 0 up to 10.
        let score = |i: usize| 10.0 * i as f64 / (distinct - 1) as f64;
        let areas = (0..distinct)
            .map(|i| (i as u32 + 1, -26.201, 28.001, score(i)))
            .collect();
        let index = AreaIndex::new(areas, (1..=distinct as u32).collect());
        let cell = index.cells()[0];
        assert_eq!(index.cells().len(), 1);
        let at = |i: usize| score(i);
        for min in [
            0.0,
            -1.0,
            10.0,
            10.5,
            at(1),
            at(distinct / 2),
            at(distinct - 2),
            at(3) + 1e-9,
            at(distinct - 66_000.min(distinct - 1)),
        ] {
            let want = (0..distinct).filter(|&i| score(i) >= min).count();
            let floor = index.floor(min);
            assert_eq!(
                index.scoring_in_cell(&cell, &floor),
                want,
                "{distinct} scores, floor {min}"
            );
            assert_eq!(index.scoring_run(&cell, &floor), (0, want));
            // Areas are best first: the last one in and the first one out.
            for i in [0, want.saturating_sub(1), want, distinct - 1] {
                let e = index.at(i.min(distinct - 1));
                let at_least = index.scores_at_least(i.min(distinct - 1), &floor);
                assert_eq!(at_least, e.truth_score >= min, "position {i}, floor {min}");
            }
        }
    }
}
