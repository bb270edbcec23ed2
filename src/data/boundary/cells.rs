//! The grid that gives the area at a point its candidate boundaries
//! (schema.sql, `area_boundary_cells`), so that finding them is a few seeks
//! of an ordinary index rather than a walk of an R*Tree.
//!
//! The grid has `LEVELS` levels of square cells in degrees of latitude and
//! longitude, each level's cells four times as wide as the one below. A
//! boundary is filed under the finest level at which its box, grown by the
//! reach beside a boundary (`reach`), meets at most `SPAN_MAX` cells on each
//! axis, and under every cell it meets there (the coarsest level takes the
//! rest, however many cells they meet). A point then finds every boundary
//! whose grown box holds it among those filed under its own cell at each
//! level: one cell a level, and no boundary twice, since each is filed at
//! one level only. Cells are only a first cut; the boxes judge after them.

use super::locate::NEAR_BOUNDARY_KM;
use crate::search::index::geo::EARTH_RADIUS_KM;

/// The grid's levels, finest first.
pub const LEVELS: usize = 7;
/// The width of a cell at the finest level, in degrees (about 1.1 km of
/// latitude): a suburb's box meets a few of them.
const FINEST_DEGREES: f64 = 0.01;
/// How many cells a box may meet on each axis at the level it is filed at.
const SPAN_MAX: i64 = 2;

/// Kilometres in a degree of latitude on the mean Earth.
const KM_PER_DEGREE: f64 = EARTH_RADIUS_KM * std::f64::consts::PI / 180.0;

/// How far beside a boundary a point is still near it, in degrees of
/// latitude and of longitude, at latitude `lat` and a little beyond: at the
/// latitude farthest from the equator the reach gets to, a degree of
/// longitude is shortest; near a pole every longitude is near.
pub fn reach(lat: f64) -> (f64, f64) {
    let grow_lat = NEAR_BOUNDARY_KM / KM_PER_DEGREE * 1.01;
    let far_lat = (lat.abs() + grow_lat).min(90.0);
    let grow_lng = match far_lat.to_radians().cos() {
        c if c > 1e-3 => grow_lat / c,
        _ => 360.0,
    };
    (grow_lat, grow_lng)
}

/// A cell's number: its level, then its row (from the south pole) and its
/// column (from the antimeridian), in bits of their own.
fn cell(level: usize, row: i64, column: i64) -> i64 {
    ((level as i64) << 40) | (row << 20) | column
}

/// The row and column of the cell holding (lat, lng) at `level`, a point
/// outside the globe's range taken to its edge.
fn place(level: usize, lat: f64, lng: f64) -> (i64, i64) {
    let width = FINEST_DEGREES * 4f64.powi(level as i32);
    let at = |v: f64, origin: f64, top: f64| ((v.clamp(-top, top) + origin) / width).floor() as i64;
    (at(lat, 90.0, 90.0), at(lng, 180.0, 180.0))
}

/// The cell numbers of `level`, as a half-open range.
pub fn level_range(level: usize) -> (i64, i64) {
    (cell(level, 0, 0), cell(level + 1, 0, 0))
}

/// The cell holding the point at each level, finest first.
pub fn of_point(lat: f64, lng: f64) -> [i64; LEVELS] {
    std::array::from_fn(|level| {
        let (row, column) = place(level, lat, lng);
        cell(level, row, column)
    })
}

/// The cells a boundary with this box (degrees) is filed under.
pub fn of_box(min_lng: f64, max_lng: f64, min_lat: f64, max_lat: f64) -> Vec<i64> {
    // A point near the box lies within the reach of its latitudes, so the
    // reach of the box's farthest latitude, once more, covers the point's.
    let (grow_lat, _) = reach(0.0);
    let (_, grow_lng) = reach(min_lat.abs().max(max_lat.abs()) + grow_lat);
    let (south, west) = (min_lat - grow_lat, min_lng - grow_lng);
    let (north, east) = (max_lat + grow_lat, max_lng + grow_lng);
    let span = |level| (place(level, south, west), place(level, north, east));
    let fits = |&level: &usize| {
        let ((row_0, column_0), (row_1, column_1)) = span(level);
        row_1 - row_0 < SPAN_MAX && column_1 - column_0 < SPAN_MAX
    };
    let level = (0..LEVELS).find(fits).unwrap_or(LEVELS - 1);
    let ((row_0, column_0), (row_1, column_1)) = span(level);
    (row_0..=row_1)
        .flat_map(|row| (column_0..=column_1).map(move |column| cell(level, row, column)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the point's grown box meets the box, as the area at a
    /// point's candidates statement judges it.
    fn near(
        (min_lng, max_lng, min_lat, max_lat): (f64, f64, f64, f64),
        lat: f64,
        lng: f64,
    ) -> bool {
        let (grow_lat, grow_lng) = reach(lat);
        min_lng <= lng + grow_lng
            && max_lng >= lng - grow_lng
            && min_lat <= lat + grow_lat
            && max_lat >= lat - grow_lat
    }

    /// A xorshift generator: the same boxes and points every run.
    struct Draws(u64);

    impl Draws {
        /// A number in [0, 1).
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }

        fn within(&mut self, low: f64, high: f64) -> f64 {
            low + self.next() * (high - low)
        }
    }

    #[test]
    fn every_point_near_a_box_finds_it_under_its_own_cells() {
        let mut draw = Draws(0x2545_f491_4f6c_dd1d);
        let mut boxes = vec![
            (16.4, 32.9, -34.9, -22.1),         // the country
            (-179.9, 179.9, -89.9, -80.0),      // near the south pole
            (179.95, 180.0, 10.0, 10.001),      // on the antimeridian
            (-0.0005, 0.0005, -0.0005, 0.0005), // astride the equator and the meridian
        ];
        // Boxes from 50 m to 20 degrees a side, anywhere.
        for _ in 0..400 {
            let (width, height) = (
                10f64.powf(draw.within(-3.3, 1.3)),
                10f64.powf(draw.within(-3.3, 1.3)),
            );
            let (west, south) = (
                draw.within(-180.0, 180.0 - width),
                draw.within(-89.0, 89.0 - height),
            );
            boxes.push((west, west + width, south, south + height));
        }
        for b in boxes {
            let filed = of_box(b.0, b.1, b.2, b.3);
            let (grow_lat, _) = reach(0.0);
            let (_, grow_lng) = reach(b.2.abs().max(b.3.abs()) + grow_lat);
            let mut found = 0;
            for _ in 0..400 {
                // Points in the box grown by twice the reach, most of them
                // in the band just around its edges, where cells part.
                let (pad_lat, pad_lng) = (2.0 * grow_lat, (2.0 * grow_lng).min(360.0));
                let edge = draw.next() < 0.7;
                let lat = match edge {
                    true if draw.next() < 0.5 => b.2 + draw.within(-pad_lat, pad_lat),
                    true => b.3 + draw.within(-pad_lat, pad_lat),
                    false => draw.within(b.2 - pad_lat, b.3 + pad_lat),
                };
                let lng = match edge {
                    true if draw.next() < 0.5 => b.0 + draw.within(-pad_lng, pad_lng),
                    true => b.1 + draw.within(-pad_lng, pad_lng),
                    false => draw.within(b.0 - pad_lng, b.1 + pad_lng),
                };
                let (lat, lng) = (lat.clamp(-90.0, 90.0), lng.clamp(-180.0, 180.0));
                if near(b, lat, lng) {
                    found += 1;
                    let cells = of_point(lat, lng);
                    assert!(
                        cells.iter().any(|c| filed.contains(c)),
                        "({lat}, {lng}) is near {b:?} but shares no cell with it"
                    );
                }
            }
            assert!(found > 50, "{b:?}: only {found} points near it");
        }
    }

    #[test]
    fn a_small_box_is_filed_under_few_fine_cells() {
        let filed = of_box(28.0, 28.004, -26.2, -26.197);
        assert!(filed.len() <= 4, "{filed:?}");
        assert!(
            filed.iter().all(|c| c >> 40 == 0),
            "the finest level: {filed:?}"
        );
        let country = of_box(16.4, 32.9, -34.9, -22.1);
        assert!(
            country.len() <= 4 && country.iter().all(|c| c >> 40 > 3),
            "{country:?}"
        );
    }
}
