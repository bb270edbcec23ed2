//! Boundaries in the dataset file: writing each area's boundary, its
//! simplified forms, its box and its grid cells as the area is written
//! (schema.sql, `area_boundaries`, `area_boundary_simplified`,
//! `area_boundary_boxes`, `area_boundary_cells`),
//! and reading its GeoJSON geometry text back (`geometry_json`).
//!
//! Everything is computed when the file is written, nothing per request:
//! the geodesic area that orders overlapping boundaries, the simplified
//! forms, the box and its cells. The text stored is the text served, so Get Area and
//! GeoJSON copy it as it is.

use geo::{BoundingRect, GeodesicArea};
use rusqlite::{Connection, OptionalExtension, Statement, Transaction, params};

use crate::data::boundary::simplify::simplified_forms;
use crate::data::boundary::{Boundary, cells};

/// The tolerances, in metres, each boundary is simplified at and stored
/// with; `simplify=` takes one of these.
pub const SIMPLIFY_TOLERANCES_M: [u32; 4] = [10, 50, 250, 1000];

/// The geometry text of one area, simplified (the stored form at
/// `tolerance_m`, else the full one, since a form is stored only where it
/// differs) or full. A tolerance not in `SIMPLIFY_TOLERANCES_M` has no
/// stored forms, so it reads as the full boundary.
const GEOMETRY: &str = "SELECT coalesce(
        (SELECT geometry FROM area_boundary_simplified WHERE area_no = ?1 AND tolerance_m = ?2),
        (SELECT geometry FROM area_boundaries WHERE area_no = ?1))";

/// GeoJSON geometry text of area `area_no`'s boundary, simplified at
/// `tolerance_m` (one of `SIMPLIFY_TOLERANCES_M`) or full; None when it
/// has none. A Polygon or a MultiPolygon, as it was imported, in RFC 7946's
/// orientation.
pub fn geometry_json(
    conn: &Connection,
    area_no: i64,
    tolerance_m: Option<u32>,
) -> rusqlite::Result<Option<String>> {
    let mut stmt = conn.prepare_cached(GEOMETRY)?;
    let text = stmt
        .query_row(params![area_no, tolerance_m], |r| {
            r.get::<_, Option<String>>(0)
        })
        .optional()?;
    Ok(text.flatten())
}

/// The geometry text of each area of a page, by its place in the page: one
/// statement for the page, where one a row would pay a statement's cost for
/// every area. `ids` go in as one JSON array (json_each), bound like any value.
const PAGE_GEOMETRIES: &str = "SELECT j.key, coalesce(s.geometry, b.geometry)
    FROM json_each(?1) j
    JOIN areas a ON a.id = j.value
    JOIN area_boundaries b ON b.area_no = a.area_no
    LEFT JOIN area_boundary_simplified s ON s.area_no = a.area_no AND s.tolerance_m = ?2";

/// GeoJSON geometry text of each of `ids`' boundaries, in their order, as
/// `geometry_json` gives one; None for an area without one or not found.
pub fn page_geometries_json(
    conn: &Connection,
    ids: &[&str],
    tolerance_m: Option<u32>,
) -> rusqlite::Result<Vec<Option<String>>> {
    let mut out = vec![None; ids.len()];
    let ids_json = serde_json::to_string(ids)
        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    let mut stmt = conn.prepare_cached(PAGE_GEOMETRIES)?;
    let mut rows = stmt.query(params![ids_json, tolerance_m])?;
    while let Some(r) = rows.next()? {
        let at: i64 = r.get(0)?;
        if let Some(slot) = usize::try_from(at).ok().and_then(|i| out.get_mut(i)) {
            *slot = r.get(1)?;
        }
    }
    Ok(out)
}

/// The text a boundary is stored and served as.
pub fn geometry_text(boundary: &Boundary) -> String {
    boundary.to_geojson().to_string()
}

/// The statements that write each area's boundary rows, prepared once per
/// build beside the area writer's own (data/area_writer.rs).
pub struct BoundaryRows<'t> {
    full: Statement<'t>,
    simplified: Statement<'t>,
    boxes: Statement<'t>,
    cells: Statement<'t>,
}

impl<'t> BoundaryRows<'t> {
    pub fn new(tx: &'t Transaction) -> rusqlite::Result<BoundaryRows<'t>> {
        Ok(BoundaryRows {
            full: tx.prepare(
                "INSERT INTO area_boundaries (area_no, area_m2, vertices, geometry) VALUES (?1, ?2, ?3, ?4)",
            )?,
            simplified: tx.prepare(
                "INSERT INTO area_boundary_simplified (area_no, tolerance_m, geometry) VALUES (?1, ?2, ?3)",
            )?,
            boxes: tx.prepare(
                "INSERT INTO area_boundary_boxes (area_no, min_lng, max_lng, min_lat, max_lat)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?,
            cells: tx.prepare("INSERT INTO area_boundary_cells (cell, area_no) VALUES (?1, ?2)")?,
        })
    }

    /// The boundary of area number `no`: its full form with its geodesic
    /// area, each simplified form that differs from it, its box and cells.
    pub fn write(&mut self, no: i64, boundary: &Boundary) -> rusqlite::Result<()> {
        let shape = boundary.shape();
        self.full.execute(params![
            no,
            shape.geodesic_area_unsigned(),
            boundary.vertices() as i64,
            geometry_text(boundary)
        ])?;
        for (tolerance, form) in simplified_forms(boundary) {
            self.simplified
                .execute(params![no, tolerance, geometry_text(&form)])?;
        }
        // A checked boundary has positions, so it has a box.
        if let Some(rect) = shape.bounding_rect() {
            let (min, max) = (rect.min(), rect.max());
            self.boxes
                .execute(params![no, min.x, max.x, min.y, max.y])?;
            for cell in cells::of_box(min.x, max.x, min.y, max.y) {
                self.cells.execute(params![cell, no])?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
