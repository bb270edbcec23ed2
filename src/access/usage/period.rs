//! The days a usage report covers, in the zone that cuts them: which local
//! day each UTC hour of usage falls on, and when a local day begins, from
//! jiff's built-in copy of the IANA zone database.
//!
//! Usage is counted per UTC hour, so a zone cuts days exactly where its
//! offset is a whole number of hours (Africa/Johannesburg, Europe/London,
//! America/New_York). A zone whose offset over the period is not
//! (Asia/Kolkata, +05:30) is refused, as its days would split hours.

use jiff::Timestamp;
use jiff::tz::TimeZone;

use crate::access::AccessError;
use crate::dates::{self, SECONDS_PER_HOUR};

/// The zone of a report's days.
#[derive(Debug, Clone)]
pub struct Zone {
    name: String,
    tz: TimeZone,
}

/// The zone when none is named.
pub const UTC: &str = "UTC";

impl Zone {
    /// An IANA zone by name (`Africa/Johannesburg`, `UTC`).
    pub fn named(name: &str) -> Result<Zone, AccessError> {
        let tz = TimeZone::get(name).map_err(|_| AccessError::Zone(name.to_string()))?;
        Ok(Zone {
            name: name.to_string(),
            tz,
        })
    }

    pub fn utc() -> Zone {
        Zone {
            name: UTC.into(),
            tz: TimeZone::UTC,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Seconds east of UTC at Unix time `unix`.
    fn offset(&self, unix: i64) -> i64 {
        let at = Timestamp::from_second(unix).unwrap_or(Timestamp::UNIX_EPOCH);
        i64::from(self.tz.to_offset(at).seconds())
    }

    /// The local day (day number) that Unix time `unix` falls on.
    pub fn day_of(&self, unix: i64) -> i64 {
        (unix + self.offset(unix)).div_euclid(dates::SECONDS_PER_DAY)
    }

    /// The local day the UTC hour `hour` (hours since 1970-01-01T00) falls on.
    pub fn day_of_hour(&self, hour: i64) -> i64 {
        self.day_of(hour * SECONDS_PER_HOUR)
    }

    /// The Unix time at which local day `day` begins.
    pub fn day_start(&self, day: i64) -> i64 {
        let (y, m, d) = dates::to_civil(day);
        let start = i8::try_from(m)
            .ok()
            .zip(i8::try_from(d).ok())
            .and_then(|(m, d)| jiff::civil::Date::new(i16::try_from(y).ok()?, m, d).ok())
            .and_then(|date| date.to_zoned(self.tz.clone()).ok());
        match start {
            Some(zoned) => zoned.timestamp().as_second(),
            None => day * dates::SECONDS_PER_DAY - self.offset(day * dates::SECONDS_PER_DAY),
        }
    }

    /// Refuses a zone whose offset at some hour of the local days `from` to
    /// `to` is not a whole number of hours: its days would split hours.
    pub fn check_whole_hours(&self, from: i64, to: i64) -> Result<(), AccessError> {
        let (start, end) = (self.day_start(from), self.day_start(to + 1));
        let mut at = start.div_euclid(SECONDS_PER_HOUR) * SECONDS_PER_HOUR;
        while at <= end {
            let offset = self.offset(at);
            if offset % SECONDS_PER_HOUR != 0 {
                return Err(AccessError::SplitHours {
                    zone: self.name.clone(),
                    offset,
                    day: dates::format_date(self.day_of(at)),
                });
            }
            at += SECONDS_PER_HOUR;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hour(y: i64, m: u32, d: u32, h: i64) -> i64 {
        dates::from_civil(y, m, d) * 24 + h
    }

    #[test]
    fn a_late_utc_hour_falls_on_the_next_south_african_day() {
        let sast = Zone::named("Africa/Johannesburg").unwrap();
        let utc = Zone::utc();
        // 23:30 UTC on 30 November is 01:30 SAST on 1 December.
        let late = hour(2026, 11, 30, 23);
        assert_eq!(dates::format_date(sast.day_of_hour(late)), "2026-12-01");
        assert_eq!(dates::format_date(utc.day_of_hour(late)), "2026-11-30");
        // 22:00 UTC is the first hour of the SAST day, 21:00 the last before.
        assert_eq!(dates::format_date(sast.day_of_hour(late - 1)), "2026-12-01");
        assert_eq!(dates::format_date(sast.day_of_hour(late - 2)), "2026-11-30");
        let december = dates::from_civil(2026, 12, 1);
        assert_eq!(sast.day_start(december), (late - 1) * SECONDS_PER_HOUR);
        assert_eq!(utc.day_start(december), december * dates::SECONDS_PER_DAY);
    }

    #[test]
    fn summer_time_moves_the_boundary_by_the_hour() {
        let london = Zone::named("Europe/London").unwrap();
        // BST (UTC+1) in July: 23:00 UTC is already the next day.
        assert_eq!(
            dates::format_date(london.day_of_hour(hour(2026, 7, 1, 23))),
            "2026-07-02"
        );
        // GMT in December: 23:00 UTC is still the same day.
        assert_eq!(
            dates::format_date(london.day_of_hour(hour(2026, 12, 1, 23))),
            "2026-12-01"
        );
        let (from, to) = dates::parse_month("2026-03").unwrap();
        assert!(london.check_whole_hours(from, to).is_ok());
    }

    #[test]
    fn half_hour_zones_and_unknown_names_are_refused() {
        let kolkata = Zone::named("Asia/Kolkata").unwrap();
        let (from, to) = dates::parse_month("2026-11").unwrap();
        let why = kolkata.check_whole_hours(from, to).unwrap_err().to_string();
        assert!(
            why.contains("UTC+05:30") && why.contains("whole number of hours"),
            "{why}"
        );
        let why = Zone::named("Mars/Olympus").unwrap_err();
        assert!(matches!(why, AccessError::Zone(_)), "{why}");
        assert!(why.to_string().contains("'Mars/Olympus'"), "{why}");
    }
}
