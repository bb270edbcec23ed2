//! A shape's mask against the shape itself, area by area and over a part of
//! the positions, and the ranks it holds against a filter: circles and boxes
//! at the poles and astride the antimeridian, floors exactly at an area's
//! score and above every score, a shape holding nothing and one holding
//! every area; and the cells a shape spans, which decide whether a mask pays.

use super::*;
use crate::search::index::geo::{Circle, Disc};
use crate::search::index::test_points::{cloud, discs_around, ranked_index};
use crate::search::shape::bbox::BBox;

const CENTRES: [(f64, f64); 5] = [
    (89.95, 40.0),
    (-89.8, 0.0),
    (0.0, 179.99),
    (0.0, -179.99),
    (-26.2, 28.05),
];

fn boxes() -> [BBox; 4] {
    let bbox = |min_lng, min_lat, max_lng, max_lat| BBox {
        min_lng,
        min_lat,
        max_lng,
        max_lat,
    };
    [
        bbox(179.5, -1.0, -179.5, 1.0),
        bbox(-180.0, 89.0, 180.0, 90.0),
        bbox(27.9, -26.4, 28.2, -26.0),
        bbox(100.0, 30.0, 101.0, 31.0),
    ]
}

#[test]
fn a_mask_holds_exactly_the_areas_its_shape_holds() {
    let points = cloud(&CENTRES, 600, 23);
    // Search ranks in the reverse of area_no.
    let index = ranked_index(&points, (1..=points.len() as u32).rev().collect());
    let mut discs = discs_around(&CENTRES, &[0.5, 20.0, 150.0]);
    // Every area, in a circle about the whole earth.
    discs.push(Some(Disc::new(Circle {
        lat: 0.0,
        lng: 0.0,
        radius_km: 20_100.0,
    })));
    let bboxes: Vec<Option<BBox>> = [None].into_iter().chain(boxes().map(Some)).collect();
    let floors = [0.0, points[9].2, points[300].2, 9.99, 10.0, 10.5];
    let (mut held, mut every, mut none, mut ranks_held) = (0, 0, 0, 0);
    for disc in &discs {
        for bbox in &bboxes {
            if disc.is_none() && bbox.is_none() {
                continue;
            }
            for &min_score in &floors {
                let shape = Shape {
                    min_score,
                    disc: disc.as_ref(),
                    bbox: bbox.as_ref(),
                    province: None,
                    kept: None,
                };
                let mask = index.mask(&shape, (0, index.area_count() - 1));
                let mut n = 0;
                for i in 0..index.area_count() {
                    let want = shape.holds(&index, i);
                    assert_eq!(mask.holds(&index, &shape, i), want, "{i} in {shape:?}");
                    n += usize::from(want);
                }
                // Over a part of the positions: those in it as above, none
                // past it.
                let part = (index.area_count() / 3, index.area_count() / 2);
                let mask = index.mask(&shape, part);
                for i in 0..index.area_count() {
                    let want = (part.0..=part.1).contains(&i) && shape.holds(&index, i);
                    assert_eq!(mask.holds(&index, &shape, i), want, "{i} in {part:?}");
                }
                // Ranks every seventh area's, in rank order: those held are
                // those the shape holds.
                let ranks: Vec<u32> = (1..=index.area_count() as u32).step_by(7).collect();
                let want: Vec<u32> = ranks
                    .iter()
                    .copied()
                    .filter(|&r| {
                        (index.position_of_rank(i64::from(r)))
                            .is_some_and(|i| shape.holds(&index, i))
                    })
                    .collect();
                assert_eq!(index.held(&shape, &ranks), want, "{shape:?}");
                ranks_held += usize::from(!want.is_empty());
                held += usize::from(n > 0);
                every += usize::from(n == index.area_count());
                none += usize::from(n == 0);
            }
        }
    }
    assert!(held > 100, "only {held} shapes held an area");
    assert!(every > 0 && none > 0, "every {every}, none {none}");
    assert!(ranks_held > 100, "only {ranks_held} shapes held a rank");
}

#[test]
fn a_shape_spans_the_cells_of_its_bounding_box() {
    let disc = Disc::new(Circle {
        lat: -26.2,
        lng: 28.05,
        radius_km: 50.0,
    });
    let shape = |disc, bbox| Shape {
        min_score: 0.0,
        disc,
        bbox,
        province: None,
        kept: None,
    };
    // 100 km by 100 km at 26 degrees south: about 45 rows by 50 columns.
    let cells = shape(Some(&disc), None).cells_spanned();
    assert!((2000..=2600).contains(&cells), "{cells}");
    let [astride, polar, joburg, _] = boxes();
    // 0.3 by 0.4 degrees: 16 columns by 21 rows, give or take the edges.
    let in_box = shape(None, Some(&joburg)).cells_spanned();
    assert!((300..=400).contains(&in_box), "{in_box}");
    // Both: the smaller.
    assert_eq!(shape(Some(&disc), Some(&joburg)).cells_spanned(), in_box);
    // Astride the antimeridian: both sides' columns, not the whole world's.
    let astride = shape(None, Some(&astride)).cells_spanned();
    assert!((5000..=5300).contains(&astride), "{astride}");
    // The whole width: every column.
    let every_col = (360.0 / CELL_DEG) as usize;
    assert!(shape(None, Some(&polar)).cells_spanned() >= 50 * every_col);
    assert!(shape(None, None).cells_spanned() >= every_col * every_col / 2);
}
