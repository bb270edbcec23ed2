//! The calendar's conversions and the texts dates are shown as.

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

#[test]
fn a_run_of_days_writes_what_each_day_writes() {
    // Runs across month ends, leap days and years, with jumps back and
    // forth between them, and days outside the years 0 to 9999.
    let mut days: Vec<i64> = (from_civil(2023, 12, 1)..from_civil(2025, 3, 2)).collect();
    days.extend([
        20_000, 19_990, 19_991, 40_000, -719_529, -719_528, 2_932_896, 2_932_897, 5,
    ]);
    days.extend(from_civil(2099, 12, 20)..from_civil(2100, 3, 5));
    let (mut run, mut by_run, mut each) = (DayRun::default(), Vec::new(), Vec::new());
    for &d in &days {
        run.write(Day(d), &mut by_run);
        Day(d).write(&mut each);
    }
    assert_eq!(
        String::from_utf8(by_run).unwrap(),
        String::from_utf8(each).unwrap()
    );
}

#[test]
fn months_cover_their_days_and_hours_read_back() {
    let (first, last) = parse_month("2024-02").unwrap();
    assert_eq!(
        (format_date(first), format_date(last)),
        ("2024-02-01".into(), "2024-02-29".into())
    );
    let (_, last) = parse_month("2026-12").unwrap();
    assert_eq!(format_date(last), "2026-12-31");
    for bad in ["2026-13", "2026-1", "2026-12-01", "26-12", ""] {
        assert_eq!(parse_month(bad), None, "{bad}");
    }
    let hour = from_civil(2026, 11, 30) * 24 + 23;
    assert_eq!(format_hour(hour), "2026-11-30T23");
    assert_eq!(parse_hour("2026-11-30T23"), Some(hour));
    for bad in [
        "2026-11-30T24",
        "2026-11-30T3",
        "2026-11-30",
        "2026-11-31T00",
    ] {
        assert_eq!(parse_hour(bad), None, "{bad}");
    }
}
