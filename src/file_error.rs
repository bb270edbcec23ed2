//! A file that could not be used: what was being done to which file, and
//! the system's or SQLite's reason, as the errors of every subsystem say it.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
#[error("cannot {doing} {}: {source}", .path.display())]
pub struct FileError {
    pub doing: &'static str,
    pub path: PathBuf,
    pub source: Cause,
}

#[derive(Debug, thiserror::Error)]
pub enum Cause {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
}

/// `doing` to the file at `path` failed: for `map_err`.
pub fn cannot<E: Into<Cause>>(
    doing: &'static str,
    path: &Path,
) -> impl Fn(E) -> FileError + use<E> {
    let path = path.to_path_buf();
    move |e| FileError {
        doing,
        path: path.clone(),
        source: e.into(),
    }
}
