//! A dataset's identity: when it was made, from which file (its name and
//! the SHA-256 of its bytes), by which build, and its area count. Written
//! into the file (`dataset_info`, schema.sql) by every build, read once when
//! a server opens it, and shown by `/healthz`, the logs and `info`. A file
//! made before the table existed opens all the same: its identity is unknown.

use std::io::Read;

use rusqlite::{Connection, OptionalExtension, Transaction};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::dates;

/// The build that writes a dataset: the crate's version.
pub const BUILD: &str = concat!("area-scoring ", env!("CARGO_PKG_VERSION"));

/// The name `init` records as its source: the seed places of seed/.
pub const SEED_SOURCE: &str = "seed";
/// The name `init --synthetic` records as its source.
pub const SYNTHETIC_SOURCE: &str = "synthetic";

/// Where a new dataset's areas come from, as the build records it.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// The file's name without its folder, or `SEED_SOURCE`, `SYNTHETIC_SOURCE`.
    pub file: String,
    /// SHA-256 of the file's bytes, in lowercase hex; None when there is no file.
    pub sha256: Option<String>,
    /// The flags that change what the same bytes make (an import's
    /// `--ignore-column`, `--synthetic`'s sizes); empty when none.
    pub read_with: String,
    /// The box its areas were checked against (`MIN_LNG,MIN_LAT,MAX_LNG,MAX_LAT`,
    /// docs/import.md, "Coordinates"); None for South Africa's, the default.
    pub region: Option<String>,
}

impl Source {
    /// A source with no bytes to hash.
    pub fn unhashed(file: &str) -> Source {
        Source {
            file: file.to_string(),
            sha256: None,
            read_with: String::new(),
            region: None,
        }
    }

    /// The seed: SHA-256 of seed/za-areas.csv, seed/other-names.csv then
    /// seed/renames.csv, as `cat seed/za-areas.csv seed/other-names.csv
    /// seed/renames.csv | sha256sum` prints it.
    pub fn seed() -> Source {
        let mut hash = Sha256::new();
        hash.update(crate::data::seed::SEED_CSV.as_bytes());
        hash.update(crate::data::seed::SEED_OTHER_NAMES_CSV.as_bytes());
        hash.update(crate::data::renames::SEED_RENAMES_CSV.as_bytes());
        Source {
            sha256: Some(hex(&hash.finalize())),
            ..Source::unhashed(SEED_SOURCE)
        }
    }
}

/// SHA-256 of everything `input` reads, in lowercase hex.
pub fn sha256_of(mut input: impl Read) -> std::io::Result<String> {
    let mut hash = Sha256::new();
    let mut buf = vec![0; 64 * 1024];
    loop {
        match input.read(&mut buf)? {
            0 => return Ok(hex(&hash.finalize())),
            n => hash.update(&buf[..n]),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The source of a dataset, as `/healthz` and `info --format json` show it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SourceFile {
    pub file: Option<String>,
    pub sha256: Option<String>,
}

/// What a dataset file says of itself; every field None when it says nothing.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Identity {
    /// When the build wrote it, RFC 3339 UTC.
    pub made_at: Option<String>,
    pub source: SourceFile,
    /// The flags the source was read with, when any changed what it makes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_with: Option<String>,
    pub build: Option<String>,
    pub areas: Option<i64>,
    /// The region its areas were checked against, when not South Africa's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
}

/// Records the identity of the dataset being built, with its `areas`.
pub(crate) fn write(tx: &Transaction, source: &Source, areas: i64) -> rusqlite::Result<()> {
    let made_at = dates::format_timestamp(dates::now_unix());
    let mut insert = tx.prepare("INSERT INTO dataset_info (key, value) VALUES (?1, ?2)")?;
    let rows: [(&str, rusqlite::types::Value); 7] = [
        ("made_at", made_at.into()),
        ("source_file", source.file.clone().into()),
        ("source_sha256", source.sha256.clone().into()),
        ("read_with", source.read_with.clone().into()),
        ("build", BUILD.to_string().into()),
        ("areas", areas.into()),
        ("region", source.region.clone().into()),
    ];
    for (key, value) in rows {
        insert.execute(rusqlite::params![key, value])?;
    }
    Ok(())
}

/// The identity `conn`'s main database records; unknown (every field
/// None) for a file without the table, or one that cannot be read.
pub fn read(conn: &Connection) -> Identity {
    let text = |key: &str| -> Option<String> {
        conn.query_row(
            "SELECT value FROM dataset_info WHERE key = ?1",
            [key],
            |r| r.get(0),
        )
        .optional()
        .ok()
        .flatten()
    };
    let areas = conn
        .query_row(
            "SELECT value FROM dataset_info WHERE key = 'areas'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .ok();
    Identity {
        made_at: text("made_at"),
        source: SourceFile {
            file: text("source_file"),
            sha256: text("source_sha256"),
        },
        read_with: text("read_with").filter(|r| !r.is_empty()),
        build: text("build"),
        areas,
        region: text("region"),
    }
}

/// Whether the databases `a` and `b` of one connection were both made
/// from bytes of the same SHA-256 read with the same flags. False when
/// either does not know its source's hash.
pub fn same_source(conn: &Connection, a: &str, b: &str) -> bool {
    let same = format!(
        "SELECT count(*) = 2 FROM {a}.dataset_info x JOIN {b}.dataset_info y ON y.key = x.key
         WHERE x.key IN ('source_sha256', 'read_with') AND x.value IS NOT NULL AND x.value = y.value"
    );
    conn.query_row(&same, [], |r| r.get(0)).unwrap_or(false)
}

impl Identity {
    /// For the logs, after the served area count: made when, from what, by
    /// which build.
    pub fn describe(&self) -> String {
        let Some(made_at) = &self.made_at else {
            return "identity unknown (made before datasets recorded it)".into();
        };
        let file = self.source.file.as_deref().unwrap_or("an unknown source");
        let hash = match &self.source.sha256 {
            Some(sha) => format!(" (sha256 {}…)", sha.chars().take(12).collect::<String>()),
            None => String::new(),
        };
        let build = self.build.as_deref().unwrap_or("an unknown build");
        format!("made {made_at} from {file}{hash} by {build}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_is_that_of_the_bytes_in_lowercase_hex() {
        assert_eq!(
            sha256_of(&b"abc"[..]).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn a_file_without_the_table_has_an_unknown_identity() {
        let conn = Connection::open_in_memory().unwrap();
        assert_eq!(read(&conn), Identity::default());
        assert!(read(&conn).describe().contains("unknown"));
    }

    #[test]
    fn what_is_written_is_read_back_and_same_source_compares_hash_and_flags() {
        let mut conn = Connection::open_in_memory().unwrap();
        let table = "CREATE TABLE dataset_info (key TEXT PRIMARY KEY, value) WITHOUT ROWID;";
        conn.execute_batch(table).unwrap();
        conn.execute_batch(&format!(
            "ATTACH ':memory:' AS other; {}",
            table.replace("dataset_info", "other.dataset_info")
        ))
        .unwrap();
        let source = Source {
            sha256: Some("ab".repeat(32)),
            ..Source::unhashed("areas.csv")
        };
        let tx = conn.transaction().unwrap();
        write(&tx, &source, 3).unwrap();
        tx.commit().unwrap();
        let identity = read(&conn);
        assert_eq!(identity.source.file.as_deref(), Some("areas.csv"));
        assert_eq!(identity.source.sha256, source.sha256);
        assert_eq!((identity.areas, identity.read_with), (Some(3), None));
        assert_eq!(identity.build.as_deref(), Some(BUILD));
        assert!(!same_source(&conn, "main", "other"));
        conn.execute_batch("INSERT INTO other.dataset_info SELECT * FROM main.dataset_info")
            .unwrap();
        assert!(same_source(&conn, "main", "other"));
        conn.execute_batch(
            "UPDATE other.dataset_info SET value = '--ignore-column x' WHERE key = 'read_with'",
        )
        .unwrap();
        assert!(!same_source(&conn, "main", "other"));
    }
}
