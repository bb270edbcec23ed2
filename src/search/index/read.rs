//! Reading the area index off a dataset when it opens: each area's position,
//! score and province from the covering index areas_by_position in one pass,
//! and the search ranks.
//!
//! Why the province is in that index: read from the areas table, whose rows
//! lie among the history pages, the provinces took 6.1 s from a cold disk
//! cache at a million areas, where the whole covering index took 0.4 s
//! (bench/PROFILE.md, "Opening a million areas from a cold disk"). A file
//! whose index holds no province is still read, with a pass over the areas
//! table for them.

use rusqlite::Connection;
use rusqlite::types::ValueRef;

use crate::domain::PROVINCES;
use crate::search::index::AreaIndex;
use crate::search::index::grid::entry;
use crate::search::index::provinces::NONE;

/// The index's columns, to tell whether it holds the province.
const INDEX_COLUMNS: &str = "SELECT name FROM pragma_index_info('areas_by_position')";

/// Read off the covering index, in its order (data/load.rs).
const POSITIONS: &str =
    "SELECT area_no, lat, lng, truth_score FROM areas ORDER BY lat, lng, truth_score";
const POSITIONS_AND_PROVINCES: &str = "SELECT area_no, lat, lng, truth_score, province_slug
    FROM areas ORDER BY lat, lng, truth_score";

/// Each area's province, for a file whose covering index holds none.
const AREA_PROVINCES: &str = "SELECT area_no, province_slug FROM areas";

/// Search ranks in order; rank is dense from 1 (data/load.rs, `derive`).
const RANKS: &str = "SELECT area_no FROM search_rank ORDER BY rank";

impl AreaIndex {
    pub fn load(conn: &Connection) -> rusqlite::Result<AreaIndex> {
        let one_pass = holds_provinces(conn)?;
        let mut stmt = conn.prepare(match one_pass {
            true => POSITIONS_AND_PROVINCES,
            false => POSITIONS,
        })?;
        let mut rows = stmt.query([])?;
        // Straight into entries: a million areas held twice at start would
        // raise the peak RSS by 32 MB for nothing.
        let mut entries = Vec::new();
        let mut provinces = ProvinceByNo::default();
        while let Some(r) = rows.next()? {
            let area_no = r.get(0)?;
            entries.push(entry(area_no, r.get(1)?, r.get(2)?, r.get(3)?));
            if one_pass {
                provinces.note(area_no, r.get_ref(4)?);
            }
        }
        if !one_pass {
            let mut stmt = conn.prepare(AREA_PROVINCES)?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                provinces.note(r.get(0)?, r.get_ref(1)?);
            }
        }
        let by_rank = conn
            .prepare(RANKS)?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let index = AreaIndex::from_entries(entries, by_rank);
        let province_at: Vec<u8> = index
            .entries
            .iter()
            .map(|e| provinces.of(e.area_no))
            .collect();
        Ok(index.with_province_at(&province_at))
    }
}

/// Whether areas_by_position holds each area's province.
fn holds_provinces(conn: &Connection) -> rusqlite::Result<bool> {
    let mut stmt = conn.prepare(INDEX_COLUMNS)?;
    let columns = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(columns.iter().any(|c| c == "province_slug"))
}

/// Each area's place in `PROVINCES` (or `NONE`) by area_no: a byte an area,
/// where each slug is compared as SQLite holds it (a String for each of a
/// million areas raised the peak RSS by 36 MiB).
#[derive(Default)]
struct ProvinceByNo(Vec<u8>);

impl ProvinceByNo {
    fn note(&mut self, area_no: u32, slug: ValueRef) {
        let ValueRef::Text(slug) = slug else { return };
        let Some(p) = PROVINCES.iter().position(|(s, _)| s.as_bytes() == slug) else {
            return;
        };
        let at = area_no as usize;
        if self.0.len() <= at {
            self.0.resize(at + 1, NONE);
        }
        self.0[at] = p as u8;
    }

    fn of(&self, area_no: u32) -> u8 {
        self.0.get(area_no as usize).copied().unwrap_or(NONE)
    }
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
