//! The vocabulary (vocabulary.rs) stored in the dataset when it is written,
//! so that opening the dataset reads a few megabytes. Read off FTS5 instead,
//! the words walk every posting of the full-text index: 280 MB at a million
//! areas, 1.5 s from a cold disk cache (bench/PROFILE.md, "Opening a million
//! areas from a cold disk").
//!
//! What is stored is what `Vocabulary::read` makes of the file's own
//! full-text tables at the end of the build, so the two agree by
//! construction. A file without it (written by an older build), of another
//! `LAYOUT`, or whose parts do not fit together is read off FTS5, with the
//! same answers.

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, params};

use crate::search::index::little_endian::{u32_bytes, u32s};
use crate::search::words::other_ranks::OtherNameRanks;
use crate::search::words::vocabulary::Vocabulary;

/// How the parts are laid out: raised when they change, or when what a
/// vocabulary holds does, so that files written before are read off FTS5.
pub const LAYOUT: i64 = 1;

const HAS_TABLE: &str =
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'search_words'";
const WRITE: &str =
    "INSERT INTO search_words (layout, words, starts, kinds, other_entries, other_lists)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
const READ: &str =
    "SELECT layout, words, starts, kinds, other_entries, other_lists FROM search_words";

/// Stores the vocabulary of the file's full-text tables, once they are full.
pub fn write(conn: &Connection) -> rusqlite::Result<()> {
    let v = Vocabulary::read(conn)?;
    let (words, starts, kinds) = v.parts();
    let (entries, lists) = v.other_ranks.parts();
    conn.execute(
        WRITE,
        params![
            LAYOUT,
            words,
            u32_bytes(starts),
            kinds,
            u32_bytes(entries),
            u32_bytes(lists)
        ],
    )?;
    Ok(())
}

/// The file's vocabulary: as it stores it, or read off its full-text tables
/// when it stores none this build reads.
pub fn open(conn: &Connection) -> rusqlite::Result<Vocabulary> {
    match read(conn)? {
        Some(stored) => Ok(stored),
        None => Vocabulary::read(conn),
    }
}

/// The stored vocabulary, if the file holds one this build reads.
fn read(conn: &Connection) -> rusqlite::Result<Option<Vocabulary>> {
    if conn
        .query_row(HAS_TABLE, [], |_| Ok(()))
        .optional()?
        .is_none()
    {
        return Ok(None);
    }
    let mut stmt = conn.prepare(READ)?;
    let mut rows = stmt.query([])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    if row.get::<_, i64>(0)? != LAYOUT {
        return Ok(None);
    }
    let stored = (|| {
        let blob = |i| match row.get_ref(i) {
            Ok(ValueRef::Blob(bytes)) => Some(bytes),
            _ => None,
        };
        let mut v = Vocabulary::from_parts(blob(1)?.to_vec(), u32s(blob(2)?)?, blob(3)?.to_vec())?;
        v.other_ranks = OtherNameRanks::from_parts(u32s(blob(4)?)?, u32s(blob(5)?)?, v.len())?;
        Some(v)
    })();
    if stored.is_none() {
        log::warn!(
            "the stored search words do not fit together; reading them off the full-text index"
        );
    }
    Ok(stored)
}

#[cfg(test)]
#[path = "vocabulary_store_tests.rs"]
mod tests;
