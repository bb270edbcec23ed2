//! A circle's cells placed a grid row at a time (search/shape/circles/).
//!
//! Every cell of a row has the same latitude, sine and cosine, and reach, so
//! what the exact test of one cell (`Search::place_in_circle`) derives from
//! them is derived once a row: two squared chords from the circle's centre,
//! within the first of which a cell's centre lies wholly inside, beyond the
//! second wholly outside. A cell is then a few multiplications and two
//! comparisons, without the square root. A 50 km circle's search places a
//! thousand cells or more, and placing them was a tenth of the search.
//!
//! Both chords are drawn a relative 1e-12 tighter than the exact test's
//! bounds, far more than the rounding of squaring them: a cell placed inside
//! or outside here is placed so by the exact test too. Only a cell within
//! that sliver of a bound is read as an edge cell, whose areas are each
//! tested.

use super::Search;
use crate::search::index::geo::{chord2, surely_greater};
use crate::search::index::grid::{Cell, Place};
use crate::search::shape::cell_geometry::{RowGeometry, col_geometry, col_table, row_geometry};

/// A relative margin far above the rounding of a squared chord (1e-16).
const SLIVER: f64 = 1e-12;

/// One grid row's test of its cells against a circle.
pub(super) struct RowTest {
    cos_lat: f64,
    /// The circle's centre's x and y, and the squared difference in z.
    cx: f64,
    cy: f64,
    dz2: f64,
    /// A cell whose centre's squared chord from the circle's is below this
    /// lies wholly inside (negative when none can).
    inside2: f64,
    /// One above this lies wholly outside.
    outside2: f64,
    cols: &'static [(f64, f64)],
}

impl Search<'_> {
    /// `place_in_circle`'s two tests, `surely_greater` solved once for the
    /// distance between the centres of the circle and of a cell of `row`.
    pub(super) fn row_test(&self, row: i32) -> RowTest {
        let RowGeometry {
            cos_lat,
            sin_lat,
            reach,
        } = row_geometry(row);
        let [cx, cy, cz] = self.disc.centre;
        let r2 = self.disc.radius_chord2;
        let within = ((r2 - 1e-21) / (1.0 + 1e-9)).max(0.0).sqrt() - reach;
        let inside2 = if within > 0.0 {
            (within * (1.0 - SLIVER)).powi(2)
        } else {
            -1.0
        };
        let beyond = reach + (r2 * (1.0 + 1e-9) + 1e-21).sqrt();
        RowTest {
            cos_lat,
            cx,
            cy,
            dz2: (cz - sin_lat) * (cz - sin_lat),
            inside2,
            outside2: (beyond * (1.0 + SLIVER)).powi(2),
            cols: col_table(),
        }
    }

    /// Where a cell lies against the circle alone: the exact test, for a
    /// cell on its own.
    pub(super) fn place_in_circle(&self, cell: &Cell) -> Place {
        let RowGeometry {
            cos_lat,
            sin_lat,
            reach,
        } = row_geometry(cell.row);
        let (cos_lng, sin_lng) = col_geometry(cell.col);
        let centre = [cos_lat * cos_lng, cos_lat * sin_lng, sin_lat];
        // The cell's areas are within `reach` of its centre (the farthest
        // point of a latitude/longitude cell from its centre is a corner).
        let d = chord2(&self.disc.centre, &centre).sqrt();
        let r2 = self.disc.radius_chord2;
        if surely_greater(r2, (d + reach) * (d + reach)) {
            Place::Inside
        } else if d > reach && surely_greater((d - reach) * (d - reach), r2) {
            Place::Outside
        } else {
            Place::Edge
        }
    }

    /// Where a cell lies against the circle and the viewport, if any, in
    /// a walk of a row's cells: `place`, by the row's test.
    pub(super) fn place_by(&self, test: &RowTest, cell: &Cell) -> Place {
        self.in_viewport(test.place(self, cell), cell)
    }
}

impl RowTest {
    /// Where a cell of the row lies against the circle alone.
    #[inline]
    pub(super) fn place(&self, search: &Search, cell: &Cell) -> Place {
        let Some(&(cos_lng, sin_lng)) = usize::try_from(cell.col)
            .ok()
            .and_then(|c| self.cols.get(c))
        else {
            // No area lies past the table's columns; the exact test places
            // any such cell all the same.
            return search.place_in_circle(cell);
        };
        let (dx, dy) = (
            self.cx - self.cos_lat * cos_lng,
            self.cy - self.cos_lat * sin_lng,
        );
        let d2 = dx * dx + dy * dy + self.dz2;
        if d2 < self.inside2 {
            Place::Inside
        } else if d2 <= self.outside2 {
            Place::Edge
        } else {
            Place::Outside
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Search, Within};
    use crate::search::index::geo::{Circle, Disc};
    use crate::search::index::grid::Place;
    use crate::search::index::test_points::{cloud, index_of};

    /// Row by row, no cell is placed more boldly than the exact test places
    /// it alone (inside or outside where that test says edge), and all but a
    /// sliver get the same place: circles of every size, at a pole, across
    /// the antimeridian and at the equator.
    #[test]
    fn a_row_places_each_cell_as_the_cell_alone_is_placed() {
        let centres = [
            (-26.2, 28.05),
            (-33.9, 18.4),
            (0.0, 179.95),
            (-89.8, 10.0),
            (0.0, 0.0),
            (60.0, -0.01),
        ];
        let index = index_of(&cloud(&centres, 4000, 11));
        let (mut placed, mut differ) = ([0usize; 3], 0);
        for &(lat, lng) in &centres {
            for radius_km in [0.3, 2.0, 10.0, 50.0, 150.0] {
                for shift in [0.0, 0.011, -0.037] {
                    let circle = Circle {
                        lat: lat + shift,
                        lng: lng - shift,
                        radius_km,
                    };
                    let disc = Disc::new(circle);
                    let search = Search::new(&index, &disc, Within::default(), 0.0, None);
                    for row in search.rows.0..=search.rows.1 {
                        let test = search.row_test(row);
                        for cell in index.cells_in_row(row, search.cols.0, search.cols.1) {
                            let here = test.place(&search, cell);
                            let exact = search.place_in_circle(cell);
                            assert!(
                                here == exact || here == Place::Edge,
                                "{circle:?} {cell:?}: {here:?}, exactly {exact:?}"
                            );
                            placed[here as usize] += 1;
                            differ += usize::from(here != exact);
                        }
                    }
                }
            }
        }
        assert!(placed.iter().all(|&n| n > 1000), "{placed:?}");
        assert!(
            differ * 10_000 < placed.iter().sum(),
            "{differ} of {placed:?}"
        );
    }
}
