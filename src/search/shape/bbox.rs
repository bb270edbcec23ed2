//! Map viewports: a latitude/longitude box in GeoJSON order (west, south,
//! east, north), and the areas of the grid (search/index/) inside one.
//!
//! An area is in when its centre lies inside, edges included. A box whose
//! west edge is east of its east edge crosses the antimeridian: it holds the
//! longitudes from the west edge to 180 and from -180 to the east edge.
//!
//! Grid cells are judged by their own bounds: a cell wholly inside is taken
//! whole (its areas are sorted best score first, so a score floor is a binary
//! search), one wholly outside is skipped, and only the cells an edge crosses
//! are read area by area. The best-scoring areas of a viewport are merged
//! from its cells' runs, each already best first, so a page costs its own
//! length and the number of cells, not the number of areas inside. A
//! province is one bit an area (search/index/provinces.rs): a popcount over a whole
//! cell's run, a look at each area of the others.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::search::index::AreaIndex;

use crate::search::index::bitmap::count_all;
use crate::search::index::grid::{CELL_DEG, Cell, Entry, Place, col_of, row_of};
use crate::search::index::provinces::ProvinceAreas;

/// A box in degrees; `min_lng > max_lng` crosses the antimeridian.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BBox {
    pub min_lng: f64,
    pub min_lat: f64,
    pub max_lng: f64,
    pub max_lat: f64,
}

/// Degrees by which a cell's bounds are widened before they are compared, so
/// that rounding in `row_of`/`col_of` never puts an area outside its cell.
const MARGIN_DEG: f64 = 1e-9;

impl BBox {
    pub fn crosses_antimeridian(&self) -> bool {
        self.min_lng > self.max_lng
    }

    pub fn contains(&self, lat: f64, lng: f64) -> bool {
        (self.min_lat..=self.max_lat).contains(&lat)
            && (self.holds_lng(lng) || (lng.abs() == 180.0 && self.holds_lng(-lng)))
    }

    /// Whether the box spans a longitude, read as written (180 and -180 are
    /// one meridian: `contains` takes either for the other).
    fn holds_lng(&self, lng: f64) -> bool {
        if self.crosses_antimeridian() {
            lng >= self.min_lng || lng <= self.max_lng
        } else {
            (self.min_lng..=self.max_lng).contains(&lng)
        }
    }

    /// The grid column of the antimeridian's other side when the box holds
    /// one side and its column spans miss the other: longitude 180 lies in
    /// the last column, -180 in the first.
    fn other_side_cols(&self) -> Vec<i32> {
        let spans = self.col_spans();
        let covered = |col: i32| spans.iter().any(|(a, b)| (*a..=*b).contains(&col));
        [(180.0, col_of(-180.0)), (-180.0, col_of(180.0))]
            .into_iter()
            .filter(|&(edge, col)| self.holds_lng(edge) && !covered(col))
            .map(|(_, col)| col)
            .collect()
    }

    /// The grid rows the box touches, top to bottom in row numbers.
    pub fn rows(&self) -> (i32, i32) {
        (row_of(self.min_lat), row_of(self.max_lat))
    }

    /// The grid column ranges the box touches: one, or two when it crosses
    /// the antimeridian (the second is empty, `(1, 0)`, when there is one).
    pub fn col_spans(&self) -> [(i32, i32); 2] {
        let (west, east) = (col_of(self.min_lng), col_of(self.max_lng));
        if self.crosses_antimeridian() {
            [(west, col_of(180.0)), (col_of(-180.0), east)]
        } else {
            [(west, east), (1, 0)]
        }
    }

    /// Where a cell lies, from its bounds widened by `MARGIN_DEG`.
    pub fn place(&self, cell: &Cell) -> Place {
        let south = f64::from(cell.row) * CELL_DEG - 90.0;
        let west = f64::from(cell.col) * CELL_DEG - 180.0;
        let (lat_lo, lat_hi) = (south - MARGIN_DEG, south + CELL_DEG + MARGIN_DEG);
        let (lng_lo, lng_hi) = (west - MARGIN_DEG, west + CELL_DEG + MARGIN_DEG);
        let lat = overlap(lat_lo, lat_hi, self.min_lat, self.max_lat);
        if self.other_side_cols().contains(&cell.col) {
            // Its areas on the antimeridian are in; the others are not.
            return lat.max(Place::Edge);
        }
        let lng = if self.crosses_antimeridian() {
            let a = overlap(lng_lo, lng_hi, self.min_lng, 180.0);
            let b = overlap(lng_lo, lng_hi, -180.0, self.max_lng);
            a.min(b)
        } else {
            overlap(lng_lo, lng_hi, self.min_lng, self.max_lng)
        };
        lat.max(lng)
    }
}

/// How the range [lo, hi] lies against [from, to].
fn overlap(lo: f64, hi: f64, from: f64, to: f64) -> Place {
    if hi < from || lo > to {
        Place::Outside
    } else if lo >= from && hi <= to {
        Place::Inside
    } else {
        Place::Edge
    }
}

impl AreaIndex {
    /// The non-empty cells the box touches, with where each lies.
    pub fn cells_in_box<'a>(&'a self, bbox: &'a BBox) -> impl Iterator<Item = (&'a Cell, Place)> {
        let (top, bottom) = bbox.rows();
        let mut spans: Vec<(i32, i32)> = bbox
            .col_spans()
            .into_iter()
            .filter(|(a, b)| a <= b)
            .collect();
        spans.extend(bbox.other_side_cols().into_iter().map(|col| (col, col)));
        (top..=bottom).flat_map(move |row| {
            spans
                .clone()
                .into_iter()
                .flat_map(move |(a, b)| self.cells_in_row(row, a, b))
                .map(|cell| (cell, bbox.place(cell)))
                .filter(|(_, place)| *place != Place::Outside)
        })
    }

    /// Every area in the box scoring at least `min_score`.
    pub fn in_box<'a>(&'a self, bbox: &'a BBox, min_score: f64) -> impl Iterator<Item = &'a Entry> {
        let floor = self.floor(min_score);
        self.cells_in_box(bbox).flat_map(move |(cell, place)| {
            let areas = self.areas_of(cell);
            let scoring = &areas[..self.scoring_in_cell(cell, &floor)];
            scoring
                .iter()
                .filter(move |e| place == Place::Inside || bbox.contains(e.lat, e.lng))
        })
    }
}

/// A cell's areas scoring enough, best first, where they start among the
/// grid positions, and whether each must be tested against the box (a cell
/// the edge crosses).
struct Run<'a> {
    areas: &'a [Entry],
    start: usize,
    test: bool,
}

impl Run<'_> {
    /// Whether the run's `j`th area lies in the box and the province.
    fn holds(&self, bbox: &BBox, province: Option<&ProvinceAreas>, j: usize) -> bool {
        province.is_none_or(|p| p.holds(self.start + j))
            && (!self.test || bbox.contains(self.areas[j].lat, self.areas[j].lng))
    }

    /// The first area from `i` on that lies in the box and the province.
    fn next_from(&self, bbox: &BBox, province: Option<&ProvinceAreas>, i: usize) -> Option<usize> {
        (i..self.areas.len()).find(|&j| self.holds(bbox, province, j))
    }
}

impl AreaIndex {
    /// How many areas in the box score at least `min_score` (and lie in the
    /// province, when given), and the area_no of the best `k` of them, best
    /// score first, ties by area_no.
    pub fn best_in_box(
        &self,
        bbox: &BBox,
        min_score: f64,
        province: Option<&ProvinceAreas>,
        k: usize,
    ) -> (usize, Vec<u32>) {
        let mut runs = Vec::new();
        let mut total = 0;
        let floor = self.floor(min_score);
        for (cell, place) in self.cells_in_box(bbox) {
            let (start, end) = self.scoring_run(cell, &floor);
            let run = Run {
                areas: &self.areas_of(cell)[..end - start],
                start,
                test: place != Place::Inside,
            };
            total += match (run.test, province) {
                (false, None) => run.areas.len(),
                (false, Some(p)) => count_all(&[&p.by_position], start, end),
                (true, _) => (0..run.areas.len())
                    .filter(|&j| run.holds(bbox, province, j))
                    .count(),
            };
            runs.push(run);
        }
        // Each run's head, smallest key first: (score descending, area_no).
        let key = |e: &Entry| (Reverse(e.truth_score.to_bits()), e.area_no);
        let mut heads: BinaryHeap<Reverse<_>> = runs
            .iter()
            .enumerate()
            .filter_map(|(r, run)| {
                run.next_from(bbox, province, 0)
                    .map(|i| Reverse((key(&run.areas[i]), r, i)))
            })
            .collect();
        let mut best = Vec::with_capacity(k.min(total));
        while best.len() < k {
            let Some(Reverse((_, r, i))) = heads.pop() else {
                break;
            };
            let run = &runs[r];
            best.push(run.areas[i].area_no);
            if let Some(j) = run.next_from(bbox, province, i + 1) {
                heads.push(Reverse((key(&run.areas[j]), r, j)));
            }
        }
        (total, best)
    }
}

#[cfg(test)]
#[path = "bbox_tests.rs"]
mod tests;
