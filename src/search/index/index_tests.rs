use crate::search::index::test_points::ranked_index;

/// Lookups by area_no and by search rank, and counting by score; circle
/// searches over the grid are tested in circles.rs.
#[test]
fn areas_are_found_by_number_and_rank_and_counted_by_score() {
    let points: Vec<(f64, f64, f64)> = (0..1600)
        .map(|i| {
            (
                -27.0 + (i / 40) as f64 * 0.05,
                27.5 + (i % 40) as f64 * 0.05,
                (i % 19) as f64 / 2.0,
            )
        })
        .collect();
    let idx = ranked_index(&points, vec![3, 1, 2]);
    assert_eq!(
        idx.get(7).map(|e| (e.lat, e.lng)),
        Some((points[6].0, points[6].1))
    );
    assert!(idx.get(0).is_none() && idx.get(1601).is_none() && idx.get(-1).is_none());
    let area_of = |rank| idx.by_rank(rank).map(|e| e.area_no);
    assert_eq!((area_of(1), area_of(3)), (Some(3), Some(2)));
    assert_eq!((area_of(0), area_of(4)), (None, None));
    for min in [0.0, 4.5, 9.0, 9.5] {
        let want = points.iter().filter(|p| p.2 >= min).count() as i64;
        assert_eq!(idx.count_scoring(min), want, "min {min}");
    }
}
