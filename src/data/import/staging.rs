//! The checking pass of an import, in memory that does not grow with the
//! file: every row is read once, checked, and forgotten, keeping only its
//! id, line and byte span (and its province and truth_score, for `import
//! --check`) in a private temporary SQLite database (`Staged`).
//! SQLite finds repeated ids and gives the writing pass the rows in id order,
//! sorting on disk beyond a small cache, where a map of every id and a
//! vector of every area would grow with the file (docs/import.md, "Memory").

use std::io::BufRead;

use rusqlite::{Connection, params};

use super::area::{self, Row, Span};
use super::csv::{self as from_csv, CsvOptions};
use super::from_geojson::{self, IgnoredProperties};
use super::from_jsonl;
use super::problems::{DUPLICATE, Problems, READING, RULES};
use super::province_extents;
use super::region::Region;
use super::warnings::Warnings;
use super::{ImportError, VERTICES_PER_FILE_MAX};

/// The temporary database's page cache, in KiB (SQLite's negative cache_size).
const STAGING_CACHE_KIB: i64 = 16 * 1024;

/// The format of an import file, from its extension.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Format {
    Csv,
    Jsonl,
    /// A GeoJSON FeatureCollection (`.geojson`).
    Geojson,
    /// GeoJSONSeq (`.geojsons`): one feature a line.
    GeojsonSeq,
}

impl Format {
    /// What a problem's place is counted in: a FeatureCollection's
    /// features are not lines (ogr2ogr writes one a line, QGIS does not).
    fn unit(self) -> &'static str {
        match self {
            Format::Geojson => "feature",
            _ => "line",
        }
    }
}

/// What reading a row again needs beyond its bytes: a CSV's header.
pub enum Layout {
    Csv(from_csv::Header),
    Jsonl,
    /// Either GeoJSON form: a row's bytes are one feature.
    Geojson,
}

impl Layout {
    /// What the import's summary adds about rows read past.
    pub fn notes(&self) -> Vec<String> {
        match self {
            Layout::Csv(header) => header.notes(),
            Layout::Jsonl | Layout::Geojson => vec![],
        }
    }

    /// What reads the rows again, one at a time, from their bytes.
    pub fn rereader(&self) -> Rereader<'_> {
        match self {
            Layout::Csv(header) => Rereader::Csv(from_csv::Rereader::new(header)),
            Layout::Jsonl => Rereader::Jsonl,
            Layout::Geojson => Rereader::Geojson,
        }
    }
}

pub enum Rereader<'a> {
    Csv(from_csv::Rereader<'a>),
    Jsonl,
    Geojson,
}

impl Rereader<'_> {
    /// The row whose bytes are `bytes`, read as the checking pass read it.
    pub fn row_at(&mut self, bytes: &[u8]) -> Row {
        match self {
            Rereader::Csv(reader) => reader.row_at(bytes),
            Rereader::Jsonl => from_jsonl::row_at(bytes),
            Rereader::Geojson => from_geojson::row_at(bytes),
        }
    }
}

/// A file whose every row passed: where each row is, by id.
pub struct Staged {
    pub(super) conn: Connection,
    pub layout: Layout,
    pub areas: usize,
    /// Scores with more than 2 decimals, rounded (for the summary).
    pub rounded: usize,
    /// Areas far from their province, taken as given.
    pub warnings: Warnings,
}

impl Staged {
    /// Hands each row's span to `visit` in ascending id order, the order
    /// `AreaWriter` needs; stops at the first error.
    pub fn each_in_id_order(
        &self,
        mut visit: impl FnMut(Span) -> Result<(), ImportError>,
    ) -> Result<(), ImportError> {
        let sql = ImportError::StagedRows;
        let mut stmt = self
            .conn
            .prepare("SELECT start, len FROM staged ORDER BY id")
            .map_err(sql)?;
        let mut rows = stmt.query([]).map_err(sql)?;
        while let Some(r) = rows.next().map_err(sql)? {
            let (start, len): (i64, i64) = (r.get(0).map_err(sql)?, r.get(1).map_err(sql)?);
            visit(Span {
                start: start as u64,
                len: len as u64,
            })?;
        }
        Ok(())
    }
}

/// Reads and checks every row of `input`, each area within `region`: the
/// staged rows when all pass, else every problem (`Err` inside). The outer
/// `Err` is a failure to read the file or to use the temporary database.
pub fn check(
    format: Format,
    input: impl BufRead,
    now: i64,
    csv: &CsvOptions,
    region: &Region,
) -> Result<Result<Staged, Problems>, ImportError> {
    if format != Format::Csv && *csv != CsvOptions::default() {
        return Err(ImportError::CsvOptionsForJsonl);
    }
    let sql = ImportError::Stage;
    let conn = temporary_database().map_err(sql)?;
    let mut problems = Problems::counted_in(format.unit());
    let mut warnings = Warnings::counted_in(format.unit());
    let mut ignored = IgnoredProperties::default();
    let (mut areas, mut rounded) = (0usize, 0usize);
    let mut vertices = FileVertices::default();
    conn.execute_batch("BEGIN").map_err(sql)?;
    let layout = {
        let mut stage = conn
            .prepare("INSERT INTO staged (id, line, start, len, province_slug, truth_score) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
            .map_err(sql)?;
        let mut failed = None;
        let mut visit = |row: Row, span: Span| {
            let id = row.draft.as_ref().and_then(|d| d.id.clone());
            problems.add(row.line, &id, READING, row.problems);
            let Some(draft) = &row.draft else { return };
            let checked = area::check(draft, now);
            if let Some(id) = &id {
                let (province, truth) = match &checked {
                    Ok(a) => (Some(a.province_slug), Some(a.truth_score)),
                    Err(_) => (None, None),
                };
                let staged = stage.execute(params![
                    id,
                    row.line as i64,
                    span.start as i64,
                    span.len as i64,
                    province,
                    truth
                ]);
                if let Err(e) = staged {
                    failed.get_or_insert(sql(e));
                }
            }
            let (outside, far) = where_it_lies(region, draft, &checked);
            match checked {
                Ok(a) => {
                    areas += 1;
                    rounded += a.rounded;
                    if let Some(w) = far {
                        warnings.add(row.line, &a.id, w);
                    }
                    let many = a.boundary.as_ref().and_then(|b| vertices.add(b.vertices()));
                    let more = outside.into_iter().chain(many).collect();
                    problems.add(row.line, &id, RULES, more);
                }
                Err(more) => {
                    let more = more.into_iter().chain(outside).collect();
                    problems.add(row.line, &id, RULES, more)
                }
            }
        };
        let layout = match format {
            Format::Csv => from_csv::each_row(input, csv, &mut visit)?.map(Layout::Csv),
            Format::Jsonl => {
                from_jsonl::each_row(input, &mut visit).map(|()| Some(Layout::Jsonl))?
            }
            Format::Geojson => from_geojson::each_feature(input, &mut ignored, &mut visit)
                .map(|()| Some(Layout::Geojson))?,
            Format::GeojsonSeq => from_geojson::each_line(input, &mut ignored, &mut visit)
                .map(|()| Some(Layout::Geojson))?,
        };
        if let Some(e) = failed {
            return Err(e);
        }
        layout
    };
    conn.execute_batch("COMMIT; CREATE INDEX staged_by_id ON staged (id, line, start, len);")
        .map_err(sql)?;
    add_repeated_ids(&conn, &mut problems, format.unit()).map_err(sql)?;
    if let Some(w) = ignored.warning() {
        warnings.add_for_file(w);
    }
    match layout {
        Some(layout) if problems.is_empty() && areas > 0 => Ok(Ok(Staged {
            conn,
            layout,
            areas,
            rounded,
            warnings,
        })),
        _ => {
            if problems.is_empty() {
                problems.add(0, &None, READING, vec!["the file holds no areas".into()]);
            }
            Ok(Err(problems))
        }
    }
}

/// The positions of every boundary of a file so far, against
/// `VERTICES_PER_FILE_MAX`; the row that passes it is refused, once.
#[derive(Default)]
struct FileVertices {
    total: usize,
    refused: bool,
}

impl FileVertices {
    /// Counts a row's boundary: the problem of the row that passes the cap.
    fn add(&mut self, vertices: usize) -> Option<String> {
        self.total += vertices;
        if self.total <= VERTICES_PER_FILE_MAX || self.refused {
            return None;
        }
        self.refused = true;
        Some(too_many_vertices(self.total))
    }
}

fn too_many_vertices(total: usize) -> String {
    format!(
        "with this row the file's boundaries hold {total} positions, more than the \
         {VERTICES_PER_FILE_MAX} a file may hold (VERTICES_PER_FILE_MAX); split the \
         boundaries' detail or the file"
    )
}

/// Where a row's point lies: the problem of a point outside `region`
/// (whenever both coordinates read and are in range, so that a row refused
/// for other reasons hears of it too), else, for an area that passed, the
/// warning of one far from its province. A row without lat and lng is
/// judged by its centre inside the boundary, once it passed.
fn where_it_lies(
    region: &Region,
    draft: &area::Draft,
    checked: &Result<area::Area, Vec<String>>,
) -> (Option<String>, Option<String>) {
    let centre = checked.as_ref().ok().map(|a| (a.lat, a.lng));
    let point = draft.lat.zip(draft.lng).or(centre);
    let in_range = point.filter(|(lat, lng)| lat.abs() <= 90.0 && lng.abs() <= 180.0);
    if let Some(outside) = in_range.and_then(|(lat, lng)| region.problem(lat, lng)) {
        return (Some(outside), None);
    }
    let far = checked
        .as_ref()
        .ok()
        .and_then(|a| province_extents::warning(a.province_slug, a.lat, a.lng));
    (None, far)
}

/// A private database SQLite deletes when it closes, kept on disk beyond
/// `STAGING_CACHE_KIB` of cache.
fn temporary_database() -> rusqlite::Result<Connection> {
    let conn = Connection::open("")?;
    conn.execute_batch(&format!(
        "PRAGMA cache_size = -{STAGING_CACHE_KIB}; PRAGMA temp_store = FILE;
         PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
         CREATE TABLE staged (id TEXT NOT NULL, line INTEGER NOT NULL, start INTEGER NOT NULL, len INTEGER NOT NULL,
                              province_slug TEXT, truth_score REAL);"
    ))?;
    Ok(conn)
}

/// Every row whose id an earlier line already used, naming that line.
fn add_repeated_ids(
    conn: &Connection,
    problems: &mut Problems,
    unit: &str,
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(
        "SELECT s.line, s.id, f.first FROM staged s
         JOIN (SELECT id, min(line) AS first FROM staged GROUP BY id HAVING count(*) > 1) f
           ON f.id = s.id
         WHERE s.line > f.first
         ORDER BY s.line",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let (line, id, first): (i64, String, i64) = (r.get(0)?, r.get(1)?, r.get(2)?);
        let message = format!("id '{id}' is already used on {unit} {first}");
        problems.add(line as u64, &Some(id), DUPLICATE, vec![message]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_row_that_passes_the_files_vertex_cap_is_refused_once() {
        let mut vertices = FileVertices::default();
        assert_eq!(vertices.add(VERTICES_PER_FILE_MAX - 5), None);
        assert_eq!(vertices.add(5), None, "the cap itself is allowed");
        let refused = vertices.add(5).unwrap();
        assert!(refused.contains("VERTICES_PER_FILE_MAX"), "{refused}");
        assert!(refused.contains(&format!("{} positions", VERTICES_PER_FILE_MAX + 5)));
        assert_eq!(
            vertices.add(5),
            None,
            "one problem for the file, not one a row"
        );
    }
}
