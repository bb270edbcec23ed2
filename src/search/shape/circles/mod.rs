//! Circle searches over the area grid (search/index/): how many areas lie
//! within a circle with at least a minimum score (leaving one out, for
//! nearby), and which k of them are nearest.
//!
//! A cell is judged by the triangle inequality on chords, which are distances
//! in 3-D space: a cell whose centre is nearer than the radius by more than
//! the cell's reach lies wholly inside and is counted by a binary search on
//! score; one farther by more than its reach is skipped; only the cells the
//! edge may cross are read area by area, by the haversine rule
//! (`Disc::contains`). The k nearest are searched ring by ring of cells
//! around the centre's cell, until no farther ring can hold a nearer area.
//! With a province, a cell wholly inside is counted by a popcount of the
//! province's bitmap over its areas scoring enough (search/index/provinces.rs).
//! Walks of every cell place them a row at a time (rows.rs).

use std::f64::consts::FRAC_PI_2;

pub use super::nearest::Hit;
use super::nearest::Kept;
use crate::search::index::bitmap::count_all;
use crate::search::index::geo::{Disc, bounding_box, surely_greater};
use crate::search::index::grid::{CELL_DEG, Cell, Entry, Place, col_of, row_of};
use crate::search::index::provinces::ProvinceAreas;
use crate::search::index::{AreaIndex, Floor};
use crate::search::shape::bbox::BBox;

/// The areas in a circle: how many, and the nearest few.
#[derive(Debug, PartialEq)]
pub struct Nearest {
    pub total: usize,
    /// By distance, then area_no.
    pub hits: Vec<Hit>,
}

impl AreaIndex {
    /// Counts the areas within the disc scoring at least `min_score` (all but
    /// `skip`), and keeps the `k` nearest.
    pub fn nearest(&self, disc: &Disc, min_score: f64, k: usize, skip: Option<i64>) -> Nearest {
        self.search(
            Search::new(self, disc, Within::default(), min_score, skip),
            k,
            true,
        )
    }

    /// As `nearest`, counting and keeping only the areas inside the viewport
    /// and the province too, each when given.
    pub fn nearest_within(&self, disc: &Disc, within: Within, min_score: f64, k: usize) -> Nearest {
        self.search(Search::new(self, disc, within, min_score, None), k, true)
    }

    /// The `k` nearest only, without counting the rest (nearby).
    pub fn nearest_hits(
        &self,
        disc: &Disc,
        min_score: f64,
        k: usize,
        skip: Option<i64>,
    ) -> Vec<Hit> {
        let search = Search::new(self, disc, Within::default(), min_score, skip);
        self.search(search, k, false).hits
    }

    /// Calls `each` on every non-empty cell the disc (inside `bbox` too, when
    /// given) may touch in grid rows `rows` (inclusive), with where it lies;
    /// cells surely outside are skipped.
    pub fn cells_in_disc(
        &self,
        disc: &Disc,
        bbox: Option<&BBox>,
        rows: (i32, i32),
        mut each: impl FnMut(&Cell, Place),
    ) {
        let within = Within {
            bbox,
            province: None,
        };
        let search = Search::new(self, disc, within, 0.0, None);
        for row in search.rows.0.max(rows.0)..=search.rows.1.min(rows.1) {
            let test = search.row_test(row);
            for cell in self.cells_in_row(row, search.cols.0, search.cols.1) {
                match search.place_by(&test, cell) {
                    Place::Outside => {}
                    place => each(cell, place),
                }
            }
        }
    }

    fn search(&self, search: Search, k: usize, count: bool) -> Nearest {
        let disc = search.disc;
        let mut kept = Kept::new(k);
        let total = if search.wraps || search.wide() {
            // Rings of columns would not meet across the antimeridian, and
            // near a pole a box is far wider in cells than it is tall: read
            // every cell that may hold a match instead.
            search.scan(true, |e| kept.offer(disc, e))
        } else {
            search.rings(&mut kept);
            if count { search.scan(false, |_| {}) } else { 0 }
        };
        Nearest {
            total,
            hits: kept.into_hits(),
        }
    }
}

/// What else a circle's areas must lie in: a viewport, a province.
#[derive(Clone, Copy, Default)]
pub struct Within<'a> {
    pub bbox: Option<&'a BBox>,
    pub province: Option<&'a ProvinceAreas>,
}

struct Search<'a> {
    index: &'a AreaIndex,
    disc: &'a Disc,
    min_score: f64,
    /// The same, placed among the distinct scores once.
    floor: Floor,
    /// The area left out, and its position.
    skip: Option<(usize, &'a Entry)>,
    /// A viewport the areas must lie in too.
    bbox: Option<&'a BBox>,
    province: Option<&'a ProvinceAreas>,
    rows: (i32, i32),
    cols: (i32, i32),
    wraps: bool,
    /// The largest |latitude| in the box, in radians.
    widest: f64,
}

impl<'a> Search<'a> {
    fn new(
        index: &'a AreaIndex,
        disc: &'a Disc,
        within: Within<'a>,
        min_score: f64,
        skip: Option<i64>,
    ) -> Self {
        let b = bounding_box(&disc.circle);
        let widest = b.min_lat.abs().max(b.max_lat.abs()).to_radians();
        let rows = (row_of(b.min_lat), row_of(b.max_lat));
        let cols = (col_of(b.min_lng), col_of(b.max_lng));
        let wraps = b.min_lng <= -180.0 || b.max_lng >= 180.0 || widest >= FRAC_PI_2;
        Search {
            index,
            disc,
            min_score,
            floor: index.floor(min_score),
            skip: skip
                .and_then(|no| index.position_of(no))
                .map(|i| (i, index.at(i))),
            bbox: within.bbox,
            province: within.province,
            rows,
            cols,
            wraps,
            widest,
        }
    }

    /// Whether the box spans many more columns than rows (high latitudes),
    /// where rings would visit mostly empty columns.
    fn wide(&self) -> bool {
        self.cols.1 - self.cols.0 > 4 * (self.rows.1 - self.rows.0 + 1)
    }

    /// Counts every match, calling `each` on the areas of the cells the edge
    /// may cross, and on those of cells wholly inside too when `every`.
    fn scan(&self, every: bool, mut each: impl FnMut(&Entry)) -> usize {
        let mut total = 0;
        for row in self.rows.0..=self.rows.1 {
            let test = self.row_test(row);
            for cell in self.index.cells_in_row(row, self.cols.0, self.cols.1) {
                total += match self.place_by(&test, cell) {
                    Place::Outside => 0,
                    Place::Inside if !every => self.count_inside(cell),
                    _ => self.each_match(cell, &mut each),
                };
            }
        }
        total
    }

    /// Offers the areas of rings of cells around the centre's cell, nearest
    /// rings first, until the k nearest so far are surely nearer than any
    /// area in the next ring.
    fn rings(&self, kept: &mut Kept) {
        let c = &self.disc.circle;
        let (r0, c0) = (row_of(c.lat), col_of(c.lng));
        for t in 0i32.. {
            if let Some(far) = kept.farthest() {
                // A ring-t cell is at least t-1 whole cells from the centre in
                // latitude or in longitude.
                let gap = (f64::from((t - 1).max(0)) * CELL_DEG).to_radians() / 2.0;
                let nearest_chord = 2.0 * self.widest.cos() * gap.sin();
                if surely_greater(nearest_chord * nearest_chord, far) {
                    return;
                }
            }
            let (top, bottom) = (r0 - t, r0 + t);
            if top < self.rows.0
                && bottom > self.rows.1
                && c0 - t < self.cols.0
                && c0 + t > self.cols.1
            {
                return;
            }
            let (from, to) = ((c0 - t).max(self.cols.0), (c0 + t).min(self.cols.1));
            for row in top.max(self.rows.0)..=bottom.min(self.rows.1) {
                // The top and bottom rows of the ring whole; the rows between
                // only at its two edge columns.
                let spans = if row == top || row == bottom {
                    [(from, to), (1, 0)]
                } else {
                    [(c0 - t, c0 - t), (c0 + t, c0 + t)]
                };
                for (a, b) in spans {
                    if a > b || b < from || a > to {
                        continue;
                    }
                    for cell in self.index.cells_in_row(row, a, b) {
                        if self.place(cell) != Place::Outside {
                            self.each_match(cell, |e| kept.offer(self.disc, e));
                        }
                    }
                }
            }
        }
    }

    /// Calls `each` on the cell's areas that match; how many did. A plain
    /// loop, inlined with its test: called through an iterator's filter, a
    /// call for each area (20,000 in a 50 km circle's edge cells at a
    /// million areas) cost what placing cells a row at a time saved.
    #[inline(always)]
    fn each_match(&self, cell: &Cell, mut each: impl FnMut(&'a Entry)) -> usize {
        let start = cell.start as usize;
        let mut n = 0;
        for (j, e) in self.index.areas_of(cell).iter().enumerate() {
            // `&`, not `&&`: every test is cheap, and branches on whether an
            // area is in the circle are mispredicted half the time.
            if (e.truth_score >= self.min_score)
                & self.skip.is_none_or(|s| s.1.area_no != e.area_no)
                & self.province.is_none_or(|p| p.holds(start + j))
                & self.disc.contains(&e.unit, e.lat, e.lng)
                & self.bbox.is_none_or(|b| b.contains(e.lat, e.lng))
            {
                each(e);
                n += 1;
            }
        }
        n
    }

    /// A cell wholly inside: its areas scoring enough (they are sorted best
    /// first) and in the province, less the one left out if it is here.
    fn count_inside(&self, cell: &Cell) -> usize {
        let (a, b) = self.index.scoring_run(cell, &self.floor);
        let n = match self.province {
            None => b - a,
            Some(p) => count_all(&[&p.by_position], a, b),
        };
        let skipped = self
            .skip
            .is_some_and(|(i, _)| (a..b).contains(&i) && self.province.is_none_or(|p| p.holds(i)));
        n - usize::from(skipped)
    }

    /// Where a cell lies against the circle and the viewport, if any.
    fn place(&self, cell: &Cell) -> Place {
        self.in_viewport(self.place_in_circle(cell), cell)
    }

    /// A cell's place in the circle, narrowed by the viewport, if any.
    fn in_viewport(&self, in_circle: Place, cell: &Cell) -> Place {
        self.bbox
            .map_or(in_circle, |b| in_circle.max(b.place(cell)))
    }
}

mod rows;

#[cfg(test)]
mod tests;
