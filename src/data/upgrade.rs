//! `area-scoring upgrade FILE`: rewrites a dataset of an older layout in the
//! current one. Its areas are read back and built anew through the build
//! every import uses (load.rs), so the new file gets every derived table the
//! old one lacks (boundaries it holds are read back and their derived rows
//! written anew); it is renamed over the old one, which is kept as
//! `<db>.previous`, and a running server reloads it.

use std::path::Path;

use rusqlite::types::Type;
use rusqlite::{Connection, OpenFlags, OptionalExtension};

use crate::data::boundary::{self, Boundary, BoundaryError};
use crate::data::db;
use crate::data::error::DataError;
use crate::data::identity::{self, Source};
use crate::data::load::{self, AreaWriter, NewArea};
use crate::data::seed::DimensionScore;
use crate::domain::DIMENSIONS;
use crate::file_error::cannot;

/// Upgrades `path` in place; says what it did.
pub fn run(path: &Path) -> Result<String, DataError> {
    db::check_versions(path, db::OLDEST_VERSION..=db::SCHEMA_VERSION)?;
    let old = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(cannot("open", path))?;
    let shown = path.display();
    let (_, version) = db::read_versions(&old)?;
    if version == db::SCHEMA_VERSION {
        return Ok(format!(
            "{shown} is already current (layout {version}); nothing written"
        ));
    }
    if has_table(&old, "api_keys")? {
        return Err(DataError::HoldsKeys(path.to_path_buf()));
    }
    let source = source_of(&old);
    let had = Had {
        other_names: has_table(&old, "area_other_names")?,
        boundaries: has_table(&old, "area_boundaries")?,
    };
    let count = load::create_database(path, true, &source, |w| copy_areas(&old, had, w))?;
    Ok(format!(
        "upgraded {shown} from layout {version} to {}: {count} areas; the old file is kept as {shown}.previous",
        db::SCHEMA_VERSION
    ))
}

fn has_table(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [name],
        |_| Ok(()),
    )
    .optional()
    .map(|found| found.is_some())
}

/// The old file's recorded source, kept so that `info` still says where its areas came from.
fn source_of(old: &Connection) -> Source {
    let id = identity::read(old);
    Source {
        file: id.source.file.unwrap_or_else(|| "upgrade".to_string()),
        sha256: id.source.sha256,
        read_with: id.read_with.unwrap_or_default(),
        region: id.region,
    }
}

/// The tables an old file holds that not every layout did.
#[derive(Clone, Copy)]
struct Had {
    other_names: bool,
    boundaries: bool,
}

/// Hands every area of `old`, in id order, to the writer.
fn copy_areas(old: &Connection, had: Had, w: &mut AreaWriter) -> Result<(), DataError> {
    let sql = DataError::OldFile;
    let mut areas = old
        .prepare(
            "SELECT area_no, id, name, province_slug, province, municipality, lat, lng, truth_score, updated_at
             FROM areas ORDER BY id",
        )
        .map_err(sql)?;
    let mut rows = areas.query([]).map_err(sql)?;
    while let Some(r) = rows.next().map_err(sql)? {
        let no: i64 = r.get(0).map_err(sql)?;
        let text = |i: usize| r.get::<_, String>(i).map_err(sql);
        let names = match had.other_names {
            true => column_of(
                old,
                "SELECT name FROM area_other_names WHERE area_no = ?1 ORDER BY position",
                no,
            )?,
            false => Vec::new(),
        };
        let boundary = match had.boundaries {
            true => boundary_of(old, no)?,
            false => None,
        };
        let dimensions = dimensions_of(old, no)?;
        let (first_day, history) = history_of(old, no)?;
        let (id, name, slug, province, municipality, updated_at) =
            (text(1)?, text(2)?, text(3)?, text(4)?, text(5)?, text(9)?);
        w.add(&NewArea {
            id: &id,
            name: &name,
            province_slug: &slug,
            province: &province,
            municipality: &municipality,
            other_names: &names,
            lat: r.get(6).map_err(sql)?,
            lng: r.get(7).map_err(sql)?,
            truth_score: r.get(8).map_err(sql)?,
            updated_at: &updated_at,
            dimensions: &dimensions,
            history: &history,
            first_day,
            boundary: boundary.as_ref(),
        })?;
    }
    Ok(())
}

/// An area's stored boundary, read back through the import's checks, so
/// that the new file derives its simplified forms and box afresh.
fn boundary_of(old: &Connection, no: i64) -> Result<Option<Boundary>, DataError> {
    let mut stmt = old.prepare_cached("SELECT geometry FROM area_boundaries WHERE area_no = ?1")?;
    let Some(text) = stmt.query_row([no], |r| r.get::<_, String>(0)).optional()? else {
        return Ok(None);
    };
    let read = serde_json::from_str(&text)
        .map_err(|e| BoundaryError::Unreadable(e.to_string()))
        .and_then(|v| boundary::from_geojson(&v));
    read.map_err(|why| {
        let why = rusqlite::Error::FromSqlConversionFailure(0, Type::Text, Box::new(why));
        DataError::OldFile(why)
    })
}

fn column_of(old: &Connection, query: &str, no: i64) -> rusqlite::Result<Vec<String>> {
    let mut stmt = old.prepare_cached(query)?;
    stmt.query_map([no], |r| r.get(0))?.collect()
}

fn dimensions_of(old: &Connection, no: i64) -> Result<Vec<DimensionScore>, DataError> {
    let mut stmt = old.prepare_cached(
        "SELECT dimension, score, weight FROM area_dimensions WHERE area_no = ?1",
    )?;
    let read: Vec<(String, f64, f64)> = stmt
        .query_map([no], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    read.into_iter()
        .map(|(dimension, score, weight)| {
            let name = DIMENSIONS
                .iter()
                .find(|d| **d == dimension)
                .ok_or_else(|| DataError::UnknownDimension(dimension.clone()))?;
            let sources = column_of(
                old,
                &format!(
                    "SELECT source FROM dimension_sources WHERE area_no = ?1 AND dimension = '{name}' ORDER BY position"
                ),
                no,
            )?;
            Ok(DimensionScore {
                name,
                score,
                weight,
                sources: sources.into_iter().map(Into::into).collect(),
            })
        })
        .collect()
}

/// An area's daily history: its first day and its scores, which run day by day.
fn history_of(old: &Connection, no: i64) -> Result<(i64, Vec<f64>), DataError> {
    let mut stmt =
        old.prepare_cached("SELECT day, truth_score FROM history WHERE area_no = ?1 ORDER BY day")?;
    let days: Vec<(i64, f64)> = stmt
        .query_map([no], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let first = days.first().map_or(0, |d| d.0);
    if days
        .iter()
        .enumerate()
        .any(|(i, d)| d.0 != first + i as i64)
    {
        return Err(DataError::HistoryGap(no));
    }
    Ok((first, days.into_iter().map(|d| d.1).collect()))
}
