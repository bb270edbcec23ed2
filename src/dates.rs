//! Calendar arithmetic on days since 1970-01-01 (UTC), the unit history is stored in.
//!
//! The conversions are the standard proleptic-Gregorian day-count formulas, so
//! no date crate is needed for the few things the API does with dates.

use std::time::{SystemTime, UNIX_EPOCH};

pub const SECONDS_PER_DAY: i64 = 86_400;
pub const SECONDS_PER_HOUR: i64 = 3_600;

/// Today's day number in UTC.
pub fn today() -> i64 {
    now_unix().div_euclid(SECONDS_PER_DAY)
}

pub fn now_unix() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Day number of a calendar date.
pub fn from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let m = month as i64;
    let day_of_year = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// Calendar date (year, month 1-12, day 1-31) of a day number.
pub fn to_civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = year_of_era + era * 400 + if month <= 2 { 1 } else { 0 };
    (year, month, day)
}

/// `YYYY-MM-DD`.
pub fn format_date(days: i64) -> String {
    Day(days).to_string()
}

/// `YYYY-MM-DD` as bytes, digit by digit, for the years 0 to 9999: a daily
/// history writes 365 dates an answer, and format! took most of the time
/// spent building its points.
fn date_text(days: i64) -> Option<[u8; 10]> {
    let (y, m, d) = to_civil(days);
    let y = u32::try_from(y).ok().filter(|&y| y <= 9999)?;
    let digit = |n: u32| b'0' + (n % 10) as u8;
    Some([
        digit(y / 1000),
        digit(y / 100),
        digit(y / 10),
        digit(y),
        b'-',
        digit(m / 10),
        digit(m),
        b'-',
        digit(d / 10),
        digit(d),
    ])
}

/// A day number shown as `YYYY-MM-DD`, written where it is shown without a
/// string of its own: one for each of a daily history's 365 points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Day(pub i64);

impl std::fmt::Display for Day {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match date_text(self.0) {
            // The digits and dashes are ASCII.
            Some(text) => f.write_str(std::str::from_utf8(&text).unwrap_or_default()),
            None => {
                let (y, m, d) = to_civil(self.0);
                write!(f, "{y:04}-{m:02}-{d:02}")
            }
        }
    }
}

impl Day {
    /// Writes `YYYY-MM-DD` onto the end of `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        match date_text(self.0) {
            Some(text) => out.extend_from_slice(&text),
            None => out.extend_from_slice(self.to_string().as_bytes()),
        }
    }
}

/// Writes a run of days, each usually the day after the one before: that
/// one's text with its day of the month counted up, the calendar consulted
/// only where a month may end (a daily history writes 365 dates an answer).
#[derive(Default)]
pub struct DayRun {
    last: Option<(i64, [u8; 10])>,
}

impl DayRun {
    /// Writes `YYYY-MM-DD` onto the end of `out`, as `Day::write` does.
    pub fn write(&mut self, day: Day, out: &mut Vec<u8>) {
        let text = match self.last {
            Some((before, mut text)) if day.0 == before + 1 => {
                let of_month = (text[8] - b'0') * 10 + (text[9] - b'0') + 1;
                // Every month has 28 days; past that, the calendar says.
                if of_month <= 28 {
                    text[8] = b'0' + of_month / 10;
                    text[9] = b'0' + of_month % 10;
                    Some(text)
                } else {
                    date_text(day.0)
                }
            }
            _ => date_text(day.0),
        };
        self.last = text.map(|t| (day.0, t));
        match text {
            Some(text) => out.extend_from_slice(&text),
            None => day.write(out),
        }
    }
}

impl serde::Serialize for Day {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match date_text(self.0) {
            Some(text) => s.serialize_str(std::str::from_utf8(&text).unwrap_or_default()),
            None => s.collect_str(self),
        }
    }
}

/// Parses `YYYY-MM-DD`, refusing dates that do not exist (2025-02-30).
pub fn parse_date(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let digits = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = text.get(r)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())
            .flatten()
    };
    let (y, m, d) = (digits(0..4)?, digits(5..7)? as u32, digits(8..10)? as u32);
    let days = from_civil(y, m, d);
    (to_civil(days) == (y, m, d)).then_some(days)
}

/// `YYYY-MM`: the first and last day numbers of that month.
pub fn parse_month(text: &str) -> Option<(i64, i64)> {
    let first = parse_date(&format!("{text}-01")).filter(|_| text.len() == 7)?;
    let (y, m, _) = to_civil(first);
    let next = if m == 12 {
        from_civil(y + 1, 1, 1)
    } else {
        from_civil(y, m + 1, 1)
    };
    Some((first, next - 1))
}

/// `YYYY-MM-DDTHH` of an hour number (hours since 1970-01-01T00, UTC): how
/// the usage file and Redis name the hour a count belongs to.
pub fn format_hour(hour: i64) -> String {
    format!("{}T{:02}", Day(hour.div_euclid(24)), hour.rem_euclid(24))
}

/// The hour number of `YYYY-MM-DDTHH`.
pub fn parse_hour(text: &str) -> Option<i64> {
    let (day, hour) = text.split_once('T')?;
    let hour: i64 = (hour.len() == 2 && hour.bytes().all(|b| b.is_ascii_digit()))
        .then(|| hour.parse().ok())
        .flatten()
        .filter(|h| *h < 24)?;
    Some(parse_date(day)? * 24 + hour)
}

/// ISO 8601 UTC timestamp of a Unix time, to the second, with a Z.
pub fn format_timestamp(unix: i64) -> String {
    format!("{}Z", DateAndTime(unix))
}

/// The same to the millisecond (`2026-11-26T02:36:30.165Z`): the form of
/// the time on a log line.
pub fn format_timestamp_millis(unix: i64, millis: u32) -> String {
    TimestampMillis { unix, millis }.to_string()
}

/// `format_timestamp_millis`, written where it is shown without strings of
/// its own: the access log writes one for each request.
pub struct TimestampMillis {
    pub unix: i64,
    pub millis: u32,
}

impl std::fmt::Display for TimestampMillis {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}.{:03}Z", DateAndTime(self.unix), self.millis)
    }
}

/// `YYYY-MM-DDTHH:MM:SS` of a Unix time, UTC.
struct DateAndTime(i64);

impl std::fmt::Display for DateAndTime {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let secs = self.0.rem_euclid(SECONDS_PER_DAY);
        write!(
            f,
            "{}T{:02}:{:02}:{:02}",
            Day(self.0.div_euclid(SECONDS_PER_DAY)),
            secs / 3600,
            secs % 3600 / 60,
            secs % 60
        )
    }
}

/// An HTTP date (RFC 9110, IMF-fixdate): `Sun, 06 Nov 1994 08:49:37 GMT`.
pub fn format_http_date(unix: i64) -> String {
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (days, secs) = (unix.div_euclid(86_400), unix.rem_euclid(86_400));
    let (year, month, day) = to_civil(days);
    format!(
        "{}, {day:02} {} {year} {:02}:{:02}:{:02} GMT",
        WEEKDAYS[days.rem_euclid(7) as usize],
        MONTHS[month as usize - 1],
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// The Monday that starts the ISO week holding `days`.
pub fn week_monday(days: i64) -> i64 {
    // 1970-01-01 was a Thursday: (days + 3) mod 7 counts days since Monday.
    days - (days + 3).rem_euclid(7)
}

/// The first day of the calendar month holding `days`.
pub fn month_start(days: i64) -> i64 {
    let (y, m, _) = to_civil(days);
    from_civil(y, m, 1)
}

#[cfg(test)]
#[path = "dates_tests.rs"]
mod tests;
