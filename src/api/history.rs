//! Get Area History (`GET /v1/areas/{id}/history`) and the history that Get Area
//! includes on request.
//!
//! The window is the period's N days ending on the area's latest history date.
//! Weekly points are the mean of each ISO week (dated by its Monday), monthly
//! points the mean of each calendar month (dated the 1st); a partial week or
//! month at either edge counts with the days it has.

use rusqlite::{Connection, params};
use serde::Serialize;

use crate::api::params::{Granularity, HistoryParams};
use crate::dates::{self, Day};
use crate::domain::round2;
use crate::error::ApiResult;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Point {
    pub date: Day,
    pub truth_score: f64,
}

#[derive(Debug, Serialize)]
pub struct AreaHistory {
    pub area_id: String,
    pub period: &'static str,
    pub history: Vec<Point>,
    /// "up" when change ≥ 0.1, "down" when change ≤ -0.1, else "stable".
    pub trend: &'static str,
    /// Last returned point minus the first, in score points.
    pub change: f64,
}

const WINDOW: &str = "
    SELECT day, truth_score FROM history
    WHERE area_no = ?1 AND day > (SELECT max(day) FROM history WHERE area_no = ?1) - ?2
    ORDER BY day";

pub fn get(
    conn: &Connection,
    area_id: &str,
    area_no: i64,
    p: &HistoryParams,
) -> ApiResult<AreaHistory> {
    let history = points(conn, area_no, p)?;
    let change = match (history.first(), history.last()) {
        (Some(first), Some(last)) => round2(last.truth_score - first.truth_score),
        _ => 0.0,
    };
    let trend = if change >= 0.1 {
        "up"
    } else if change <= -0.1 {
        "down"
    } else {
        "stable"
    };
    Ok(AreaHistory {
        area_id: area_id.to_string(),
        period: p.period.0,
        history,
        trend,
        change,
    })
}

pub fn points(conn: &Connection, area_no: i64, p: &HistoryParams) -> ApiResult<Vec<Point>> {
    let days = conn
        .prepare_cached(WINDOW)?
        .query_map(params![area_no, p.period.1], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let bucket: fn(i64) -> i64 = match p.granularity {
        Granularity::Daily => |d| d,
        Granularity::Weekly => dates::week_monday,
        Granularity::Monthly => dates::month_start,
    };
    Ok(mean_by(&days, bucket))
}

/// Groups consecutive days by `bucket` and averages each group.
fn mean_by(days: &[(i64, f64)], bucket: fn(i64) -> i64) -> Vec<Point> {
    let mut out: Vec<(i64, f64, u32)> = Vec::new();
    for &(day, score) in days {
        let key = bucket(day);
        match out.last_mut() {
            Some((k, sum, n)) if *k == key => {
                *sum += score;
                *n += 1;
            }
            _ => out.push((key, score, 1)),
        }
    }
    out.into_iter()
        .map(|(key, sum, n)| Point {
            date: Day(key),
            truth_score: round2(sum / n as f64),
        })
        .collect()
}

#[cfg(test)]
mod tests {
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
}
