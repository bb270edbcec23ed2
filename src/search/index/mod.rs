//! The area index: what the server keeps in memory about every area,
//! position, truth_score and province, read once when a dataset is opened
//! (the data never changes while it is served), and a grid over it for
//! searches by place. Its parts: the grid's cells and entries (`grid`), the
//! areas of each province as bitmaps (`provinces`), the score order and a
//! score floor's placement (`score_order`), bitmaps over positions
//! (`bitmap`), distances on the Earth (`geo`) and the byte order of the
//! arrays search stores in the file (`little_endian`). `provinces`,
//! `score_order` and `read` (the dataset's read at open) add to `AreaIndex`
//! itself and are built with it, so they and this file name each other: one
//! type, in four files for size.
//!
//! The grid buckets areas by cells of `CELL_DEG` degrees of latitude and
//! longitude; each cell's areas sit together, best score first, so a cell
//! wholly inside a circle is counted by a binary search on score instead of
//! area by area (search/shape/circles/). Measured at 100,000 areas, a 50 km
//! circle around Johannesburg through SQLite's R*Tree (one row fetched per
//! candidate) took 75-107 ms. Text search maps FTS5 rowids (search ranks) to
//! areas here, and filters them by score and circle without reading any row.

pub mod bitmap;
pub mod geo;
pub mod grid;
pub mod little_endian;
pub mod provinces;
mod read;
mod score_order;
#[cfg(test)]
pub mod test_points;

use crate::search::index::grid::{Cell, Entry, NO_SLOT, col_of, entry, row_of};
use crate::search::index::provinces::ProvinceAreas;
pub use crate::search::index::score_order::Floor;
use crate::search::index::score_order::{KeptFloors, floors_of, score_order, score_places};

pub struct AreaIndex {
    /// Every area, grouped by cell in (row, col) order; within a cell by
    /// truth_score descending, then area_no.
    pub(super) entries: Vec<Entry>,
    /// The non-empty cells in (row, col) order.
    cells: Vec<Cell>,
    /// For each grid row from the south pole's, where its cells start in
    /// `cells` (one more for the end): a circle's rows are found by index,
    /// where a search of all the cells missed the cache at each step.
    row_start: Vec<u32>,
    /// For each area_no, its place in `entries` (u32::MAX for a gap).
    pub(super) slot: Vec<u32>,
    /// For each search rank from 1 (the full-text index's rowid), its place in
    /// `entries`. A copy of the entries in rank order read faster for text
    /// searches that walk many matches, but cost 56 bytes an area (56 MB at a
    /// million); those searches count over bitmaps instead (search/query/text/).
    by_rank: Vec<u32>,
    /// For each position in `entries`, its area's search rank (0 for none).
    rank_at: Vec<u32>,
    /// Positions in score order (truth_score descending, then area_no): the
    /// areas scoring at least a floor are a prefix of it, so a word's bitmap
    /// in this order is counted above a floor by one popcount (search/shape/region.rs).
    by_score: Vec<u32>,
    /// Each distinct score, best first, with how many areas score at least it.
    pub(super) floors: Vec<(f64, u32)>,
    /// For each position, its score's place in `floors` (saturating): how
    /// many of a cell's areas score enough is a binary search here, in 2
    /// bytes an area, where one over the entries missed the cache at each of
    /// its steps (half the time of a heavy word in a 50 km circle at a
    /// million areas). Scores have 2 decimals, so at most 1,001 places.
    pub(super) score_place: Vec<u16>,
    /// `score_place` by search rank from 1: a score floor alone is met along
    /// a word's matches in rank order by reads one after the other, where by
    /// position each read missed the cache.
    pub(super) rank_score_place: Vec<u16>,
    /// The ranks scoring at least the floors last asked for (score_order.rs).
    pub(super) kept_floors: KeptFloors,
    /// The areas of each province, in the order of `PROVINCES`
    /// (provinces.rs); empty until `with_provinces`.
    pub(super) provinces: Vec<ProvinceAreas>,
}

impl AreaIndex {
    /// From (area_no, lat, lng, truth_score), in any order, and
    /// the area_no of each search rank from 1; in no province until
    /// `with_provinces`.
    pub fn new(areas: Vec<(u32, f64, f64, f64)>, by_rank: Vec<u32>) -> AreaIndex {
        let entries = areas
            .into_iter()
            .map(|(area_no, lat, lng, truth_score)| entry(area_no, lat, lng, truth_score))
            .collect();
        AreaIndex::from_entries(entries, by_rank).with_provinces::<&str>(&[])
    }

    fn from_entries(mut entries: Vec<Entry>, ranked: Vec<u32>) -> AreaIndex {
        let key = |e: &Entry| (row_of(e.lat), col_of(e.lng));
        // Read off the database by latitude, the areas come grouped by grid
        // row already; each row is then sorted on its own, with keys cached
        // per row (a whole million's cached keys would hold 32 MB more).
        // Scores are 0 to 10 (schema.sql), and non-negative floats order as
        // their bits do.
        if !entries.is_sorted_by_key(|e| row_of(e.lat)) {
            entries.sort_unstable_by_key(|e| row_of(e.lat));
        }
        for row in entries.chunk_by_mut(|a, b| row_of(a.lat) == row_of(b.lat)) {
            row.sort_by_cached_key(|e| {
                (
                    col_of(e.lng),
                    std::cmp::Reverse(e.truth_score.to_bits()),
                    e.area_no,
                )
            });
        }
        let mut cells: Vec<Cell> = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            let (row, col) = key(e);
            match cells.last_mut() {
                Some(c) if (c.row, c.col) == (row, col) => c.end = i as u32 + 1,
                _ => cells.push(Cell {
                    row,
                    col,
                    start: i as u32,
                    end: i as u32 + 1,
                }),
            }
        }
        let rows = row_of(90.0) as usize + 1;
        let row_start = (0..=rows)
            .map(|r| cells.partition_point(|c| (c.row as usize) < r) as u32)
            .collect();
        let top = entries
            .iter()
            .map(|e| e.area_no as usize)
            .max()
            .unwrap_or(0);
        let mut slot = vec![NO_SLOT; top + 1];
        for (i, e) in entries.iter().enumerate() {
            slot[e.area_no as usize] = i as u32;
        }
        // Ranks are dense and each names an area (data/load.rs). Were one missing,
        // the ranks after it answer None, never another area.
        let by_rank: Vec<u32> = ranked
            .iter()
            .map_while(|&no| slot.get(no as usize).copied().filter(|&i| i != NO_SLOT))
            .collect();
        let mut rank_at = vec![0; entries.len()];
        for (r, &i) in by_rank.iter().enumerate() {
            rank_at[i as usize] = r as u32 + 1;
        }
        let floors = floors_of(&entries);
        let by_score = score_order(&entries, &slot, &floors);
        let score_place = score_places(&entries, &floors);
        let rank_score_place = by_rank.iter().map(|&i| score_place[i as usize]).collect();
        AreaIndex {
            entries,
            cells,
            row_start,
            slot,
            by_rank,
            rank_at,
            by_score,
            floors,
            score_place,
            rank_score_place,
            kept_floors: KeptFloors::default(),
            provinces: Vec::new(),
        }
    }

    pub fn get(&self, area_no: i64) -> Option<&Entry> {
        self.position_of(area_no).map(|i| &self.entries[i])
    }

    /// The area with a search rank, if there is one.
    pub fn by_rank(&self, rank: i64) -> Option<&Entry> {
        let i = self.position_of_rank(rank)?;
        self.entries.get(i)
    }

    /// The position in the grid order of the area with a search rank.
    pub fn position_of_rank(&self, rank: i64) -> Option<usize> {
        let i = usize::try_from(rank).ok()?.checked_sub(1)?;
        self.by_rank.get(i).map(|&p| p as usize)
    }

    /// The search rank of the area at a position (0 for none).
    pub fn rank_at(&self, position: usize) -> u32 {
        self.rank_at[position]
    }

    /// The position of the area at a place in score order.
    pub fn by_score(&self, place: usize) -> usize {
        self.by_score[place] as usize
    }

    /// The area at a position of the grid order.
    pub fn at(&self, position: usize) -> &Entry {
        &self.entries[position]
    }

    /// Every non-empty cell, in (row, col) order.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// How many areas there are.
    pub fn area_count(&self) -> usize {
        self.entries.len()
    }

    /// The non-empty cells of one row from column `from` to `to`, inclusive.
    pub fn cells_in_row(&self, row: i32, from: i32, to: i32) -> &[Cell] {
        let Ok(r) = usize::try_from(row) else {
            return &[];
        };
        let (Some(&start), Some(&end)) = (self.row_start.get(r), self.row_start.get(r + 1)) else {
            return &[];
        };
        let cells = &self.cells[start as usize..end as usize];
        let a = cells.partition_point(|c| c.col < from);
        let b = cells.partition_point(|c| c.col <= to);
        &cells[a..b.max(a)]
    }

    /// The areas of a cell from `cells_in_row`, best score first.
    pub fn areas_of(&self, cell: &Cell) -> &[Entry] {
        &self.entries[cell.start as usize..cell.end as usize]
    }
}

#[cfg(test)]
mod tests {
    use crate::search::index::test_points::ranked_index;

    /// Lookups by area_no and by search rank, and counting by score; circle
    /// searches over the grid are tested in search/shape/circles/.
    #[test]
    fn areas_are_found_by_number_and_rank_and_counted_by_score() {
        let points: Vec<(f64, f64, f64)> = (0..1600)
            .map(|i| {
                (
                    -27.0 + (i / 40) as f64 * 0.05,
                    27.5 + (i % 40) as f64 * 0.05,
                    (i % 19) as f64 / 2.0,
                )
            })
            .collect();
        let idx = ranked_index(&points, vec![3, 1, 2]);
        assert_eq!(
            idx.get(7).map(|e| (e.lat, e.lng)),
            Some((points[6].0, points[6].1))
        );
        assert!(idx.get(0).is_none() && idx.get(1601).is_none() && idx.get(-1).is_none());
        let area_of = |rank| idx.by_rank(rank).map(|e| e.area_no);
        assert_eq!((area_of(1), area_of(3)), (Some(3), Some(2)));
        assert_eq!((area_of(0), area_of(4)), (None, None));
        for min in [0.0, 4.5, 9.0, 9.5] {
            let want = points.iter().filter(|p| p.2 >= min).count() as i64;
            assert_eq!(idx.count_scoring(min), want, "min {min}");
        }
    }
}
