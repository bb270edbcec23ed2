//! Every two neighbouring words of a column, each of at least
//! `SPLIT_PART_MIN` letters, joined into one term, in full-text tables of
//! their own: `joined_fts` for names, municipalities and
//! provinces, `other_joined_fts` for other names (schema.sql). A word of a
//! forgiving search that splits in two ("ivorypark" for Ivory Park) is then
//! one term's lookup. Read as a phrase of `areas_fts` ("ivory" + "park"),
//! FTS5 steps through the common word's long list to find the rare word's
//! neighbours: up to 10 ms a phrase at a million areas, the slowest part of
//! forgiving search (bench/RESULTS-million.md).
//!
//! Written when a dataset is built, from FTS5's own tokens (`fts5vocab`'s
//! instances), so the two parts are exactly the words the index holds. A
//! shorter `SPLIT_PART_MIN` needs a new schema version: files written before
//! it lack the shorter words' pairs.

use rusqlite::{Connection, Transaction};

use crate::error::ApiResult;
use crate::search::matches::match_cache::MatchCache;
use crate::search::matches::members::Members;
use crate::search::matches::word_sets::{RankTable, ranks_in};
use crate::search::matches::word_store::in_name_query;
use crate::search::words::SPLIT_PART_MIN;
use crate::search::words::vocabulary::{IN_AREAS, IN_OTHER_NAMES};

/// Joins the two words of a term. A token character of the joined tables
/// alone (schema.sql, `tokenchars`): the index's words never hold it, so a
/// joined term says where its first word ends.
pub const JOINER: char = '_';

/// The FTS5 query of two neighbouring words, the second a prefix when the
/// word may still be being typed.
pub fn joined_query(left: &str, right: &str, prefix: bool) -> String {
    let star = if prefix { "*" } else { "" };
    let quoted = |w: &str| w.replace('"', "\"\"");
    format!("\"{}{JOINER}{}\"{star}", quoted(left), quoted(right))
}

/// Adds the areas where `left` and `right` are neighbours to `into`,
/// anywhere and in a name, from the tables `kinds` says hold both.
pub fn add_neighbours(
    conn: &Connection,
    cache: &MatchCache,
    kinds: u8,
    query: &str,
    (anywhere, in_name): (&mut Members, &mut Members),
) -> ApiResult<()> {
    if kinds & IN_AREAS != 0 {
        anywhere.add_ranks(&ranks_in(conn, cache, RankTable::Joined, query)?);
        in_name.add_ranks(&ranks_in(
            conn,
            cache,
            RankTable::Joined,
            &in_name_query(query),
        )?);
    }
    if kinds & IN_OTHER_NAMES != 0 {
        let ranks = ranks_in(conn, cache, RankTable::OtherJoined, query)?;
        anywhere.add_ranks(&ranks);
        in_name.add_ranks(&ranks);
    }
    Ok(())
}

/// The columns of each full-text table and of its joined table.
const SOURCES: [(&str, RankTable, &[&str]); 2] = [
    (
        "areas_fts",
        RankTable::Joined,
        &["name", "municipality", "province"],
    ),
    ("other_names_fts", RankTable::OtherJoined, &["name"]),
];

/// Fills both joined tables from the full-text tables, which must be
/// written already.
pub fn write(tx: &Transaction) -> rusqlite::Result<()> {
    for (source, joined, columns) in SOURCES {
        write_one(tx, source, joined.name(), columns)?;
    }
    Ok(())
}

/// Fills `joined` from `source`'s tokens. The tokens are copied to a
/// temporary table on disk (the build keeps temporary tables in files,
/// data/load.rs), indexed by place, and each joined to the next.
fn write_one(
    tx: &Transaction,
    source: &str,
    joined: &str,
    columns: &[&str],
) -> rusqlite::Result<()> {
    // Every name here is one of SOURCES', never a user's value.
    tx.execute_batch(&format!(
        "CREATE VIRTUAL TABLE temp.tokens_of USING fts5vocab(main, {source}, instance);
         CREATE TEMP TABLE tokens (doc INTEGER, col TEXT, offset INTEGER, term TEXT);"
    ))?;
    tx.execute(
        "INSERT INTO temp.tokens SELECT doc, col, offset, term FROM temp.tokens_of
         WHERE length(term) >= ?1",
        [SPLIT_PART_MIN as i64],
    )?;
    let each_column: Vec<String> = columns
        .iter()
        .map(|c| format!("group_concat(CASE col WHEN '{c}' THEN pair END, ' ')"))
        .collect();
    tx.execute_batch(&format!(
        "CREATE INDEX temp.tokens_at ON tokens (doc, col, offset);
         INSERT INTO {joined} (rowid, {names})
           SELECT doc, {each_column} FROM (
             SELECT a.doc, a.col, a.term || '{JOINER}' || b.term AS pair
             FROM temp.tokens a JOIN temp.tokens b
               ON b.doc = a.doc AND b.col = a.col AND b.offset = a.offset + 1
             ORDER BY a.doc, a.col, a.offset)
           GROUP BY doc;
         INSERT INTO {joined} ({joined}) VALUES ('optimize');
         DROP TABLE temp.tokens;
         DROP TABLE temp.tokens_of;",
        names = columns.join(", "),
        each_column = each_column.join(", "),
    ))
}
