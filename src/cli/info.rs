//! `area-scoring info [FILE]`: what a dataset file says of itself (its
//! identity, data/identity.rs), as text or JSON.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};
use serde::Serialize;

use super::error::CliError;
use crate::data::db;
use crate::data::identity::{self, Identity};
use crate::file_error::cannot;

/// `info --format`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum InfoFormat {
    Text,
    Json,
}

/// `info --format`'s words, the default first.
pub const INFO_FORMATS: [(&str, InfoFormat); 2] =
    [("text", InfoFormat::Text), ("json", InfoFormat::Json)];

#[derive(Serialize)]
struct Shown<'a> {
    dataset: String,
    #[serde(flatten)]
    identity: &'a Identity,
}

/// The identity of the dataset at `file`, as `format` prints it; an error
/// for a file that is not one of ours.
pub fn run(file: &Path, format: InfoFormat) -> Result<String, CliError> {
    db::check_versions(file, db::OLDEST_VERSION..=db::SCHEMA_VERSION)?;
    let conn = Connection::open_with_flags(file, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(cannot("open", file))?;
    let identity = identity::read(&conn);
    Ok(match format {
        InfoFormat::Json => {
            let shown = Shown {
                dataset: file.display().to_string(),
                identity: &identity,
            };
            serde_json::to_string(&shown)?
        }
        InfoFormat::Text => text(file, &identity),
    })
}

fn text(file: &Path, identity: &Identity) -> String {
    let or_unknown = |v: &Option<String>| v.clone().unwrap_or_else(|| "unknown".into());
    let mut lines = vec![
        format!("dataset:   {}", file.display()),
        format!("made at:   {}", or_unknown(&identity.made_at)),
        format!("source:    {}", or_unknown(&identity.source.file)),
        format!("sha256:    {}", or_unknown(&identity.source.sha256)),
    ];
    if let Some(flags) = &identity.read_with {
        lines.push(format!("read with: {flags}"));
    }
    lines.push(format!("build:     {}", or_unknown(&identity.build)));
    lines.push(format!(
        "areas:     {}",
        or_unknown(&identity.areas.map(|n| n.to_string()))
    ));
    lines.push(format!(
        "region:    {}",
        identity
            .region
            .as_deref()
            .unwrap_or("South Africa's box (the default)")
    ));
    if identity.made_at.is_none() {
        lines.push("(the file was made before datasets recorded their identity)".into());
    }
    lines.join("\n")
}
