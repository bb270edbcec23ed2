//! Independent arithmetic the tests check the server against: great-circle
//! distance, two-decimal rounding, calendar days, and the text folding of
//! search. Written from the definitions in the docs/api.md ("Search Areas", "Get
//! Area History"), not taken from src/.

use serde_json::Value;

/// The Earth radius docs/api.md "Search Areas" fixes for geo matching, in kilometres.
pub const EARTH_RADIUS_KM: f64 = 6371.0088;

/// Haversine distance in kilometres between two points in degrees.
pub fn haversine_km(lat1: f64, lng1: f64, lat2: f64, lng2: f64) -> f64 {
    let (phi1, phi2) = (lat1.to_radians(), lat2.to_radians());
    let half_dphi = (phi2 - phi1) / 2.0;
    let half_dlambda = (lng2 - lng1).to_radians() / 2.0;
    let h = half_dphi.sin().powi(2) + phi1.cos() * phi2.cos() * half_dlambda.sin().powi(2);
    2.0 * EARTH_RADIUS_KM * h.sqrt().min(1.0).asin()
}

/// Distance from a point to an area in detail form.
pub fn distance_to(lat: f64, lng: f64, detail: &Value) -> f64 {
    let (to_lat, to_lng) = super::body::coordinates(detail);
    haversine_km(lat, lng, to_lat, to_lng)
}

pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// True when `x` has at most two decimals (as JSON carries it).
pub fn has_two_decimals_at_most(x: f64) -> bool {
    (x * 100.0 - (x * 100.0).round()).abs() < 1e-6
}

/// Days since 1970-01-01 of a proleptic Gregorian date, counted plainly:
/// whole years, then whole months, then days.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in_year = |y: i64| if leap(y) { 366 } else { 365 };
    let mut days: i64 = 0;
    if year >= 1970 {
        days += (1970..year).map(days_in_year).sum::<i64>();
    } else {
        days -= (year..1970).map(days_in_year).sum::<i64>();
    }
    let month_lengths = [
        31,
        if leap(year) { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    days += month_lengths[..(month - 1) as usize].iter().sum::<i64>();
    days + day as i64 - 1
}

/// `YYYY-MM-DD` of a day number, found by stepping through whole years and
/// months (the inverse of `days_from_civil`).
pub fn date_of(mut day: i64) -> String {
    let mut year = 1970;
    loop {
        let length = days_from_civil(year + 1, 1, 1) - days_from_civil(year, 1, 1);
        if day < 0 {
            year -= 1;
            day += days_from_civil(year + 1, 1, 1) - days_from_civil(year, 1, 1);
        } else if day >= length {
            day -= length;
            year += 1;
        } else {
            break;
        }
    }
    let mut month = 1;
    while month < 12 && day >= days_from_civil(year, month + 1, 1) - days_from_civil(year, 1, 1) {
        month += 1;
    }
    let first = days_from_civil(year, month, 1) - days_from_civil(year, 1, 1);
    format!("{year:04}-{month:02}-{:02}", day - first + 1)
}

/// Parses `YYYY-MM-DD` strictly into (year, month, day).
pub fn parse_date(text: &str) -> (i64, u32, u32) {
    let parts: Vec<&str> = text.split('-').collect();
    assert!(
        parts.len() == 3 && parts[0].len() == 4 && parts[1].len() == 2 && parts[2].len() == 2,
        "not YYYY-MM-DD: {text}"
    );
    let y = parts[0].parse().expect("year");
    let m = parts[1].parse().expect("month");
    let d = parts[2].parse().expect("day");
    assert!((1..=12).contains(&m) && (1..=31).contains(&d), "{text}");
    (y, m, d)
}

pub fn day_number(text: &str) -> i64 {
    let (y, m, d) = parse_date(text);
    days_from_civil(y, m, d)
}

/// 0 for Monday .. 6 for Sunday. 1970-01-01 was a Thursday (3).
pub fn weekday(day: i64) -> i64 {
    (day + 3).rem_euclid(7)
}

/// Lower case with the one diacritic of the seed (ë) folded, as the full-text
/// index folds case and diacritics.
pub fn fold(text: &str) -> String {
    text.to_lowercase().replace('ë', "e")
}

/// The words of a text as full-text search sees them: runs of letters and digits.
pub fn words(text: &str) -> Vec<String> {
    fold(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// True when every word of q is a prefix of a word of the area's name,
/// municipality or province (case and diacritics folded).
pub fn text_matches(area: &Value, q: &str, name_only: bool) -> bool {
    let hay = if name_only {
        words(area["name"].as_str().unwrap())
    } else {
        let s = |k: &str| area[k].as_str().unwrap().to_string();
        words(&format!(
            "{} {} {}",
            s("name"),
            s("municipality"),
            s("province")
        ))
    };
    words(q)
        .iter()
        .all(|w| hay.iter().any(|h| h.starts_with(w.as_str())))
}

/// The ids of areas (list form) in search relevance order for q: areas whose
/// name holds every word first, then shorter names (characters), then id.
pub fn by_relevance<'a>(mut areas: Vec<&'a Value>, q: &str) -> Vec<&'a str> {
    areas.sort_by_key(|a| {
        (
            !text_matches(a, q, true),
            a["name"].as_str().unwrap().chars().count(),
            a["id"].as_str().unwrap().to_string(),
        )
    });
    areas.iter().map(|a| a["id"].as_str().unwrap()).collect()
}
