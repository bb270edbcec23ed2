//! A search's shape (region.rs) as bits over the positions it spans, for
//! testing thousands of a word's matches against it: the areas of the grid
//! cells wholly inside in one bitmap, those of the cells its edge crosses in
//! another. A match in neither is out, one inside is in when its score's
//! place (2 bytes) is above the floor's, and only one in an edge cell is
//! read and tested.
//!
//! At a million areas the entries (40 bytes an area, 40 MB) lie out of the
//! cache, and a word's list of a few thousand matches read each entry: half
//! the time of a search for a town's name in a 50 km circle above a floor
//! (bench/PROFILE.md). The bitmaps of such a circle's span (a band of grid
//! rows across the country, about 60 KB at a million areas) stay in it.

use std::cell::Cell;

use crate::search::index::{AreaIndex, Floor};

use crate::search::index::geo::bounding_box;
use crate::search::index::grid::{CELL_DEG, col_of, row_of};
use crate::search::shape::region::Shape;

/// The shape's cells, as bits over positions from `base`: the cells inside
/// in the first `len` words, those of the edge in the next `len`.
pub struct ShapeMask {
    base: usize,
    len: usize,
    words: Vec<u64>,
    /// The floor, tested for a match inside from its score's place.
    floor: Floor,
}

thread_local! {
    /// The words of the thread's last mask, for its next: words allocated
    /// afresh for each search came as new pages from the kernel, a fault on
    /// the first write to each (a fifth of making a mask at a million areas).
    static SPARE: Cell<Vec<u64>> = const { Cell::new(Vec::new()) };
}

impl Drop for ShapeMask {
    fn drop(&mut self) {
        SPARE.set(std::mem::take(&mut self.words));
    }
}

impl AreaIndex {
    /// The ranks of `ranks` whose areas meet the shape, in their order,
    /// tested against the shape's mask over the positions they span.
    pub fn held(&self, shape: &Shape, ranks: &[u32]) -> Vec<u32> {
        let positions: Vec<Option<usize>> = ranks
            .iter()
            .map(|&r| self.position_of_rank(i64::from(r)))
            .collect();
        let span = positions
            .iter()
            .flatten()
            .fold(None, |span, &p| match span {
                None => Some((p, p)),
                Some((lo, hi)) => Some((p.min(lo), p.max(hi))),
            });
        let Some(span) = span else {
            return Vec::new();
        };
        let mask = self.mask(shape, span);
        ranks
            .iter()
            .zip(&positions)
            .filter(|(_, p)| p.is_some_and(|p| mask.holds(self, shape, p)))
            .map(|(&r, _)| r)
            .collect()
    }

    /// The mask of a shape over positions `span.0` to `span.1` (inclusive):
    /// one look at each grid cell it touches in the rows of the span. A
    /// town's name matches areas of a few rows, and making the mask of every
    /// row of a 50 km circle was a tenth of such a search at a million areas.
    /// The cells are not cut to the floor: that cut is a search in each
    /// cell, and at a million areas, cache misses in each; the matches
    /// tested are fewer.
    pub fn mask(&self, shape: &Shape, span: (usize, usize)) -> ShapeMask {
        let mut runs = Vec::new();
        // Its runs are not the floored shape's.
        let unfloored = Shape {
            min_score: f64::NEG_INFINITY,
            kept: None,
            ..*shape
        };
        let row_at = |p: usize| row_of(self.at(p.min(self.area_count().saturating_sub(1))).lat);
        let rows = (row_at(span.0), row_at(span.1));
        let (from, to) = (span.0, span.1.saturating_add(1));
        self.runs_in_rows(&unfloored, rows, |(a, b), whole| {
            if a < to && from < b {
                runs.push(((a.max(from), b.min(to)), whole));
            }
        });
        self.mask_of_runs(shape, &runs)
    }

    /// The mask of a shape from its runs (region.rs), each with whether its
    /// cell lies wholly inside; cut to the floor or not.
    pub fn mask_of_runs(&self, shape: &Shape, runs: &[((usize, usize), bool)]) -> ShapeMask {
        let base = runs.iter().map(|r| r.0.0).min().unwrap_or(0);
        let end = runs.iter().map(|r| r.0.1).max().unwrap_or(0);
        let len = end.saturating_sub(base).div_ceil(64);
        let mut words = SPARE.take();
        words.clear();
        words.resize(2 * len, 0);
        let (inside, edge) = words.split_at_mut(len);
        for &((a, b), whole) in runs {
            let bits = if whole { &mut *inside } else { &mut *edge };
            set_run(bits, a - base, b - base);
        }
        ShapeMask {
            base,
            len,
            words,
            floor: self.floor(shape.min_score),
        }
    }
}

impl ShapeMask {
    /// Whether the area at `position` meets the shape the mask was made of.
    pub fn holds(&self, index: &AreaIndex, shape: &Shape, position: usize) -> bool {
        let Some(i) = position.checked_sub(self.base) else {
            return false;
        };
        let (w, bit) = (i / 64, 1u64 << (i % 64));
        if w >= self.len {
            false
        } else if self.words[w] & bit != 0 {
            index.scores_at_least(position, &self.floor)
                && shape.province.is_none_or(|p| p.holds(position))
        } else if self.words[self.len + w] & bit != 0 {
            shape.holds(index, position)
        } else {
            false
        }
    }
}

/// Sets bits `a` up to `b`: the words between the ends whole.
fn set_run(bits: &mut [u64], a: usize, b: usize) {
    if a >= b {
        return;
    }
    let (first, last) = (a / 64, (b - 1) / 64);
    let from = |i: usize| u64::MAX << (i % 64);
    let to = |i: usize| u64::MAX >> (63 - (i - 1) % 64);
    if first == last {
        bits[first] |= from(a) & to(b);
    } else {
        bits[first] |= from(a);
        bits[first + 1..last].fill(u64::MAX);
        bits[last] |= to(b);
    }
}

impl Shape<'_> {
    /// How many grid cells the shape's bounding box spans, empty or not: what
    /// making its mask costs at most, in cells.
    pub fn cells_spanned(&self) -> usize {
        let every_col = (col_of(180.0) - col_of(-180.0) + 1) as usize;
        let span = |min_lat: f64, max_lat: f64, cols: usize| {
            (row_of(max_lat) - row_of(min_lat) + 1).max(1) as usize * cols
        };
        let in_disc = self.disc.map(|d| {
            let b = bounding_box(&d.circle);
            let cols = (col_of(b.max_lng) - col_of(b.min_lng) + 1).max(1) as usize;
            span(b.min_lat, b.max_lat, cols.min(every_col))
        });
        let in_box = self.bbox.map(|b| {
            let cols: i32 = b.col_spans().iter().map(|(a, z)| (z - a + 1).max(0)).sum();
            span(b.min_lat, b.max_lat, (cols.max(1) as usize).min(every_col))
        });
        match (in_disc, in_box) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            // A floor alone: the whole grid.
            (None, None) => (180.0 / CELL_DEG) as usize * every_col,
        }
    }
}

#[cfg(test)]
#[path = "shape_mask_tests.rs"]
mod tests;
