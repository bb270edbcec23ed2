//! What an import records as its dataset's source (data/identity.rs): the
//! file's name, the SHA-256 of its bytes, and the flags that change what
//! the same bytes make.

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::Path;

use super::{CsvOptions, ImportError};
use crate::data::identity::{self, Source};
use crate::file_error::cannot;

/// The source of `input`, the opened `file`, hashed from its first byte to
/// its last; `input` is left at its start for the reading that follows.
pub fn of(file: &Path, mut input: &File, csv: &CsvOptions) -> Result<Source, ImportError> {
    let cannot_read = cannot("read", file);
    input.seek(SeekFrom::Start(0)).map_err(&cannot_read)?;
    let sha256 = identity::sha256_of(input).map_err(&cannot_read)?;
    input.seek(SeekFrom::Start(0)).map_err(&cannot_read)?;
    let name = file.file_name().unwrap_or(file.as_os_str());
    Ok(Source {
        file: name.to_string_lossy().into_owned(),
        sha256: Some(sha256),
        read_with: read_with(csv),
        region: None,
    })
}

/// The flags under which the same bytes make other areas: the columns read
/// past, in one order whatever order they were given in. The separator and
/// the decimal comma make the same areas or none.
fn read_with(csv: &CsvOptions) -> String {
    let mut ignored: Vec<&str> = csv.ignore_columns.iter().map(String::as_str).collect();
    ignored.sort_unstable();
    ignored.dedup();
    let flags: Vec<String> = ignored
        .iter()
        .map(|c| format!("--ignore-column {c}"))
        .collect();
    flags.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ignored_columns_are_named_in_one_order() {
        let csv = |columns: &[&str]| CsvOptions {
            ignore_columns: columns.iter().map(|c| c.to_string()).collect(),
            ..CsvOptions::default()
        };
        assert_eq!(read_with(&csv(&[])), "");
        assert_eq!(
            read_with(&csv(&["notes", "colour", "notes"])),
            read_with(&csv(&["colour", "notes"]))
        );
        assert_eq!(read_with(&csv(&["notes"])), "--ignore-column notes");
    }
}
