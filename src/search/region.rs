//! A search's shape over the grid (area_index.rs): a score floor, and a
//! circle and a viewport when given. It comes as runs of positions, one per
//! grid cell the shape touches, cut to the cell's areas scoring at least the
//! floor: a cell wholly inside is a run whose every area matches; a cell the
//! shape's edge crosses is a run whose areas are tested one by one.
//!
//! Counting a word's matches inside the shape is then a popcount of the
//! word's bitmap (bitmap.rs) over each whole run, and a look at the few areas
//! of edge cells: the cost follows the shape's cells, not how many areas match.
//! A floor alone touches every cell (27,000 at a million areas, 10 ms of
//! cache misses), so it has its own order: by score, where the areas above a
//! floor are a prefix, counted with one popcount of the word's bitmap in
//! that order.

use crate::search::area_index::{AreaIndex, Cell, Entry, Place};
use crate::search::bbox::BBox;
use crate::search::bitmap::{Bits, count_all, each_in_all, in_all};
use crate::search::geo::Disc;

/// What an area must meet, words aside.
#[derive(Debug, Clone, Copy)]
pub struct Shape<'a> {
    pub min_score: f64,
    pub disc: Option<&'a Disc>,
    pub bbox: Option<&'a BBox>,
}

impl Shape<'_> {
    /// Whether an area meets every criterion.
    pub fn holds(&self, e: &Entry) -> bool {
        e.truth_score >= self.min_score
            && self.disc.is_none_or(|d| d.contains(&e.unit, e.lat, e.lng))
            && self.bbox.is_none_or(|b| b.contains(e.lat, e.lng))
    }
}

impl AreaIndex {
    /// Calls `each` with the run of positions of every cell the shape
    /// touches, cut to the floor, and whether the cell lies wholly inside.
    pub fn runs(&self, shape: &Shape, each: impl FnMut((usize, usize), bool)) {
        self.runs_in_rows(shape, (i32::MIN, i32::MAX), each);
    }

    /// `runs`, of the cells in grid rows `rows` (inclusive) alone.
    pub fn runs_in_rows(
        &self,
        shape: &Shape,
        rows: (i32, i32),
        mut each: impl FnMut((usize, usize), bool),
    ) {
        let mut offer = |run: (usize, usize), place: Place| {
            if place != Place::Outside && run.0 < run.1 {
                each(run, place == Place::Inside);
            }
        };
        let floor = self.floor(shape.min_score);
        let in_rows = |cell: &Cell| (rows.0..=rows.1).contains(&cell.row);
        match (shape.disc, shape.bbox) {
            (Some(disc), bbox) => self.cells_in_disc(disc, bbox, rows, |cell, place| {
                offer(self.scoring_run(cell, &floor), place)
            }),
            (None, Some(bbox)) => {
                for (cell, place) in self.cells_in_box(bbox).filter(|(c, _)| in_rows(c)) {
                    offer(self.scoring_run(cell, &floor), place);
                }
            }
            (None, None) => {
                for cell in self.cells().iter().filter(|c| in_rows(c)) {
                    offer(self.scoring_run(cell, &floor), Place::Inside);
                }
            }
        }
    }

    /// How many areas in the shape are set in every one of `sets`.
    pub fn count_in(&self, shape: &Shape, sets: &[&Bits]) -> usize {
        let mut total = 0;
        self.runs(shape, |(a, b), whole| {
            total += if whole {
                count_all(sets, a, b)
            } else {
                (a..b)
                    .filter(|&i| in_all(sets, i) && shape.holds(self.at(i)))
                    .count()
            };
        });
        total
    }

    /// Calls `each` on the position and area of every area in the shape set
    /// in all of `sets`.
    pub fn each_in(&self, shape: &Shape, sets: &[&Bits], mut each: impl FnMut(usize, &Entry)) {
        self.runs(shape, |(a, b), whole| {
            each_in_all(sets, a, b, |i| {
                let e = self.at(i);
                if whole || shape.holds(e) {
                    each(i, e);
                }
            });
        });
    }

    /// How many areas scoring at least `min` are set in every one of
    /// `sets`, bitmaps in score order: one popcount over a prefix.
    pub fn count_scoring_in(&self, min: f64, sets: &[&Bits]) -> usize {
        count_all(sets, 0, self.count_scoring(min) as usize)
    }

    /// Calls `each` on the position and area of every area scoring at least
    /// `min` set in all of `sets`, bitmaps in score order.
    pub fn each_scoring_in(&self, min: f64, sets: &[&Bits], mut each: impl FnMut(usize, &Entry)) {
        each_in_all(sets, 0, self.count_scoring(min) as usize, |j| {
            let i = self.by_score(j);
            each(i, self.at(i));
        });
    }

    /// The bitmap in score order of the areas set in `by_position`: a
    /// look at each area once, when a word is first kept (no inverse of the
    /// score order is kept for it: 4 MB at a million areas).
    pub fn in_score_order(&self, by_position: &Bits) -> Bits {
        let mut bits = Bits::new(self.area_count());
        for j in 0..self.area_count() {
            if by_position.get(self.by_score(j)) {
                bits.set(j);
            }
        }
        bits
    }

    /// The bitmap of the areas with these search ranks.
    pub fn bits_of_ranks(&self, ranks: &[u32]) -> Bits {
        let mut bits = Bits::new(self.area_count());
        for &r in ranks {
            if let Some(i) = self.position_of_rank(i64::from(r)) {
                bits.set(i);
            }
        }
        bits
    }
}

#[cfg(test)]
#[path = "region_tests.rs"]
mod tests;
