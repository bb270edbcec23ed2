//! The trigonometry of the grid (search/index/), computed once for every
//! row and column rather than for each circle search: a search places each
//! cell it touches from the unit vector of the cell's centre and the cell's
//! reach, and computing those for the rows and columns of a 50 km circle's
//! box (some 300 sines and cosines) took half the time of placing its cells.

use std::sync::LazyLock;

use crate::search::index::geo::{chord2, unit_vector};
use crate::search::index::grid::{CELL_DEG, col_of, row_of};

/// A grid row: cos and sin of its centre latitude, and the reach of its
/// cells (the chord from a cell's centre to its farthest corner).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowGeometry {
    pub cos_lat: f64,
    pub sin_lat: f64,
    pub reach: f64,
}

/// Every row from the south pole's to the north pole's.
static ROWS: LazyLock<Vec<RowGeometry>> = LazyLock::new(|| (0..=row_of(90.0)).map(row).collect());

/// cos and sin of every column's centre longitude, from -180° to 180°.
static COLS: LazyLock<Vec<(f64, f64)>> = LazyLock::new(|| (0..=col_of(180.0)).map(col).collect());

fn row(row: i32) -> RowGeometry {
    let lat0 = f64::from(row) * CELL_DEG - 90.0;
    let centre = unit_vector(lat0 + CELL_DEG / 2.0, 0.0);
    let half = CELL_DEG / 2.0;
    let reach = chord2(&centre, &unit_vector(lat0, half))
        .max(chord2(&centre, &unit_vector(lat0 + CELL_DEG, half)))
        .sqrt();
    RowGeometry {
        cos_lat: centre[0],
        sin_lat: centre[2],
        reach,
    }
}

fn col(col: i32) -> (f64, f64) {
    let lng = (f64::from(col) * CELL_DEG - 180.0 + CELL_DEG / 2.0).to_radians();
    (lng.cos(), lng.sin())
}

/// cos and sin of every column's centre longitude, indexed by column: for
/// a walk of many cells, which derefs the table once.
pub fn col_table() -> &'static [(f64, f64)] {
    &COLS
}

/// A row's geometry (rows of latitudes from -90° to 90° are in the table).
pub fn row_geometry(r: i32) -> RowGeometry {
    usize::try_from(r)
        .ok()
        .and_then(|i| ROWS.get(i).copied())
        .unwrap_or_else(|| row(r))
}

/// A column's cos and sin (columns of longitudes from -180° to 180° are in
/// the table).
pub fn col_geometry(c: i32) -> (f64, f64) {
    usize::try_from(c)
        .ok()
        .and_then(|i| COLS.get(i).copied())
        .unwrap_or_else(|| col(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables hold what computing each row and column gives, at both
    /// poles and both sides of the antimeridian, and past them.
    #[test]
    fn the_tables_hold_each_row_and_column() {
        for lat in [-90.0, -89.99, -26.2, 0.0, 45.0, 89.99, 90.0] {
            assert_eq!(row_geometry(row_of(lat)), row(row_of(lat)), "{lat}");
        }
        for lng in [-180.0, -179.99, 0.0, 28.05, 179.99, 180.0] {
            assert_eq!(col_geometry(col_of(lng)), col(col_of(lng)), "{lng}");
        }
        assert_eq!(ROWS.len(), 9001);
        assert_eq!(COLS.len(), 18001);
        assert_eq!(row_geometry(-1), row(-1));
        assert_eq!(col_geometry(18001), col(18001));
    }
}
