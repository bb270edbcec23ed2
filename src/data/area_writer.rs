//! Writing areas into a database being built: `AreaWriter` inserts each
//! area's row, dimensions, sources and daily history with prepared
//! statements, and its boundary's rows (boundary/store.rs), and checks that
//! areas come in id order.

use rusqlite::{Statement, Transaction, params};

use crate::data::boundary::Boundary;
use crate::data::boundary::store::BoundaryRows;
use crate::data::error::DataError;
use crate::data::seed;
use crate::dates;

/// One area as a loader hands it over; the writer assigns area_no.
pub struct NewArea<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub province_slug: &'a str,
    pub province: &'a str,
    pub municipality: &'a str,
    /// Former names, short forms, other spellings; validated by the loader.
    pub other_names: &'a [String],
    pub lat: f64,
    pub lng: f64,
    pub truth_score: f64,
    pub updated_at: &'a str,
    pub dimensions: &'a [seed::DimensionScore],
    /// Daily scores, oldest first, the first one on `first_day`.
    pub history: &'a [f64],
    pub first_day: i64,
    /// Checked by the loader (data/boundary/).
    pub boundary: Option<&'a Boundary>,
}

/// History rows per multi-row INSERT (3 parameters each, far below SQLite's limit).
const HISTORY_CHUNK: usize = 100;

/// Inserts areas one by one. Areas must come in ascending id order, so that
/// area_no order is id order (the tie-breaker every listing relies on).
pub struct AreaWriter<'t> {
    areas: Statement<'t>,
    dimensions: Statement<'t>,
    sources: Statement<'t>,
    other_names: Statement<'t>,
    history: Statement<'t>,
    /// HISTORY_CHUNK history rows in one statement: a bulk load spends most of
    /// its time on history, and one statement per row costs a VM run per row.
    history_chunk: Statement<'t>,
    boundaries: BoundaryRows<'t>,
    pub(crate) count: i64,
    last_id: String,
}

impl<'t> AreaWriter<'t> {
    pub(crate) fn new(tx: &'t Transaction) -> rusqlite::Result<AreaWriter<'t>> {
        Ok(AreaWriter {
            areas: tx.prepare(
                "INSERT INTO areas (area_no, id, name, province_slug, province, municipality, lat, lng, truth_score, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?,
            dimensions: tx.prepare(
                "INSERT INTO area_dimensions (area_no, dimension, score, weight) VALUES (?1, ?2, ?3, ?4)",
            )?,
            sources: tx.prepare(
                "INSERT INTO dimension_sources (area_no, dimension, position, source) VALUES (?1, ?2, ?3, ?4)",
            )?,
            other_names: tx.prepare(
                "INSERT INTO area_other_names (area_no, position, name) VALUES (?1, ?2, ?3)",
            )?,
            history: tx.prepare("INSERT INTO history (area_no, day, truth_score) VALUES (?1, ?2, ?3)")?,
            history_chunk: tx.prepare(&format!(
                "INSERT INTO history (area_no, day, truth_score) VALUES {}",
                vec!["(?, ?, ?)"; HISTORY_CHUNK].join(", ")
            ))?,
            boundaries: BoundaryRows::new(tx)?,
            count: 0,
            last_id: String::new(),
        })
    }

    pub fn add(&mut self, a: &NewArea) -> Result<(), DataError> {
        if self.count > 0 && a.id <= self.last_id.as_str() {
            return Err(DataError::OutOfOrder {
                id: a.id.to_string(),
                last: self.last_id.clone(),
            });
        }
        let no = self.count + 1;
        self.write(no, a).map_err(|source| DataError::Area {
            id: a.id.to_string(),
            source,
        })?;
        self.count = no;
        self.last_id = a.id.to_string();
        Ok(())
    }

    /// The rows of area number `no`.
    fn write(&mut self, no: i64, a: &NewArea) -> rusqlite::Result<()> {
        self.areas.execute(params![
            no,
            a.id,
            a.name,
            a.province_slug,
            a.province,
            a.municipality,
            a.lat,
            a.lng,
            a.truth_score,
            a.updated_at
        ])?;
        if let Some(boundary) = a.boundary {
            self.boundaries.write(no, boundary)?;
        }
        for (position, name) in a.other_names.iter().enumerate() {
            self.other_names
                .execute(params![no, position as i64, name])?;
        }
        for d in a.dimensions {
            self.dimensions
                .execute(params![no, d.name, d.score, d.weight])?;
            for (position, source) in d.sources.iter().enumerate() {
                self.sources
                    .execute(params![no, d.name, position as i64, source])?;
            }
        }
        let mut chunks = a.history.chunks_exact(HISTORY_CHUNK);
        for (c, chunk) in chunks.by_ref().enumerate() {
            let first = a.first_day + (c * HISTORY_CHUNK) as i64;
            for (i, score) in chunk.iter().enumerate() {
                let stmt = &mut self.history_chunk;
                stmt.raw_bind_parameter(3 * i + 1, no)?;
                stmt.raw_bind_parameter(3 * i + 2, first + i as i64)?;
                stmt.raw_bind_parameter(3 * i + 3, score)?;
            }
            self.history_chunk.raw_execute()?;
        }
        let done = a.history.len() - chunks.remainder().len();
        for (i, score) in chunks.remainder().iter().enumerate() {
            let day = a.first_day + (done + i) as i64;
            self.history.execute(params![no, day, score])?;
        }
        Ok(())
    }
}

impl AreaWriter<'_> {
    /// Adds a place with the seed's synthetic scores and `days` of daily history
    /// ending on `last_day`, which is also its updated_at.
    pub fn add_with_synthetic_scores(
        &mut self,
        p: &seed::Place,
        days: usize,
        last_day: i64,
    ) -> Result<(), DataError> {
        self.add_place(p, days, last_day, None)
    }

    /// As `add_with_synthetic_scores`, with the place's boundary.
    pub fn add_place(
        &mut self,
        p: &seed::Place,
        days: usize,
        last_day: i64,
        boundary: Option<&Boundary>,
    ) -> Result<(), DataError> {
        let (dimensions, truth_score) = seed::scores(&p.id, &p.municipality);
        let history = seed::history(&p.id, truth_score, days);
        self.add(&NewArea {
            id: &p.id,
            name: &p.name,
            province_slug: &p.province_slug,
            province: &p.province,
            municipality: &p.municipality,
            other_names: &p.other_names,
            lat: p.lat,
            lng: p.lng,
            truth_score,
            updated_at: &format!("{}T00:00:00Z", dates::format_date(last_day)),
            dimensions: &dimensions,
            history: &history,
            first_day: last_day - (days as i64 - 1),
            boundary,
        })
    }
}
