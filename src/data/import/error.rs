//! Why an import, or its `--check`, failed: each with the message the
//! command line prints. A row's own problems are not errors here: they are
//! gathered into one report (problems.rs), which `Problems` carries.

use std::path::{Path, PathBuf};

use crate::data::error::DataError;
use crate::file_error::FileError;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error(transparent)]
    Data(#[from] DataError),
    /// The rows' problems, reported as one text.
    #[error("{0}")]
    Problems(String),
    /// `--check`'s report of an import that would be refused.
    #[error("{0}")]
    WouldBeRefused(String),
    /// What the file would remove or move, which needs `--allow-shrink`.
    #[error("refusing to import: the file would {} in {db}. Nothing was written. If that is what you mean, run the import again with --allow-shrink (the replaced dataset is kept for rollback)", .why.join(", and "))]
    TooManyChanged { why: Vec<String>, db: String },
    #[error("cannot compare with {db}: {source}")]
    Compare { db: String, source: rusqlite::Error },
    #[error("cannot tell the format of {}: name it .csv (CSV), .jsonl / .ndjson (JSON Lines), .geojson (GeoJSON FeatureCollection) or .geojsons (GeoJSONSeq); see docs/import.md", .0.display())]
    UnknownFormat(PathBuf),
    #[error(transparent)]
    File(#[from] FileError),
    #[error("cannot read {}: it is a directory", .0.display())]
    Directory(PathBuf),
    /// A pipe, a socket or a device, which cannot be read twice.
    #[error("cannot import {}: it is not a regular file (a pipe, a socket or a device); import reads the file twice, so decompress or copy it to a file first", .0.display())]
    NotRegular(PathBuf),
    #[error("{} changed while it was opened; nothing was imported and the database is unchanged", .0.display())]
    ChangedWhileOpened(PathBuf),
    #[error("{} changed while it was imported; nothing was imported and the database is unchanged", .0.display())]
    ChangedWhileImported(PathBuf),
    /// The writing pass read other rows than the checking pass.
    #[error(
        "the file changed while it was imported; nothing was imported and the database is unchanged"
    )]
    RowsChanged,
    #[error("{} is a directory, not a database file", .0.display())]
    TargetDirectory(PathBuf),
    /// The file at the database's path is none of ours; `previous` is the
    /// kept dataset a rollback would put back.
    #[error("refusing to replace {}: {source}{}", .db.display(), rollback_hint(.db, .previous))]
    NotReplaceable {
        db: PathBuf,
        source: Box<DataError>,
        previous: Option<PathBuf>,
    },
    #[error("--ignore-column, --delimiter and --decimal-comma are for CSV files")]
    CsvOptionsForJsonl,
    #[error("cannot read the file: {0}")]
    ReadFile(#[source] std::io::Error),
    #[error("cannot read the file again: {0}")]
    ReadAgain(#[source] std::io::Error),
    #[error("cannot stage the import: {0}")]
    Stage(#[source] rusqlite::Error),
    #[error("cannot read the checked rows back: {0}")]
    StagedRows(#[source] rusqlite::Error),
    /// A failure reading `file` itself, not one of its rows.
    #[error("{}: {source}", .file.display())]
    InFile {
        file: PathBuf,
        source: Box<ImportError>,
    },
}

fn rollback_hint(db: &Path, previous: &Option<PathBuf>) -> String {
    match previous {
        Some(back) => format!(
            "; if a wrong file was put there, `area-scoring rollback --db {}` puts back {}",
            db.display(),
            back.display()
        ),
        None => String::new(),
    }
}
