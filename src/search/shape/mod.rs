//! The areas of a place over the area index's grid (search/index/): within
//! a circle, with the k nearest (`circles`, `nearest`, the grid's
//! trigonometry in `cell_geometry`), inside a map viewport (`bbox`), and a
//! search's whole shape, a score floor with a circle, a viewport and a
//! province, as runs of positions (`region`) and as bits (`shape_mask`).

pub mod bbox;
mod cell_geometry;
pub mod circles;
mod nearest;
pub mod region;
pub mod shape_mask;
