//! History's points and its JSON: weekly and monthly means, the body serde
//! would write, and the packed year against the history rows.

use super::*;

#[test]
fn weekly_means_are_dated_by_monday_and_count_partial_weeks() {
    let sunday = dates::from_civil(2026, 11, 22);
    // Saturday, Sunday (one week), Monday (the next).
    let days = [(sunday - 1, 5.0), (sunday, 6.0), (sunday + 1, 7.0)];
    let points = mean_by(&days, dates::week_monday);
    assert_eq!(
        points,
        vec![
            Point {
                date: Day(dates::from_civil(2026, 11, 16)),
                truth_score: 5.5
            },
            Point {
                date: Day(dates::from_civil(2026, 11, 23)),
                truth_score: 7.0
            },
        ]
    );
}

#[test]
fn the_json_is_what_serde_writes() {
    let day = dates::from_civil(2025, 11, 27);
    // Every score in hundredths from 0 to 10, the means of odd counts,
    // and values serde writes its own way (negative, -0, huge, tiny).
    let mut scores: Vec<f64> = (0..=1000).map(|n| round2(n as f64 / 100.0)).collect();
    scores.extend((1..200).map(|n| round2(10.0 / n as f64)));
    scores.extend([-0.0, -1.25, 1e7, 1e16, 0.001, 1.0 / 3.0, 99999.99]);
    for (i, change) in [0.0, -0.0, -0.35, 0.1, 12.5, -1e-9].into_iter().enumerate() {
        let history = AreaHistory {
            area_id: format!("area-\"{i}\"\\é"),
            period: "1y",
            history: scores
                .iter()
                .enumerate()
                .map(|(k, &truth_score)| Point {
                    date: Day(day + k as i64),
                    truth_score,
                })
                .collect(),
            trend: "stable",
            change,
        };
        let by_hand = String::from_utf8(history.json()).unwrap();
        assert_eq!(by_hand, serde_json::to_string(&history).unwrap());
    }
}

#[test]
fn the_packed_year_gives_the_rows_points_for_every_area_period_and_granularity() {
    use crate::api::contract::{GRANULARITIES, PERIODS};
    let (dir, path) = crate::api::test_seed::seed_file("packed-history");
    let conn = Connection::open(&path).unwrap();
    let areas: Vec<i64> = conn
        .prepare("SELECT area_no FROM areas")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let packed: i64 = conn
        .query_row("SELECT count(*) FROM recent_history", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        packed as usize,
        areas.len(),
        "every seeded area has its year packed"
    );
    for &no in &areas {
        for period in PERIODS {
            for (_, granularity) in GRANULARITIES {
                let p = HistoryParams {
                    period,
                    granularity,
                };
                let days = recent_history::rows(&conn, no, p.period.1).unwrap();
                let rows = mean_by(&days, bucket_of(p.granularity));
                assert!(!rows.is_empty(), "area {no} has history");
                assert_eq!(points(&conn, no, &p).unwrap(), rows, "area {no}, {p:?}");
            }
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn monthly_means_are_dated_on_the_first() {
    let d = dates::from_civil(2026, 10, 31);
    let points = mean_by(&[(d, 4.0), (d + 1, 5.0), (d + 2, 6.0)], dates::month_start);
    assert_eq!(
        points[0],
        Point {
            date: Day(dates::from_civil(2026, 10, 1)),
            truth_score: 4.0
        }
    );
    assert_eq!(
        points[1],
        Point {
            date: Day(dates::from_civil(2026, 11, 1)),
            truth_score: 5.5
        }
    );
}
