//! Export Areas (`GET /v1/areas/export`): every area, ordered by id, with its
//! coordinates and each dimension's score, flat; optionally one province.
//!
//! The body is made as it is read (`Read`), a batch of `BATCH` areas at a
//! time by keyset on area_no (id order), so its memory is bounded whatever
//! the dataset's size, and a client that stops reading stops the reading of
//! the database too. Each batch is its own statement: a dataset file never
//! changes while it is served (a replacement is a new file), so the batches
//! read one consistent dataset.

use std::io::{self, Read};

use rusqlite::{Connection, params};

use super::format::Format;
use super::params::FeatureGeometry;
use super::render::{self, Columns, Row, Shape};
use super::{AreaSummary, summary_from_row};
use crate::data::boundary;
use crate::data::db::PooledConnection;
use crate::domain::{DIMENSIONS, dimension_position};

/// Areas read per batch.
pub const BATCH: i64 = 500;
/// The body bytes made before the reader is given them: with boundaries
/// (up to `boundary::VERTICES_PER_AREA_MAX` positions each) a batch's rows
/// are written a few at a time, so that a batch never sits in memory whole.
const PIECE_BYTES: usize = 64 * 1024;

const COLUMNS: Columns = Columns {
    distance: false,
    coordinates: true,
    dimensions: true,
};

const AREAS_AFTER: &str = "
    SELECT id, name, province, province_slug, municipality, truth_score, updated_at, lat, lng, area_no
    FROM areas WHERE area_no > ?1 AND (?2 = '' OR province_slug = ?2)
    ORDER BY area_no LIMIT ?3";

const DIMENSIONS_BETWEEN: &str = "
    SELECT area_no, dimension, score FROM area_dimensions
    WHERE area_no BETWEEN ?1 AND ?2";

/// Where the body stands.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stage {
    Opening,
    Areas,
    Closing,
    Done,
}

/// The body of an export, made as it is read.
pub struct Export {
    conn: PooledConnection,
    format: Format,
    /// The GeoJSON features' geometry (a Point for every other format).
    geometry: FeatureGeometry,
    /// The areas of the batch read but not yet written, with their scores.
    pending: std::collections::VecDeque<(ExportedArea, [Option<f64>; DIMENSIONS.len()])>,
    /// The province's slug, or empty for every area.
    province: &'static str,
    total: i64,
    /// The area_no of the last area written.
    after: i64,
    written: i64,
    stage: Stage,
    buf: Vec<u8>,
    at: usize,
}

impl Export {
    pub fn new(
        conn: PooledConnection,
        (format, geometry): (Format, FeatureGeometry),
        province: Option<&'static str>,
        total: i64,
    ) -> Export {
        let geometry = match format {
            Format::GeoJson => geometry,
            _ => FeatureGeometry::Point,
        };
        Export {
            conn,
            format,
            geometry,
            pending: Default::default(),
            province: province.unwrap_or(""),
            total,
            after: 0,
            written: 0,
            stage: Stage::Opening,
            buf: Vec::new(),
            at: 0,
        }
    }

    /// Makes the next piece of the body into `buf`.
    fn refill(&mut self) -> rusqlite::Result<()> {
        self.buf.clear();
        self.at = 0;
        match self.stage {
            Stage::Opening => {
                match self.format {
                    Format::Json => self.buf.extend_from_slice(b"{\"data\":["),
                    Format::GeoJson => self.buf.extend_from_slice(render::GEOJSON_OPEN),
                    Format::Csv => render::csv_header(&mut self.buf, COLUMNS),
                    Format::NdJson => {}
                }
                self.stage = Stage::Areas;
            }
            Stage::Areas => {
                if self.batch()? == 0 {
                    self.stage = Stage::Closing;
                }
            }
            Stage::Closing => {
                match self.format {
                    Format::Json => self
                        .buf
                        .extend_from_slice(format!("],\"total\":{}}}", self.total).as_bytes()),
                    Format::GeoJson => {
                        render::geojson_close(&mut self.buf, None, &[("total", self.total)])
                    }
                    Format::Csv | Format::NdJson => {}
                }
                self.stage = Stage::Done;
            }
            Stage::Done => {}
        }
        Ok(())
    }

    /// Writes the next areas, reading the next batch when none is
    /// pending, until a piece is made; how many were written.
    fn batch(&mut self) -> rusqlite::Result<usize> {
        if self.pending.is_empty() {
            self.read_batch()?;
        }
        let mut written = 0;
        while let Some((area, dims)) = self.pending.pop_front() {
            let text = match self.geometry {
                FeatureGeometry::Point => None,
                FeatureGeometry::Boundary { simplify_m } => {
                    boundary::geometry_json(&self.conn, area.no, simplify_m)?
                        .map(|t| super::boundaries::as_multi(&t).into_owned())
                }
            };
            let shape = match self.geometry {
                FeatureGeometry::Point => Shape::Point,
                FeatureGeometry::Boundary { .. } => Shape::Boundary(text.as_deref()),
            };
            let row = Row {
                area: &area.summary,
                dimensions: Some(&dims),
                shape,
            };
            self.write(&row);
            written += 1;
            if self.buf.len() >= PIECE_BYTES {
                break;
            }
        }
        Ok(written)
    }

    /// Reads the next batch of areas and their scores into `pending`.
    fn read_batch(&mut self) -> rusqlite::Result<()> {
        let areas = read_areas(&self.conn, self.after, self.province)?;
        let (Some(first), Some(last)) = (areas.first(), areas.last()) else {
            return Ok(());
        };
        let scores = read_scores(&self.conn, first.no, last.no)?;
        self.after = last.no;
        for area in areas {
            let dims = scores
                .get(&area.no)
                .copied()
                .unwrap_or([None; DIMENSIONS.len()]);
            self.pending.push_back((area, dims));
        }
        Ok(())
    }

    fn write(&mut self, row: &Row) {
        let first = self.written == 0;
        self.written += 1;
        match self.format {
            Format::Json | Format::GeoJson if !first => self.buf.push(b','),
            _ => {}
        }
        match self.format {
            Format::Json => render::json_object(&mut self.buf, row, COLUMNS),
            Format::NdJson => {
                render::json_object(&mut self.buf, row, COLUMNS);
                self.buf.push(b'\n');
            }
            Format::Csv => render::csv_row(&mut self.buf, row, COLUMNS),
            Format::GeoJson => render::geojson_feature(&mut self.buf, row, COLUMNS),
        }
    }
}

impl Read for Export {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.at == self.buf.len() {
            if self.stage == Stage::Done {
                return Ok(0);
            }
            self.refill().map_err(|e| {
                log::error!("export stopped: {e}");
                io::Error::other(e)
            })?;
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

struct ExportedArea {
    no: i64,
    summary: AreaSummary,
}

fn read_areas(
    conn: &Connection,
    after: i64,
    province: &str,
) -> rusqlite::Result<Vec<ExportedArea>> {
    conn.prepare_cached(AREAS_AFTER)?
        .query_map(params![after, province, BATCH], |r| {
            Ok(ExportedArea {
                summary: summary_from_row(r)?,
                no: r.get(9)?,
            })
        })?
        .collect()
}

type Scores = std::collections::HashMap<i64, [Option<f64>; DIMENSIONS.len()]>;

fn read_scores(conn: &Connection, from: i64, to: i64) -> rusqlite::Result<Scores> {
    let mut scores = Scores::new();
    let mut stmt = conn.prepare_cached(DIMENSIONS_BETWEEN)?;
    let mut rows = stmt.query(params![from, to])?;
    while let Some(r) = rows.next()? {
        let (no, name, score): (i64, String, f64) = (r.get(0)?, r.get(1)?, r.get(2)?);
        if let Some(slot) = scores
            .entry(no)
            .or_insert([None; DIMENSIONS.len()])
            .get_mut(dimension_position(&name))
        {
            *slot = Some(score);
        }
    }
    Ok(scores)
}

#[cfg(test)]
#[path = "export_tests.rs"]
mod tests;
