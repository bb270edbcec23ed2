//! An area's daily history: the operator's points, checked against updated_at,
//! ending on truth_score, with each point carried forward over the days
//! until the next, since the database and the API keep one score per day.

use super::rules::{self, Invalid, keep};
use crate::dates;

/// A point of an area's history as the file gives it, not yet checked.
#[derive(Debug, Clone)]
pub struct DraftPoint {
    pub date: String,
    pub score: Option<f64>,
}

/// The widest span of history one area may carry, in days (about ten years).
/// The API serves at most the last 365 days; this mainly catches a mistyped year.
pub const MAX_HISTORY_DAYS: i64 = 3660;

/// The history points, checked, sorted by day, and the update they lead to.
pub struct Points {
    days: Vec<(i64, f64)>,
    end_day: i64,
    updated_at: String,
}

/// Checks every point and updated_at: real dates, scores, no repeated date,
/// nothing after updated_at, updated_at not in the future (a day of slack for
/// time zones), at most `MAX_HISTORY_DAYS`. Without updated_at, the last
/// history date is the last update; with neither, the time of the import.
pub fn points(
    points: &[DraftPoint],
    updated_at: Option<&str>,
    now: i64,
) -> Result<Points, Vec<String>> {
    let mut problems = Vec::new();
    let mut days: Vec<(i64, f64)> = Vec::new();
    for p in points {
        let day = keep(&mut problems, rules::date("history date", &p.date));
        let field = format!("history score on {}", p.date);
        let score = p
            .score
            .and_then(|s| keep(&mut problems, rules::score(&field, s)));
        if let (Some(day), Some(score)) = (day, score) {
            if days.iter().any(|(d, _)| *d == day) {
                problems.push(format!("history has {} twice", p.date));
            }
            days.push((day, score));
        }
    }
    days.sort_by_key(|(d, _)| *d);
    let end = match updated_at.map(rules::timestamp) {
        Some(Ok(end)) => end,
        Some(Err(e)) => {
            problems.push(e.to_string());
            return Err(problems);
        }
        None => match days.last() {
            Some((day, _)) => (*day, format!("{}T00:00:00Z", dates::format_date(*day))),
            None => (now.div_euclid(86_400), dates::format_timestamp(now)),
        },
    };
    let (end_day, updated_at) = end;
    problems.extend(against_update(&days, end_day, &updated_at, now));
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Points {
        days,
        end_day,
        updated_at,
    })
}

fn against_update(days: &[(i64, f64)], end_day: i64, updated_at: &str, now: i64) -> Option<String> {
    let tomorrow = now.div_euclid(86_400) + 1;
    if end_day > tomorrow {
        return Some(format!("updated_at {updated_at} is in the future"));
    }
    if let Some((day, _)) = days.iter().find(|(d, _)| *d > end_day) {
        let day = dates::format_date(*day);
        return Some(format!(
            "history date {day} is after updated_at {updated_at}"
        ));
    }
    let first = days.first().map_or(end_day, |(d, _)| *d);
    let span = end_day - first + 1;
    (span > MAX_HISTORY_DAYS).then(|| {
        let first = dates::format_date(first);
        format!("history spans {span} days, more than {MAX_HISTORY_DAYS}: it starts on {first}")
    })
}

/// The stored history: a point on updated_at's date must equal truth_score,
/// and when there is none the importer adds it. Returns (updated_at, first
/// day, one score per day).
pub fn end_on_truth(p: Points, truth: f64) -> Result<(String, i64, Vec<f64>), Invalid> {
    let mut days = p.days;
    match days.last() {
        Some(&(day, score)) if day == p.end_day && score != truth => {
            return Err(Invalid::LastPointNotTruth {
                day: dates::format_date(day),
                score,
                truth,
            });
        }
        Some(&(day, _)) if day == p.end_day => {}
        _ => days.push((p.end_day, truth)),
    }
    Ok((p.updated_at, days[0].0, fill(&days)))
}

/// One score per day: each point holds until the next one.
fn fill(days: &[(i64, f64)]) -> Vec<f64> {
    let mut out = Vec::new();
    for (i, &(day, score)) in days.iter().enumerate() {
        let next = days.get(i + 1).map_or(day + 1, |(d, _)| *d);
        out.extend(std::iter::repeat_n(score, (next - day) as usize));
    }
    out
}
