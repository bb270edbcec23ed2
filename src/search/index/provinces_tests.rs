//! A province's areas counted over its spans of the grid, against a brute
//! force over every area and against the count in score order: provinces
//! that are bands of latitude, one scattered over every band, and one with
//! no area; floors that cut nothing, an area's exact score, and every area.

use super::*;
use crate::search::index::test_points::{Lcg, cloud, index_of, ranked_index};
use crate::search::shape::region::Shape;

const CENTRES: [(f64, f64); 4] = [(-26.2, 28.05), (-33.9, 18.4), (-29.8, 31.0), (0.0, 179.95)];

/// The province slug of each area: by its band of latitude, but every
/// fifth area is in the Free State wherever it lies; Limpopo has none.
/// Gauteng is the band of one centre alone.
fn slug_of(i: usize, lat: f64) -> &'static str {
    match (i % 5, lat) {
        (0, _) => "free-state",
        (_, lat) if lat > -20.0 => "north-west",
        (_, lat) if lat > -28.0 => "gauteng",
        (_, lat) if lat > -31.0 => "kwazulu-natal",
        _ => "western-cape",
    }
}

#[test]
fn counts_over_a_provinces_spans_equal_brute_force() {
    let points = cloud(&CENTRES, 600, 23);
    let slugs: Vec<(u32, &str)> = (0..points.len())
        .map(|i| (i as u32 + 1, slug_of(i, points[i].0)))
        .collect();
    let index = index_of(&points).with_provinces(&slugs);
    let mut rng = Lcg(5);
    let mut checked = 0;
    for share in [0.0, 0.3, 1.0] {
        let mut bits = Bits::new(index.area_count());
        for i in 0..index.area_count() {
            if rng.unit() < share {
                bits.set(i);
            }
        }
        let by_score = index.in_score_order(&bits);
        for slug in [
            "gauteng",
            "kwazulu-natal",
            "western-cape",
            "free-state",
            "limpopo",
        ] {
            let province = index.province(slug).unwrap();
            for min_score in [0.0, points[9].2, 5.0, 9.99, 10.01] {
                let floor = index.floor(min_score);
                let mut want: Vec<usize> = (0..index.area_count())
                    .filter(|&i| {
                        let e = index.at(i);
                        bits.get(i)
                            && e.truth_score >= min_score
                            && slugs[e.area_no as usize - 1].1 == slug
                    })
                    .collect();
                let got = index.count_in_province(province, &floor, &[&bits]);
                assert_eq!(got, want.len(), "{slug} from {min_score}");
                let shape = Shape {
                    min_score,
                    disc: None,
                    bbox: None,
                    province: Some(province),
                    kept: None,
                };
                let in_score_order = index.count_scoring_in(&shape, &[&by_score]);
                assert_eq!(in_score_order, want.len(), "{slug} from {min_score}");
                let mut listed = Vec::new();
                index.each_in_province(province, &floor, &[&bits], |i| listed.push(i));
                want.sort_unstable();
                assert_eq!(listed, want, "{slug} from {min_score}");
                checked += usize::from(!want.is_empty());
            }
        }
    }
    assert!(checked > 20, "only {checked} counts found anything");
}

/// Without a floor a province's spans are never longer than every area,
/// so they are always the way; a floor above every score leaves no prefix.
#[test]
fn a_province_is_counted_over_its_spans_unless_the_floor_leaves_fewer() {
    let points = cloud(&CENTRES, 400, 29);
    let slugs: Vec<(u32, &str)> = (0..points.len())
        .map(|i| (i as u32 + 1, slug_of(i, points[i].0)))
        .collect();
    let index = index_of(&points).with_provinces(&slugs);
    for slug in ["gauteng", "free-state", "limpopo"] {
        let province = index.province(slug).unwrap();
        assert!(
            index.counts_by_province(province, &index.floor(0.0)),
            "{slug}"
        );
    }
    let gauteng = index.province("gauteng").unwrap();
    assert!(!index.counts_by_province(gauteng, &index.floor(10.01)));
    // Gauteng's centre is a band of its own: its spans cover far fewer
    // words than the whole grid.
    assert!(gauteng.span_words * 2 < index.area_count().div_ceil(64));
}

/// A province's bitmap by search rank holds the ranks of its areas: ranks
/// given in an order of their own, and an area with no rank in none.
#[test]
fn a_provinces_ranks_are_those_of_its_areas() {
    let points = cloud(&CENTRES, 300, 31);
    let slugs: Vec<(u32, &str)> = (0..points.len())
        .map(|i| (i as u32 + 1, slug_of(i, points[i].0)))
        .collect();
    // Rank r is area_no (r * 7) % n + 1; the last area has none.
    let n = points.len() as u32;
    let by_rank: Vec<u32> = (1..n)
        .map(|r| (r * 7) % n + 1)
        .filter(|&no| no != n)
        .collect();
    let index = ranked_index(&points, by_rank.clone()).with_provinces(&slugs);
    for slug in [
        "gauteng",
        "kwazulu-natal",
        "western-cape",
        "free-state",
        "limpopo",
    ] {
        let province = index.province(slug).unwrap();
        for (r, &no) in by_rank.iter().enumerate() {
            let rank = r as u32 + 1;
            assert_eq!(
                province.holds_rank(rank),
                slugs[no as usize - 1].1 == slug,
                "{slug} {rank}"
            );
        }
        assert!(
            !province.holds_rank(0) && !province.holds_rank(n + 5),
            "{slug}"
        );
    }
    let gauteng = index.province("gauteng").unwrap();
    assert!((1..=n).any(|r| gauteng.holds_rank(r)));
}
