//! Each area's last year of daily scores, packed into one row (table
//! `recent_history`) when a dataset is written, and read back for Get Area
//! History and Get Area's include=history.
//!
//! A daily history of a year read as rows was 365 steps through the history
//! table's B-tree, about half of the request's time (bench/PROFILE.md, "A
//! year of history in one row"). The data never changes while it is served,
//! so the window every request would read is written once, as it would be
//! read: the same query, for the longest period the API serves.
//!
//! A row's `scores` hold one score a day in hundredths (u16, little-endian),
//! oldest first, ending on `last_day`; a day without a score (a file of
//! ours has none: the import carries each point forward) is `NO_SCORE`.
//! Every score the import keeps is a whole number of hundredths from 0 to
//! 10 (docs/import.md, "Rounding"); an area with any other score gets no
//! row, and is read from the history table, as a window longer than the
//! packed year is.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

/// The days packed for each area: the API's longest history period ("1y",
/// api/contract.rs `PERIODS`).
pub const KEPT_DAYS: i64 = 365;
/// Marks a day inside the window that has no score.
const NO_SCORE: u16 = u16::MAX;

/// The history rows of an area's last `days` days with a score, counted back
/// from its latest; the one place the window is defined, for the packed
/// rows and for the areas without one.
const WINDOW: &str = "
    SELECT day, truth_score FROM history
    WHERE area_no = ?1 AND day > (SELECT max(day) FROM history WHERE area_no = ?1) - ?2
    ORDER BY day";

const PACKED: &str = "SELECT last_day, scores FROM recent_history WHERE area_no = ?1";

/// An area's (day, score) pairs of its last `days` days, oldest first: its
/// packed row when it has one and the window fits it, else its rows.
pub fn window(conn: &Connection, area_no: i64, days: i64) -> rusqlite::Result<Vec<(i64, f64)>> {
    if days <= KEPT_DAYS {
        let packed: Option<(i64, Vec<u8>)> = conn
            .prepare_cached(PACKED)?
            .query_row([area_no], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        if let Some((last_day, scores)) = packed {
            return Ok(unpack(last_day, &scores, days));
        }
    }
    rows(conn, area_no, days)
}

/// The window read from the history table, row by row.
pub fn rows(conn: &Connection, area_no: i64, days: i64) -> rusqlite::Result<Vec<(i64, f64)>> {
    conn.prepare_cached(WINDOW)?
        .query_map(params![area_no, days], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

/// The last `days` days of a packed row, skipping those without a score.
fn unpack(last_day: i64, scores: &[u8], days: i64) -> Vec<(i64, f64)> {
    let stored = scores.len() / 2;
    let take = stored.min(usize::try_from(days).unwrap_or(0));
    let first_day = last_day - stored as i64 + 1;
    (stored - take..stored)
        .filter_map(|i| {
            let hundredths = u16::from_le_bytes([scores[2 * i], scores[2 * i + 1]]);
            (hundredths != NO_SCORE).then(|| (first_day + i as i64, f64::from(hundredths) / 100.0))
        })
        .collect()
}

/// A window as a packed row's (last_day, scores), or None when a score is
/// not a whole number of hundredths that reads back as itself.
fn pack(days: &[(i64, f64)]) -> Option<(i64, Vec<u8>)> {
    let (&(first_day, _), &(last_day, _)) = (days.first()?, days.last()?);
    let len = usize::try_from(last_day - first_day + 1).ok()?;
    let mut scores = vec![NO_SCORE; len];
    for &(day, score) in days {
        let hundredths = (score * 100.0).round();
        if !(0.0..f64::from(NO_SCORE)).contains(&hundredths) || hundredths / 100.0 != score {
            return None;
        }
        scores[usize::try_from(day - first_day).ok()?] = hundredths as u16;
    }
    Some((
        last_day,
        scores.iter().flat_map(|s| s.to_le_bytes()).collect(),
    ))
}

/// Fills `recent_history` from the history table, area by area.
pub fn write(tx: &Transaction) -> rusqlite::Result<()> {
    let mut nos = tx.prepare("SELECT area_no FROM areas ORDER BY area_no")?;
    let mut store =
        tx.prepare("INSERT INTO recent_history (area_no, last_day, scores) VALUES (?1, ?2, ?3)")?;
    let mut areas = nos.query([])?;
    while let Some(area) = areas.next()? {
        let no: i64 = area.get(0)?;
        if let Some((last_day, scores)) = pack(&rows(tx, no, KEPT_DAYS)?) {
            store.execute(params![no, last_day, scores])?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_window_reads_back_as_its_rows_for_every_length() {
        // Gaps, and every score from 0 to 10 in hundredths.
        let mut days: Vec<(i64, f64)> =
            (0..=1000).map(|k| (20_000 + k, k as f64 / 100.0)).collect();
        days.retain(|(d, _)| d % 7 != 3);
        let (last_day, scores) = pack(&days).expect("hundredths pack");
        for want in [0, 1, 7, 30, 90, 365, 1000, 1001, 1200] {
            let from = last_day - want;
            let rows: Vec<(i64, f64)> = days.iter().copied().filter(|(d, _)| *d > from).collect();
            assert_eq!(unpack(last_day, &scores, want), rows, "{want} days");
        }
    }

    #[test]
    fn a_score_that_is_not_whole_hundredths_is_not_packed() {
        assert!(pack(&[(1, 5.0), (2, 5.005)]).is_none());
        assert!(pack(&[(1, -0.01)]).is_none());
        assert!(pack(&[]).is_none());
    }
}
