//! The matches of a search's words, read from the full-text index (FTS5) as
//! search ranks, best first: anywhere (name, municipality, province) and in
//! the name alone. The lists of common words are kept (search/match_cache.rs).

use std::sync::Arc;

use rusqlite::Connection;

use crate::error::ApiResult;
use crate::search::area_index::AreaIndex;
use crate::search::bitmap::Bits;
use crate::search::match_cache::{MatchCache, Matches};

/// Search ranks of matches, best first (shared with the kept lists).
pub type Ranks = Arc<[u32]>;

/// Full-text matches, best first: the index's rowid is the search rank
/// (shorter names first, ties by area_no; schema.sql search_rank), so FTS5
/// yields them in relevance order.
const MATCHING: &str = "SELECT rowid FROM areas_fts WHERE areas_fts MATCH ?1 ORDER BY rowid";

/// What a search's words match: the ranks where every word matches anywhere,
/// and where every word matches in the name, best first; and, when every
/// word is common enough to have its bitmap kept (search/match_cache.rs), the
/// bitmaps whose AND is each of the two sets.
pub struct WordSets {
    pub anywhere: Ranks,
    pub in_name: Ranks,
    pub anywhere_bits: Option<Vec<Arc<Bits>>>,
    pub in_name_bits: Option<Vec<Arc<Bits>>>,
}

/// The matches of a search's words (see `WordSets`).
///
/// Each word's matches are read on their own, anywhere and in the name, and
/// intersected here: the lists of common words ("west", "central", "6") are
/// kept (search/match_cache.rs), so a full name costs the reading of its rare
/// words only, where FTS5's own AND walked every common word's list each time.
/// Words already known to be rare are read together, two queries in all:
/// FTS5's own AND is cheap over short lists.
pub fn word_matches(
    conn: &Connection,
    index: &AreaIndex,
    cache: &MatchCache,
    words: &[String],
) -> ApiResult<WordSets> {
    let mut anywhere = Vec::new();
    let mut in_name = Vec::new();
    let mut light = Vec::new();
    let areas = index.area_count();
    for word in words {
        let term = fts_term(word);
        if cache.is_light(&term) {
            light.push(term);
            continue;
        }
        let any = all_matches(conn, index, cache, &term, |n| {
            (cache.is_heavy(n), cache.wants_bits(n, areas))
        })?;
        // Reading where a word is in the name costs as much as reading all
        // its matches (FTS5 looks at each to tell the column), so the name
        // list of a heavy word is kept however short it is.
        let heavy = cache.is_heavy(any.ranks.len());
        if !heavy {
            cache.note_light(&term);
        }
        in_name.push(all_matches(
            conn,
            index,
            cache,
            &in_name_query(&term),
            |n| (heavy, heavy && cache.wants_bits(n, areas)),
        )?);
        anywhere.push(any);
    }
    if !light.is_empty() {
        let together = light.join(" ");
        let never = |_| (false, false);
        anywhere.push(all_matches(conn, index, cache, &together, never)?);
        in_name.push(all_matches(
            conn,
            index,
            cache,
            &in_name_query(&together),
            never,
        )?);
    }
    let bits = |sets: &[Matches]| sets.iter().map(|m| m.bits.clone()).collect();
    Ok(WordSets {
        anywhere_bits: bits(&anywhere),
        in_name_bits: bits(&in_name),
        anywhere: intersection(anywhere.into_iter().map(|m| m.ranks).collect()),
        in_name: intersection(in_name.into_iter().map(|m| m.ranks).collect()),
    })
}

/// An FTS5 query that matches its terms in the name column only.
pub fn in_name_query(terms: &str) -> String {
    format!("name : ({terms})")
}

/// The ranks in every list, best first. Each list is sorted, so the shortest
/// is walked and the others searched, each from where the last search ended.
pub fn intersection(mut lists: Vec<Ranks>) -> Ranks {
    lists.sort_by_key(|l| l.len());
    let mut lists = lists.into_iter();
    let Some(shortest) = lists.next() else {
        return Arc::new([]);
    };
    let others: Vec<_> = lists.collect();
    if others.is_empty() {
        return shortest;
    }
    let mut from = vec![0; others.len()];
    shortest
        .iter()
        .copied()
        .filter(|rank| {
            others.iter().zip(from.iter_mut()).all(|(list, at)| {
                *at += list[*at..].partition_point(|r| r < rank);
                list.get(*at) == Some(rank)
            })
        })
        .collect()
}

/// Calls `each` on the rank of every match, best first, while it says go on.
pub fn each_rank(
    conn: &Connection,
    fts_query: &str,
    mut each: impl FnMut(i64) -> bool,
) -> ApiResult<()> {
    let mut stmt = conn.prepare_cached(MATCHING)?;
    let mut rows = stmt.query([fts_query])?;
    while let Some(row) = rows.next()? {
        if !each(row.get(0)?) {
            break;
        }
    }
    Ok(())
}

/// Every match, best first: the kept list (search/match_cache.rs), or else
/// read from FTS5 and kept when `keeping` says so of its length (and with a
/// bitmap when it says that too).
pub fn all_matches(
    conn: &Connection,
    index: &AreaIndex,
    cache: &MatchCache,
    fts_query: &str,
    keeping: impl Fn(usize) -> (bool, bool),
) -> ApiResult<Matches> {
    if let Some(matches) = cache.get(fts_query) {
        return Ok(matches);
    }
    let mut read = Vec::new();
    // Ranks run from 1 to the number of areas (data/load.rs), so they fit a u32.
    each_rank(conn, fts_query, |rank| {
        read.extend(u32::try_from(rank).ok());
        true
    })?;
    let ranks: Ranks = read.into();
    let (keep, with_bits) = keeping(ranks.len());
    let matches = Matches {
        bits: with_bits.then(|| Arc::new(index.bits_of_ranks(&ranks))),
        ranks,
    };
    if keep {
        cache.keep(fts_query, matches.clone());
    }
    Ok(matches)
}

/// A word as a quoted FTS5 prefix term. Words hold only letters, digits and
/// combining marks (see search_params::search_words), so quoting makes them plain text.
pub fn fts_term(word: &str) -> String {
    format!("\"{}\"*", word.replace('"', "\"\""))
}
