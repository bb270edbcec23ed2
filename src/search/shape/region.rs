//! A search's shape over the grid (search/index/): a score floor, and a
//! circle and a viewport when given. It comes as runs of positions, one per
//! grid cell the shape touches, cut to the cell's areas scoring at least the
//! floor: a cell wholly inside is a run whose every area matches; a cell the
//! shape's edge crosses is a run whose areas are tested one by one.
//!
//! Counting a word's matches inside the shape is then a popcount of the
//! word's bitmap (search/index/bitmap.rs) over each whole run, and a look at the few areas
//! of edge cells: the cost follows the shape's cells, not how many areas match.
//! A floor alone touches every cell (27,000 at a million areas, 10 ms of
//! cache misses), so it has its own order: by score, where the areas above a
//! floor are a prefix, counted with one popcount of the word's bitmap in
//! that order. A province narrows each of these by its bitmap in the same
//! order (search/index/provinces.rs): one more set ANDed into every popcount.

use std::cell::OnceCell;

use crate::search::index::AreaIndex;

use crate::search::index::bitmap::{Bits, count_all, each_in_all, in_all, next_in_all, nth_in_all};
use crate::search::index::geo::Disc;
use crate::search::index::grid::{Cell, Entry, Place};
use crate::search::index::provinces::ProvinceAreas;
use crate::search::shape::bbox::BBox;

/// What an area must meet, words aside.
#[derive(Debug, Clone, Copy)]
pub struct Shape<'a> {
    pub min_score: f64,
    pub disc: Option<&'a Disc>,
    pub bbox: Option<&'a BBox>,
    pub province: Option<&'a ProvinceAreas>,
    /// Where the shape's runs are kept once walked, when it is one search's
    /// (search/query/filter.rs): a text search walks them up to three
    /// times, to count and to page each tier, and placing the thousand
    /// cells of a 50 km circle was a sixth of such a search.
    pub kept: Option<&'a KeptRuns>,
}

/// A shape's runs of positions, each with whether its cell lies wholly
/// inside; made by the first walk of a circle or a viewport.
pub type KeptRuns = OnceCell<Vec<((usize, usize), bool)>>;

/// Rows `runs_in_rows` takes for the whole grid.
const EVERY_ROW: (i32, i32) = (i32::MIN, i32::MAX);

impl Shape<'_> {
    /// Whether the area at a grid position meets every criterion.
    pub fn holds(&self, index: &AreaIndex, position: usize) -> bool {
        self.province.is_none_or(|p| p.holds(position)) && self.holds_entry(index.at(position))
    }

    /// Whether an area meets the score floor, the circle and the viewport.
    pub fn holds_entry(&self, e: &Entry) -> bool {
        e.truth_score >= self.min_score
            && self.disc.is_none_or(|d| d.contains(&e.unit, e.lat, e.lng))
            && self.bbox.is_none_or(|b| b.contains(e.lat, e.lng))
    }

    /// `sets`, and the province's bitmap in grid order or in score order
    /// when there is one.
    fn with_province<'b>(&self, sets: &[&'b Bits], by_score: bool) -> Vec<&'b Bits>
    where
        Self: 'b,
    {
        let province = self.province.map(|p| {
            if by_score {
                &p.by_score
            } else {
                &p.by_position
            }
        });
        sets.iter().copied().chain(province).collect()
    }
}

impl AreaIndex {
    /// Calls `each` with the run of positions of every cell the shape
    /// touches, cut to the floor, and whether the cell lies wholly inside.
    pub fn runs(&self, shape: &Shape, mut each: impl FnMut((usize, usize), bool)) {
        let Some(runs) = self.kept_runs(shape) else {
            return self.runs_in_rows(shape, EVERY_ROW, each);
        };
        for &(run, whole) in runs {
            each(run, whole);
        }
    }

    /// The runs of a shape that keeps them (a circle or a viewport, with a
    /// place to keep them), made by the first call.
    pub fn kept_runs<'s>(&self, shape: &Shape<'s>) -> Option<&'s [((usize, usize), bool)]> {
        // A floor alone touches every cell of the grid (27,000 at a
        // million areas): keeping its runs would cost more than a walk.
        let kept = shape
            .kept
            .filter(|_| shape.disc.is_some() || shape.bbox.is_some())?;
        let runs = kept.get_or_init(|| {
            let mut runs = Vec::new();
            self.runs_in_rows(shape, EVERY_ROW, |run, whole| runs.push((run, whole)));
            runs
        });
        Some(runs)
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
        let [total] = self.count_in_each(shape, [sets]);
        total
    }

    /// `count_in` for each of several lists of sets, in one walk of the
    /// shape's cells: the walk (a search of each cell's scores for the
    /// floor, and a look at each area of an edge cell) costs more than the
    /// popcounts.
    pub fn count_in_each<const N: usize>(&self, shape: &Shape, sets: [&[&Bits]; N]) -> [usize; N] {
        let sets = sets.map(|s| shape.with_province(s, false));
        let mut totals = [0; N];
        self.runs(shape, |(a, b), whole| {
            if whole {
                for (total, sets) in totals.iter_mut().zip(&sets) {
                    *total += count_all(sets, a, b);
                }
                return;
            }
            for i in a..b {
                let held = sets.each_ref().map(|s| in_all(s, i));
                if held.contains(&true) && shape.holds_entry(self.at(i)) {
                    for (total, held) in totals.iter_mut().zip(held) {
                        *total += usize::from(held);
                    }
                }
            }
        });
        totals
    }

    /// Calls `each` on the position and area of every area in the shape set
    /// in all of `sets`.
    pub fn each_in(&self, shape: &Shape, sets: &[&Bits], mut each: impl FnMut(usize, &Entry)) {
        let sets = &shape.with_province(sets, false)[..];
        self.runs(shape, |(a, b), whole| {
            each_in_all(sets, a, b, |i| {
                let e = self.at(i);
                if whole || shape.holds_entry(e) {
                    each(i, e);
                }
            });
        });
    }

    /// How many areas of a shape without circle or viewport (a floor, a
    /// province) are set in every one of `sets`, bitmaps in score order:
    /// one popcount over a prefix.
    pub fn count_scoring_in(&self, shape: &Shape, sets: &[&Bits]) -> usize {
        let sets = &shape.with_province(sets, true)[..];
        count_all(sets, 0, self.count_scoring(shape.min_score) as usize)
    }

    /// Calls `each` on the position and area of every area of a shape
    /// without circle or viewport set in all of `sets`, bitmaps in score
    /// order, best score first.
    pub fn each_scoring_in(
        &self,
        shape: &Shape,
        sets: &[&Bits],
        mut each: impl FnMut(usize, &Entry),
    ) {
        let sets = &shape.with_province(sets, true)[..];
        each_in_all(sets, 0, self.count_scoring(shape.min_score) as usize, |j| {
            let i = self.by_score(j);
            each(i, self.at(i));
        });
    }

    /// How many areas of a shape without circle or viewport are set in
    /// every one of `sets` (bitmaps in score order), and the positions of
    /// those at places `from` up to `to` among them, best score first, ties
    /// by area_no.
    pub fn page_scoring_in(
        &self,
        shape: &Shape,
        sets: &[&Bits],
        (from, to): (usize, usize),
    ) -> (usize, Vec<usize>) {
        let sets = &shape.with_province(sets, true)[..];
        let end = self.count_scoring(shape.min_score) as usize;
        let total = count_all(sets, 0, end);
        let mut page = Vec::new();
        let mut next = nth_in_all(sets, from, 0, end);
        while let Some(j) = next.filter(|_| from + page.len() < to) {
            page.push(self.by_score(j));
            next = next_in_all(sets, j + 1, end);
        }
        (total, page)
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
