//! Writing the stored sets of heavy words (word_store/) at the end of a
//! build, once the full-text index and the search ranks are in.

use std::collections::HashMap;

use rusqlite::{Connection, params};

use super::{LAYOUT, fts_term, fts_word, in_name_query, kept_form, ranks_of};
use crate::search::index::AreaIndex;
use crate::search::index::little_endian;
use crate::search::matches::match_cache::{self, MatchCache, Matches};

/// Every term of the full-text index and the number of rows holding it.
const VOCABULARY: &str =
    "CREATE VIRTUAL TABLE temp.area_terms USING fts5vocab(main, 'areas_fts', 'row')";
const TERMS: &str = "SELECT term, doc FROM temp.area_terms";
const DROP_VOCABULARY: &str = "DROP TABLE temp.area_terms";

const ADD_SET: &str = "INSERT INTO word_sets (set_no, matches, by_rank, by_position, by_score)
    VALUES (?1, ?2, ?3, ?4, ?5)";
const ADD_QUERY: &str = "INSERT INTO word_queries (query, set_no) VALUES (?1, ?2)";
const ADD_LAYOUT: &str = "INSERT INTO word_store (layout, areas) VALUES (?1, ?2)";

/// A prefix is stored from this many matches, at any size: the count from
/// which the server keeps a word (match_cache.rs `HEAVY`). With many areas
/// the server keeps words only from a larger count, as keeping more pushed
/// them out of one another; stored, a word of 256 to 3,906 matches at a
/// million areas is read back in microseconds where FTS5 took 0.3 ms anywhere
/// and as long again in the name.
pub const STORED_FROM: usize = match_cache::HEAVY;

/// Stores the matches of every heavy prefix (word_store/) and returns how
/// many prefixes were stored.
pub fn write(conn: &Connection) -> rusqlite::Result<usize> {
    let index = AreaIndex::load(conn)?;
    write_with(conn, &index, &MatchCache::new(STORED_FROM))
}

/// A stored set: its number and how many it holds.
#[derive(Clone, Copy)]
struct Stored {
    set_no: i64,
    count: usize,
}

/// `write`, heavy from the count `cache` says (tests store light words too).
pub(super) fn write_with(
    conn: &Connection,
    index: &AreaIndex,
    cache: &MatchCache,
) -> rusqlite::Result<usize> {
    conn.execute_batch(VOCABULARY)?;
    let terms = conn
        .prepare(TERMS)?
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?
        .collect::<rusqlite::Result<Vec<_>>>();
    conn.execute_batch(DROP_VOCABULARY)?;
    let terms = terms?;
    let heavy_words = heavy_words(&terms, |n| cache.is_heavy(n));
    let candidates = candidates(terms, |n| cache.is_heavy(n));
    let areas = index.area_count();
    let mut next_set = 0;
    let mut add = |ranks: Vec<u32>, kept_as: Option<Stored>| -> rusqlite::Result<Stored> {
        if let Some(same) = kept_as.filter(|s| s.count == ranks.len()) {
            // A subset of the shorter prefix's matches, as many: the same set.
            return Ok(same);
        }
        next_set += 1;
        let count = ranks.len();
        let as_bits = cache.wants_bits(count, areas);
        let blobs = match kept_form(index, ranks, as_bits) {
            Matches::List(ranks) => (little_endian::u32_bytes(&ranks), None, None),
            Matches::Bits(b) => (
                b.by_rank.to_bytes(),
                Some(b.by_position.to_bytes()),
                Some(b.by_score.to_bytes()),
            ),
        };
        conn.prepare_cached(ADD_SET)?.execute(params![
            next_set,
            count as i64,
            blobs.0,
            blobs.1,
            blobs.2
        ])?;
        Ok(Stored {
            set_no: next_set,
            count,
        })
    };
    // Each prefix's stored sets (anywhere, in the name), for its longer prefixes.
    let mut stored: HashMap<String, (Stored, Stored)> = HashMap::new();
    let mut written = 0;
    for prefix in candidates {
        let shorter = prefix
            .char_indices()
            .last()
            .and_then(|(i, _)| stored.get(&prefix[..i]).copied());
        let term = fts_term(&prefix);
        let anywhere = ranks_of(conn, &term)?;
        if !cache.is_heavy(anywhere.len()) {
            continue;
        }
        let name_query = in_name_query(&term);
        let in_name = ranks_of(conn, &name_query)?;
        let anywhere = add(anywhere, shorter.map(|s| s.0))?;
        let sets = (
            anywhere,
            in_name_set(&mut add, in_name, anywhere, shorter.map(|s| s.1))?,
        );
        let mut query = conn.prepare_cached(ADD_QUERY)?;
        query.execute(params![term, sets.0.set_no])?;
        query.execute(params![name_query, sets.1.set_no])?;
        stored.insert(prefix, sets);
        written += 1;
    }
    // Heavy words whole, for forgiving search's typo terms (a word one
    // edit from "nrth" is "north", not every word starting with it).
    for word in heavy_words {
        let term = fts_word(&word);
        let name_query = in_name_query(&term);
        let anywhere = add(ranks_of(conn, &term)?, None)?;
        let in_name = ranks_of(conn, &name_query)?;
        let sets = (anywhere, in_name_set(&mut add, in_name, anywhere, None)?);
        let mut query = conn.prepare_cached(ADD_QUERY)?;
        query.execute(params![term, sets.0.set_no])?;
        query.execute(params![name_query, sets.1.set_no])?;
        written += 1;
    }
    conn.execute(ADD_LAYOUT, params![LAYOUT, areas as i64])?;
    Ok(written)
}

/// The set of a word's matches in the name: its set anywhere when they are
/// as many (they are a subset), as for most words of a name and every
/// number, so that one set read and kept serves both queries; else added.
fn in_name_set(
    add: &mut impl FnMut(Vec<u32>, Option<Stored>) -> rusqlite::Result<Stored>,
    in_name: Vec<u32>,
    anywhere: Stored,
    shorter: Option<Stored>,
) -> rusqlite::Result<Stored> {
    if in_name.len() == anywhere.count {
        Ok(anywhere)
    } else {
        add(in_name, shorter)
    }
}

/// The terms held by a heavy number of rows that are the start of a longer
/// term: their whole-word matches differ from their prefix's.
fn heavy_words(terms: &[(String, i64)], heavy: impl Fn(usize) -> bool) -> Vec<String> {
    let mut sorted: Vec<&(String, i64)> = terms.iter().collect();
    sorted.sort_unstable();
    sorted
        .windows(2)
        .filter(|w| {
            heavy(usize::try_from(w[0].1).unwrap_or(0)) && w[1].0.starts_with(w[0].0.as_str())
        })
        .map(|w| w[0].0.clone())
        .collect()
}

/// The prefixes of the index's terms that can be heavy: those whose terms
/// are together in at least as many rows as `heavy` asks (a bound on the
/// rows the prefix matches), shortest first along each term. Sorted, the
/// terms of a prefix are consecutive, so a stack of the current term's
/// prefixes, each with its rows so far, sees each prefix once.
pub(super) fn candidates(
    mut terms: Vec<(String, i64)>,
    heavy: impl Fn(usize) -> bool,
) -> Vec<String> {
    terms.sort_unstable();
    let mut found = Vec::new();
    let mut stack: Vec<(String, usize)> = Vec::new();
    let pop_to = |stack: &mut Vec<(String, usize)>, term: &str, found: &mut Vec<String>| {
        while let Some((prefix, rows)) = stack.pop() {
            if term.starts_with(prefix.as_str()) {
                stack.push((prefix, rows));
                break;
            }
            if heavy(rows) {
                found.push(prefix);
            }
        }
    };
    for (term, rows) in &terms {
        pop_to(&mut stack, term, &mut found);
        let have = stack.last().map_or(0, |(p, _)| p.len());
        for (i, c) in term.char_indices() {
            let end = i + c.len_utf8();
            if end > have {
                stack.push((term[..end].to_string(), 0));
            }
        }
        let rows = usize::try_from(*rows).unwrap_or(0);
        stack.iter_mut().for_each(|(_, n)| *n += rows);
    }
    pop_to(&mut stack, "", &mut found);
    // Shorter prefixes first, so that a longer one finds its shorter one stored.
    found.sort_unstable();
    found
}
