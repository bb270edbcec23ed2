//! A circle's cells placed a grid row at a time (search/shape/circles.rs).
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
use crate::search::index::grid::{Cell, Place};
use crate::search::shape::cell_geometry::{RowGeometry, col_table, row_geometry};

/// A relative margin far above the rounding of a squared chord (1e-16).
const SLIVER: f64 = 1e-12;

impl<'a> Search<'a> {
    /// Calls `each` on every non-empty cell of `row` in the search's columns
    /// that the circle (alone) does not leave outside, with its place.
    pub(super) fn each_in_row(&self, row: i32, mut each: impl FnMut(&'a Cell, Place)) {
        let RowGeometry {
            cos_lat,
            sin_lat,
            reach,
        } = row_geometry(row);
        let [cx, cy, cz] = self.disc.centre;
        let dz2 = (cz - sin_lat) * (cz - sin_lat);
        // `place_in_circle`'s two tests, `surely_greater` solved for the
        // distance `d` between the centres.
        let r2 = self.disc.radius_chord2;
        let within = ((r2 - 1e-21) / (1.0 + 1e-9)).max(0.0).sqrt() - reach;
        let inside2 = if within > 0.0 {
            (within * (1.0 - SLIVER)).powi(2)
        } else {
            -1.0
        };
        let beyond = reach + (r2 * (1.0 + 1e-9) + 1e-21).sqrt();
        let outside2 = (beyond * (1.0 + SLIVER)).powi(2);
        let cols = col_table();
        for cell in self.index.cells_in_row(row, self.cols.0, self.cols.1) {
            let Some(&(cos_lng, sin_lng)) =
                usize::try_from(cell.col).ok().and_then(|c| cols.get(c))
            else {
                // No area lies past the table's columns; the exact test
                // places any such cell all the same.
                match self.place_in_circle(cell) {
                    Place::Outside => {}
                    place => each(cell, place),
                }
                continue;
            };
            let (dx, dy) = (cx - cos_lat * cos_lng, cy - cos_lat * sin_lng);
            let d2 = dx * dx + dy * dy + dz2;
            if d2 < inside2 {
                each(cell, Place::Inside);
            } else if d2 <= outside2 {
                each(cell, Place::Edge);
            }
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
                        let mut got = Vec::new();
                        search.each_in_row(row, |cell, place| got.push((*cell, place)));
                        let mut got = got.into_iter().peekable();
                        for cell in index.cells_in_row(row, search.cols.0, search.cols.1) {
                            let here = got.next_if(|(c, _)| c == cell).map(|(_, p)| p);
                            let here = here.unwrap_or(Place::Outside);
                            let exact = search.place_in_circle(cell);
                            assert!(
                                here == exact || here == Place::Edge,
                                "{circle:?} {cell:?}: {here:?}, exactly {exact:?}"
                            );
                            placed[here as usize] += 1;
                            differ += usize::from(here != exact);
                        }
                        assert_eq!(got.next(), None, "{circle:?}, row {row}: cells in order");
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
