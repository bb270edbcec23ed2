//! The matches of heavy search words, written into the dataset when it is
//! built and read back by the server instead of the full-text index.
//!
//! At a million areas a short word ("wes", "1", "s") matches hundreds of
//! thousands of areas. Read from FTS5 anywhere and again in the name, such
//! a word took 30-90 ms, on its first use and again whenever the kept
//! bitmaps (match_cache.rs) had let it go, and a full name holds two or
//! three of them (bench/PROFILE.md). The build reads every heavy prefix of
//! the index's terms once and stores its matches in the form the server
//! keeps (`kept_form`): a list of ranks, or three bitmaps. The server then
//! reads a few hundred kilobytes from the file, in well under a millisecond.
//!
//! Stored are the prefixes whose matches anywhere reach the heavy count of
//! the dataset's size (match_cache.rs, `for_areas`), anywhere and in the
//! name. A prefix matching the same areas as the prefix one letter shorter
//! shares its stored set ("municipa" to "municipality"). A dataset without
//! stored sets, or whose bitmaps follow another `LAYOUT`, has its words
//! read from FTS5, and the server warns of it each time it opens the file
//! (word_store/warning.rs).

use std::sync::Arc;

use rusqlite::{Connection, OptionalExtension};

use crate::search::index::AreaIndex;
use crate::search::index::bitmap::Bits;
use crate::search::index::little_endian;
use crate::search::matches::match_cache::{Matches, WordBits};

/// The orders the stored bitmaps follow: the area index's grid order (search/index/) (cells
/// of `CELL_DEG`, best score first within a cell) and its score order. A
/// change to either must raise this, so that files written before are read
/// from FTS5 rather than through bitmaps in the wrong order.
pub const LAYOUT: i64 = 1;

/// Full-text matches, best first: the index's rowid is the search rank
/// (shorter names first, ties by area_no; schema.sql search_rank).
const MATCHING: &str = "SELECT rowid FROM areas_fts WHERE areas_fts MATCH ?1 ORDER BY rowid";

/// A word as a quoted FTS5 prefix term. Words hold only letters, digits and
/// combining marks (api/params/search.rs), so quoting makes them plain text.
pub fn fts_term(word: &str) -> String {
    format!("\"{}\"*", word.replace('"', "\"\""))
}

/// A word as a quoted FTS5 term that matches it whole, not as a prefix.
pub fn fts_word(word: &str) -> String {
    format!("\"{}\"", word.replace('"', "\"\""))
}

/// An FTS5 query that matches its terms in the name column only.
pub fn in_name_query(terms: &str) -> String {
    format!("name : ({terms})")
}

/// Calls `each` on the rank of every match, best first, while it says go on.
pub fn each_rank(
    conn: &Connection,
    fts_query: &str,
    mut each: impl FnMut(i64) -> bool,
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(MATCHING)?;
    let mut rows = stmt.query([fts_query])?;
    while let Some(row) = rows.next()? {
        if !each(row.get(0)?) {
            break;
        }
    }
    Ok(())
}

/// The rank of every match, best first. Ranks run from 1 to the number of
/// areas (data/load.rs), so they fit a u32.
pub fn ranks_of(conn: &Connection, fts_query: &str) -> rusqlite::Result<Vec<u32>> {
    let mut ranks = Vec::new();
    each_rank(conn, fts_query, |rank| {
        ranks.extend(u32::try_from(rank).ok());
        true
    })?;
    Ok(ranks)
}

/// Matches in the form they are kept: the list of ranks, or when `as_bits`
/// the three bitmaps of match_cache.rs.
pub fn kept_form(index: &AreaIndex, ranks: Vec<u32>, as_bits: bool) -> Matches {
    if !as_bits {
        return Matches::List(ranks.into());
    }
    let mut by_rank = Bits::new(index.area_count() + 1);
    ranks.iter().for_each(|&r| by_rank.set(r as usize));
    let by_position = index.bits_of_ranks(&ranks);
    Matches::Bits(Arc::new(WordBits {
        matches: ranks.len(),
        by_rank,
        by_score: index.in_score_order(&by_position),
        by_position,
    }))
}

const SET_OF_QUERY: &str = "SELECT set_no FROM word_queries WHERE query = ?1";

const STORED_SET: &str =
    "SELECT matches, by_rank, by_position, by_score FROM word_sets WHERE set_no = ?1";

const LAYOUT_OF_FILE: &str = "SELECT layout, areas FROM word_store";

/// What a file's stored sets are to this build and its index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoredWords {
    Usable,
    /// A file written before the sets were stored.
    Missing,
    /// Sets of another `LAYOUT`, or for another number of areas.
    Other {
        layout: i64,
        areas: i64,
    },
}

pub fn stored_words(conn: &Connection, index: &AreaIndex) -> StoredWords {
    let found: Option<(i64, i64)> = conn
        .query_row(LAYOUT_OF_FILE, [], |r| Ok((r.get(0)?, r.get(1)?)))
        .ok();
    match found {
        None => StoredWords::Missing,
        Some((LAYOUT, areas)) if areas == index.area_count() as i64 => StoredWords::Usable,
        Some((layout, areas)) => StoredWords::Other { layout, areas },
    }
}

/// Whether a file's stored sets can be read by this build for this index.
pub fn has_stored_sets(conn: &Connection, index: &AreaIndex) -> bool {
    stored_words(conn, index) == StoredWords::Usable
}

/// The stored matches of an FTS5 query and their number, if it has them
/// (tests; the server looks the set up once and keeps it by its number,
/// word_sets.rs).
#[cfg(test)]
pub fn read(
    conn: &Connection,
    index: &AreaIndex,
    fts_query: &str,
) -> rusqlite::Result<Option<(Matches, usize)>> {
    match set_of(conn, fts_query)? {
        Some(set_no) => read_set(conn, index, set_no),
        None => Ok(None),
    }
}

/// The number of the set an FTS5 query's matches are stored as, if stored.
/// Queries matching the same areas share a set: a prefix and its longer
/// prefix, and a word anywhere and in the name (word_store/write.rs).
pub fn set_of(conn: &Connection, fts_query: &str) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached(SET_OF_QUERY)?
        .query_row([fts_query], |r| r.get(0))
        .optional()
}

/// A stored set's matches and their number. A set whose blobs do not fit
/// the index is taken as not stored.
pub fn read_set(
    conn: &Connection,
    index: &AreaIndex,
    set_no: i64,
) -> rusqlite::Result<Option<(Matches, usize)>> {
    type Row = (i64, Vec<u8>, Option<Vec<u8>>, Option<Vec<u8>>);
    let row: Option<Row> = conn
        .prepare_cached(STORED_SET)?
        .query_row([set_no], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .optional()?;
    let Some((count, by_rank, by_position, by_score)) = row else {
        return Ok(None);
    };
    let count = usize::try_from(count).unwrap_or(usize::MAX);
    let matches = match (by_position, by_score) {
        (Some(position), Some(score)) => {
            stored_bits(index.area_count(), count, [&by_rank, &position, &score])
        }
        _ => stored_list(count, &by_rank),
    };
    Ok(matches.map(|m| (m, count)))
}

/// Three stored bitmaps (by rank, by position, by score), if each is of its size.
fn stored_bits(areas: usize, count: usize, [rank, position, score]: [&[u8]; 3]) -> Option<Matches> {
    Some(Matches::Bits(Arc::new(WordBits {
        matches: count,
        by_rank: Bits::from_bytes(rank, areas + 1)?,
        by_position: Bits::from_bytes(position, areas)?,
        by_score: Bits::from_bytes(score, areas)?,
    })))
}

/// A stored list of `count` ranks, 4 bytes each, if it holds that many.
fn stored_list(count: usize, bytes: &[u8]) -> Option<Matches> {
    let ranks = little_endian::u32s(bytes)?;
    (ranks.len() == count).then(|| Matches::List(ranks.into()))
}

mod write;
pub use write::write;

mod warning;
pub use warning::stored_sets;

/// Writes a file's stored sets again, heavy from `heavy` matches (tests:
/// small data then stores lists as well as bitmaps).
#[cfg(test)]
pub fn rewrite(conn: &Connection, heavy: usize) -> rusqlite::Result<usize> {
    conn.execute_batch("DELETE FROM word_queries; DELETE FROM word_sets; DELETE FROM word_store;")?;
    let index = AreaIndex::load(conn)?;
    write::write_with(
        conn,
        &index,
        &crate::search::matches::match_cache::MatchCache::new(heavy),
    )
}

#[cfg(test)]
mod tests;
