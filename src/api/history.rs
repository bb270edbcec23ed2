//! Get Area History (`GET /v1/areas/{id}/history`) and the history that Get Area
//! includes on request.
//!
//! The window is the period's N days ending on the area's latest history date.
//! Weekly points are the mean of each ISO week (dated by its Monday), monthly
//! points the mean of each calendar month (dated the 1st); a partial week or
//! month at either edge counts with the days it has.

use rusqlite::Connection;
use serde::Serialize;

use crate::api::params::{Granularity, HistoryParams};
use crate::api::render::write_json;
use crate::data::recent_history;
use crate::dates::{self, Day, DayRun};
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

impl AreaHistory {
    /// The JSON body, byte for byte as serde writes it (a test compares
    /// them), written by hand: serde's way through 365 dates and scores was
    /// a quarter of a daily history's time (bench/PROFILE.md).
    pub fn json(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.history.len() * POINT_BYTES);
        out.extend_from_slice(b"{\"area_id\":");
        write_json(&mut out, &self.area_id);
        out.extend_from_slice(b",\"period\":");
        write_json(&mut out, self.period);
        out.extend_from_slice(b",\"history\":");
        write_points(&mut out, &self.history);
        out.extend_from_slice(b",\"trend\":");
        write_json(&mut out, self.trend);
        out.extend_from_slice(b",\"change\":");
        write_score(&mut out, self.change);
        out.push(b'}');
        out
    }
}

/// About how many bytes a point takes in JSON, to size a body once.
const POINT_BYTES: usize = 44;

/// Points as a JSON array, as serde writes `Vec<Point>`.
pub fn write_points(out: &mut Vec<u8>, points: &[Point]) {
    out.push(b'[');
    let mut dates = DayRun::default();
    for (i, p) in points.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"date\":\"");
        dates.write(p.date, out);
        out.extend_from_slice(b"\",\"truth_score\":");
        write_score(out, p.truth_score);
        out.push(b'}');
    }
    out.push(b']');
}

/// A number rounded to hundredths as serde writes it (the shortest decimal
/// that reads back as the same f64: "6.0", "6.4", "6.42"), from its
/// hundredths; anything else, serde's own way.
fn write_score(out: &mut Vec<u8>, score: f64) {
    let hundredths = (score * 100.0).round();
    let plain = score.is_sign_positive() && score < 1e7 && hundredths / 100.0 == score;
    if !plain {
        write_json(out, &score);
        return;
    }
    let n = hundredths as u64;
    let (whole, cents) = (n / 100, n % 100);
    let digit = |d: u64| b'0' + d as u8;
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = whole;
    loop {
        at -= 1;
        digits[at] = digit(rest % 10);
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
    out.push(b'.');
    out.push(digit(cents / 10));
    if cents % 10 != 0 {
        out.push(digit(cents % 10));
    }
}

/// The period's points, one a day, week or month.
pub fn points(conn: &Connection, area_no: i64, p: &HistoryParams) -> ApiResult<Vec<Point>> {
    let days = recent_history::window(conn, area_no, p.period.1)?;
    Ok(mean_by(&days, bucket_of(p.granularity)))
}

/// The first day of the point a day belongs to.
fn bucket_of(granularity: Granularity) -> fn(i64) -> i64 {
    match granularity {
        Granularity::Daily => |d| d,
        Granularity::Weekly => dates::week_monday,
        Granularity::Monthly => dates::month_start,
    }
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
            // One day's score is in hundredths already (docs/import.md,
            // "Rounding"): a daily history's 365 points skip the rounding.
            truth_score: if n == 1 { sum } else { round2(sum / n as f64) },
        })
        .collect()
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
