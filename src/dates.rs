//! Calendar arithmetic on days since 1970-01-01 (UTC), the unit history is stored in.
//!
//! The conversions are the standard proleptic-Gregorian day-count formulas, so
//! no date crate is needed for the few things the API does with dates.

use std::time::{SystemTime, UNIX_EPOCH};

pub const SECONDS_PER_DAY: i64 = 86_400;

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
mod tests {
    use super::*;

    #[test]
    fn http_dates_are_imf_fixdate() {
        // RFC 9110's own example, and the epoch.
        assert_eq!(
            format_http_date(784_111_777),
            "Sun, 06 Nov 1994 08:49:37 GMT"
        );
        assert_eq!(format_http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(
            format_http_date(1_795_391_999),
            "Sun, 22 Nov 2026 23:59:59 GMT"
        );
    }

    #[test]
    fn round_trips_known_dates() {
        assert_eq!(from_civil(1970, 1, 1), 0);
        assert_eq!(format_date(from_civil(2024, 2, 29)), "2024-02-29");
        assert_eq!(format_date(20_000), "2024-10-04");
        for d in -1000..100_000 {
            let (y, m, dd) = to_civil(d);
            assert_eq!(from_civil(y, m, dd), d);
        }
        // The digit-by-digit path and the general one agree, at the years
        // where one hands over to the other too.
        for d in (-800_000..3_000_000)
            .step_by(997)
            .chain([-719_528, -719_529, 2_932_896, 2_932_897])
        {
            let (y, m, dd) = to_civil(d);
            assert_eq!(format_date(d), format!("{y:04}-{m:02}-{dd:02}"), "day {d}");
            let shown = serde_json::to_string(&Day(d)).unwrap();
            assert_eq!(
                shown,
                format!("\"{}\"", format_date(d)),
                "day {d} in a body"
            );
        }
    }

    #[test]
    fn parses_only_real_dates() {
        assert_eq!(parse_date("2024-02-29"), Some(from_civil(2024, 2, 29)));
        for bad in [
            "2025-02-29",
            "2025-13-01",
            "2025-00-10",
            "2025-1-01",
            "20250101",
            "2025-01-0x",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn weeks_start_on_monday_and_months_on_the_first() {
        // 2026-11-22 is a Sunday; its ISO week began on Monday 2026-11-16.
        assert_eq!(
            format_date(week_monday(from_civil(2026, 11, 22))),
            "2026-11-16"
        );
        assert_eq!(
            format_date(week_monday(from_civil(2026, 11, 16))),
            "2026-11-16"
        );
        assert_eq!(
            format_date(month_start(from_civil(2026, 11, 22))),
            "2026-11-01"
        );
        assert_eq!(format_timestamp(0), "1970-01-01T00:00:00Z");
    }

    #[test]
    fn log_times_are_the_timestamp_with_milliseconds() {
        for unix in [0, 784_111_777, 1_795_660_590, -86_401, 253_402_300_799] {
            let base = format_timestamp(unix);
            let with_millis = format_timestamp_millis(unix, 7);
            assert_eq!(with_millis, format!("{}.007Z", &base[..base.len() - 1]));
        }
    }
}
