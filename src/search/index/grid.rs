//! The grid of the area index (search/index/mod.rs): an area's entry, the
//! cells of `CELL_DEG` degrees that group the entries, where a cell lies
//! against a search shape, and the row and column of a place.

use crate::search::index::geo::unit_vector32;

/// What search reads of one area: 40 bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entry {
    pub lat: f64,
    pub lng: f64,
    pub truth_score: f64,
    /// The position on the unit sphere, for chord tests without
    /// trigonometry; in single precision, with its error bounded where it
    /// is used (geo.rs, `chord2_to32`).
    pub unit: [f32; 3],
    pub area_no: u32,
}

/// The side of a grid cell, in degrees (about 2.2 km by 2 km in South Africa):
/// small enough that the cells a 50 km circle's edge crosses hold few areas,
/// large enough that the cells inside it are few hundred.
pub const CELL_DEG: f64 = 0.02;

/// A non-empty grid cell: its row and column, and where its areas lie.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    pub row: i32,
    pub col: i32,
    pub(in crate::search) start: u32,
    pub(in crate::search) end: u32,
}

/// Where a grid cell lies against a search shape (a circle, a box), best
/// first: of two judgements (say a circle's and a box's), the larger is the
/// cell's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    Inside,
    Edge,
    Outside,
}

/// In a table from area_no to position: no area has that number.
pub const NO_SLOT: u32 = u32::MAX;

/// The grid row of a latitude and the column of a longitude.
pub fn row_of(lat: f64) -> i32 {
    ((lat + 90.0) / CELL_DEG).floor() as i32
}

pub fn col_of(lng: f64) -> i32 {
    ((lng + 180.0) / CELL_DEG).floor() as i32
}

/// An area's entry, with its position on the unit sphere.
pub(super) fn entry(area_no: u32, lat: f64, lng: f64, truth_score: f64) -> Entry {
    Entry {
        unit: unit_vector32(lat, lng),
        lat,
        lng,
        truth_score,
        area_no,
    }
}
