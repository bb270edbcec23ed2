//! `area-scoring import --db PATH FILE`: replaces every area of the database
//! with the operator's own, read from CSV, JSON Lines or GeoJSON
//! (docs/import.md).
//!
//! Everything is checked before anything is written, and every problem of
//! every row is reported with its line number; only a file without problems
//! reaches `load::create_database`, which builds a new file beside the old
//! and renames it into place. So a failed import changes nothing, and a
//! running server can reload the new file. API keys are in the keys file,
//! which an import never touches.
//!
//! The file is read twice, so that no pass holds it: once from start to end
//! to check every row (`staging`), then row by row in id order to write it,
//! each row read again at the byte span the first pass noted. Before
//! either, its bytes are hashed for the new dataset's identity (`source`).
//!
//! The complete new file then meets the served one (`guard`): one holding
//! the same areas is not put in place, and one removing or moving many of
//! them is refused unless the operator allows it, so that a wrong file
//! cannot push the good data out of the kept datasets (previous.rs).
//!
//! Every area must lie in the dataset's region (`region`); one far from its
//! province is a warning, printed and imported (`province_extents`).
//! `import --check` (check.rs) does all of it but the writing, and says
//! what the import would change. A failure is an `ImportError` (`error`);
//! the problems of rows are gathered into one report (`problems`).

mod area;
mod check;
mod csv;
mod error;
mod from_geojson;
mod from_jsonl;
pub mod guard;
mod history;
mod json_value;
mod problems;
mod province_extents;
pub mod region;
pub(crate) mod rules;
mod source;
mod staging;
mod warnings;

use std::borrow::Cow;
use std::fs::{File, Metadata, OpenOptions};
use std::io::BufReader;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

use crate::data::db;
use crate::data::identity::Source;
use crate::data::load::{self, AreaWriter, NewArea, Swap};
use crate::data::seed::DimensionScore;
use crate::dates;
use crate::file_error::cannot;

use area::{Area, Span};
pub use check::check;
pub use csv::CsvOptions;
pub use error::ImportError;
use region::Region;
use staging::{Format, Rereader, Staged};

/// The most bytes one row may take: a JSON Lines line without its line
/// break, or a CSV record (docs/import.md, "Memory"). Enough for an area's
/// polygon of 100,000 vertices; a longer row is a problem of its own, read to
/// its end without being held, so that no row costs more memory than this.
pub const ROW_BYTES_MAX: u64 = 16 * 1024 * 1024;

/// The problem of a row longer than `ROW_BYTES_MAX`, which is not read.
fn too_long(bytes: u64) -> String {
    format!(
        "this row is {bytes} bytes, more than the {ROW_BYTES_MAX} bytes (16 MiB) a row may hold"
    )
}

/// The most positions the boundaries of one file may hold, all areas
/// counted (data/boundary/ caps one area at `VERTICES_PER_AREA_MAX`). Each
/// is stored as two 8-byte numbers, so the cap bounds a dataset's
/// boundaries at about 800 MB before their simplified copies: a million
/// areas of 50 positions each, or 500 areas at the cap of one.
pub const VERTICES_PER_FILE_MAX: usize = 50_000_000;

/// The most items a list may hold (history points, other names, a
/// dimension's sources, the dimensions of a JSON Lines row): far more than the rules let through (3,661 history
/// points, 20 other names), few enough that a row's problems stay few. A
/// longer list is one problem, its items unread.
pub const LIST_ITEMS_MAX: usize = 10_000;

fn too_many_items(list: &str) -> String {
    format!("{list} holds more than {LIST_ITEMS_MAX} items, the most a list may hold")
}

/// What the operator allows an import beyond the safeguards (`guard`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Allow {
    /// `--allow-shrink`: removing or moving many of the served areas.
    pub shrink: bool,
}

/// How an import is run: what it allows, how its CSV is read, its region.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Options {
    pub allow: Allow,
    pub csv: CsvOptions,
    /// `--region`; None: the served dataset's, else South Africa's.
    pub region: Option<Region>,
}

/// A file whose every row passed, still open for the writing pass.
struct Checked {
    input: File,
    /// The file as it was opened, to tell whether it changed before the end.
    before: Metadata,
    /// Whether the database existed.
    existed: bool,
    staged: Staged,
    now: i64,
    /// The file's name and hash, for the new dataset's identity.
    source: Source,
}

/// The checking pass over `file`, against the database `db` it would
/// replace: every problem of every row, or the staged rows.
fn check_file(db: &Path, file: &Path, options: &Options) -> Result<Checked, ImportError> {
    let format = format_of(file)?;
    let (input, before) = open_regular(file)?;
    let existed = check_target(db)?;
    let csv = &options.csv;
    let region = &options.region.unwrap_or_else(|| Region::of_dataset(db));
    let source = source::of(file, &input, csv)?;
    let source = Source {
        region: (*region != region::SOUTH_AFRICA).then(|| region.text()),
        ..source
    };
    let now = dates::now_unix();
    let staged = staging::check(format, BufReader::new(&input), now, csv, region)
        .map_err(|e| ImportError::InFile {
            file: file.to_path_buf(),
            source: Box::new(e),
        })?
        .map_err(|problems| ImportError::Problems(problems.report(file)))?;
    Ok(Checked {
        input,
        before,
        existed,
        staged,
        now,
        source,
    })
}

pub fn run(db: &Path, file: &Path, options: &Options) -> Result<String, ImportError> {
    let Checked {
        input,
        before,
        existed,
        staged,
        now,
        source,
    } = check_file(db, file, options)?;
    let cannot_read = cannot("read", file);
    let fill = |writer: &mut AreaWriter| {
        write(writer, &staged, &input, now)?;
        // The rows were read twice: a file changed in between is refused
        // rather than imported half old, half new.
        let after = input.metadata().map_err(&cannot_read)?;
        match (after.len(), after.modified().ok()) == (before.len(), before.modified().ok()) {
            true => Ok(()),
            false => Err(ImportError::ChangedWhileImported(file.to_path_buf())),
        }
    };
    let shown = db.display().to_string();
    let allow_shrink = options.allow.shrink;
    let decide = |conn: &rusqlite::Connection| guard::decide(conn, allow_shrink, &shown);
    let built = load::replace_database(db, true, &source, fill, decide)?;
    let warnings = staged.warnings.report();
    Ok(summary(db, file, &built, existed, &staged) + &warnings)
}

/// What an import that went through did, in one line.
fn summary(db: &Path, file: &Path, built: &load::Built, existed: bool, staged: &Staged) -> String {
    let count = match built.count {
        1 => "1 area".to_string(),
        n => format!("{n} areas"),
    };
    if built.swap == Swap::KeepServed {
        return format!(
            "{} holds the same {count} as {}, which is left as it was: no new dataset, \
             and the kept datasets are unchanged",
            file.display(),
            db.display()
        );
    }
    let done = if existed {
        format!(
            "imported {count} from {} into {}",
            file.display(),
            db.display()
        )
    } else {
        format!(
            "created {} with {count} from {}; create an API key with: area-scoring keys create --db {} --new-keys-file --plan PLAN",
            db.display(),
            file.display(),
            db.display()
        )
    };
    let done = (staged.layout.notes().iter()).fold(done, |d, note| format!("{d}; {note}"));
    match staged.rounded {
        0 => done,
        1 => format!("{done}; rounded 1 score to 2 decimals"),
        n => format!("{done}; rounded {n} scores to 2 decimals"),
    }
}

/// The format of the file's extension: .csv, .jsonl or .ndjson, .geojson or
/// .geojsons (any case).
fn format_of(file: &Path) -> Result<Format, ImportError> {
    let extension = file
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("csv") => Ok(Format::Csv),
        Some("jsonl" | "ndjson") => Ok(Format::Jsonl),
        Some("geojson") => Ok(Format::Geojson),
        Some("geojsons") => Ok(Format::GeojsonSeq),
        _ => Err(ImportError::UnknownFormat(file.to_path_buf())),
    }
}

/// Opens the file to import, refusing anything but a regular file (after
/// symlinks): a FIFO, a socket or a device such as /dev/zero cannot be read
/// twice, and reading one may never end. The type is checked before the
/// open, which would wait for a FIFO's writer, and again on what was opened
/// (without waiting, O_NONBLOCK), in case the name was swapped in between.
fn open_regular(file: &Path) -> Result<(File, Metadata), ImportError> {
    let cannot_read = cannot("read", file);
    let named = std::fs::metadata(file).map_err(&cannot_read)?;
    not_regular(file, &named)?;
    let input = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(file)
        .map_err(&cannot_read)?;
    let opened = input.metadata().map_err(&cannot_read)?;
    not_regular(file, &opened)?;
    if (opened.dev(), opened.ino()) != (named.dev(), named.ino()) {
        return Err(ImportError::ChangedWhileOpened(file.to_path_buf()));
    }
    Ok((input, opened))
}

fn not_regular(file: &Path, meta: &Metadata) -> Result<(), ImportError> {
    if meta.is_dir() {
        return Err(ImportError::Directory(file.to_path_buf()));
    }
    if !meta.is_file() {
        return Err(ImportError::NotRegular(file.to_path_buf()));
    }
    Ok(())
}

/// Whether the database exists; refuses to replace a file that is not an
/// area-scoring database, which is not ours to overwrite.
fn check_target(db: &Path) -> Result<bool, ImportError> {
    if !db.exists() {
        return Ok(false);
    }
    if db.is_dir() {
        return Err(ImportError::TargetDirectory(db.to_path_buf()));
    }
    // An older schema is fine: the file is written anew.
    db::check_versions(db, db::OLDEST_VERSION..=db::SCHEMA_VERSION).map_err(|source| {
        let back = crate::data::previous::previous_path(db);
        ImportError::NotReplaceable {
            db: db.to_path_buf(),
            source: Box::new(source),
            previous: back.is_file().then_some(back),
        }
    })?;
    Ok(true)
}

/// Where the writing pass reads a row's bytes again: the file, or the bytes
/// of one in memory (unit tests).
trait Spans {
    fn read_span(&self, span: Span, buf: &mut Vec<u8>) -> std::io::Result<()>;
}

impl Spans for File {
    fn read_span(&self, span: Span, buf: &mut Vec<u8>) -> std::io::Result<()> {
        buf.resize(span.len as usize, 0);
        self.read_exact_at(buf, span.start)
    }
}

impl Spans for [u8] {
    fn read_span(&self, span: Span, buf: &mut Vec<u8>) -> std::io::Result<()> {
        let (start, end) = (span.start as usize, (span.start + span.len) as usize);
        let bytes = self
            .get(start..end)
            .ok_or(std::io::ErrorKind::UnexpectedEof)?;
        buf.clear();
        buf.extend_from_slice(bytes);
        Ok(())
    }
}

/// The writing pass: each staged row read again, in id order, checked again
/// (the rules are deterministic, `now` the same) and handed to `writer`.
fn write(
    writer: &mut AreaWriter,
    staged: &Staged,
    input: &(impl Spans + ?Sized),
    now: i64,
) -> Result<(), ImportError> {
    let mut buf = Vec::new();
    let mut rows = staged.layout.rereader();
    let mut written = 0;
    staged.each_in_id_order(|span| {
        let area = area_at(&mut rows, input, span, now, &mut buf)?;
        written += 1;
        Ok(writer.add(&new_area(&area, &dimensions(&area)))?)
    })?;
    match written == staged.areas {
        true => Ok(()),
        false => Err(ImportError::RowsChanged),
    }
}

/// The checked area whose row lies at `span`.
fn area_at(
    rows: &mut Rereader,
    input: &(impl Spans + ?Sized),
    span: Span,
    now: i64,
    buf: &mut Vec<u8>,
) -> Result<Area, ImportError> {
    input.read_span(span, buf).map_err(ImportError::ReadAgain)?;
    let row = rows.row_at(buf);
    let draft = row
        .draft
        .filter(|_| row.problems.is_empty())
        .ok_or(ImportError::RowsChanged)?;
    area::check(&draft, now).map_err(|_| ImportError::RowsChanged)
}

fn dimensions(a: &Area) -> Vec<DimensionScore> {
    a.dimensions
        .iter()
        .map(|d| DimensionScore {
            name: d.name,
            score: d.score,
            weight: d.weight,
            sources: d.sources.iter().map(|s| Cow::Owned(s.clone())).collect(),
        })
        .collect()
}

fn new_area<'a>(a: &'a Area, dimensions: &'a [DimensionScore]) -> NewArea<'a> {
    NewArea {
        id: &a.id,
        name: &a.name,
        province_slug: a.province_slug,
        province: a.province,
        municipality: &a.municipality,
        other_names: &a.other_names,
        lat: a.lat,
        lng: a.lng,
        truth_score: a.truth_score,
        updated_at: &a.updated_at,
        dimensions,
        history: &a.history,
        first_day: a.first_day,
        boundary: a.boundary.as_ref(),
    }
}

#[cfg(test)]
#[path = "import_tests.rs"]
mod tests;
