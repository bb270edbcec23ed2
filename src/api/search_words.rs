//! The matches of a search's words, read from the full-text index (FTS5) as
//! search ranks, best first: anywhere (name, municipality, province) and in
//! the name alone. The lists of common words are kept (search/match_cache.rs).

use std::sync::Arc;

use rusqlite::Connection;

use crate::error::ApiResult;
use crate::search::match_cache::MatchCache;

/// Search ranks of matches, best first (shared with the kept lists).
pub type Ranks = Arc<[u32]>;

/// Full-text matches, best first: the index's rowid is the search rank
/// (shorter names first, ties by area_no; schema.sql search_rank), so FTS5
/// yields them in relevance order.
const MATCHING: &str = "SELECT rowid FROM areas_fts WHERE areas_fts MATCH ?1 ORDER BY rowid";

/// The ranks where every word matches anywhere, and where every word matches
/// in the name, best first.
///
/// Each word's matches are read on their own, anywhere and in the name, and
/// intersected here: the lists of common words ("west", "central", "6") are
/// kept (search/match_cache.rs), so a full name costs the reading of its rare
/// words only, where FTS5's own AND walked every common word's list each time.
/// Words already known to be rare are read together, two queries in all:
/// FTS5's own AND is cheap over short lists.
pub fn word_matches(
    conn: &Connection,
    cache: &MatchCache,
    words: &[String],
) -> ApiResult<(Ranks, Ranks)> {
    let mut anywhere = Vec::new();
    let mut in_name = Vec::new();
    let mut light = Vec::new();
    for word in words {
        let term = fts_term(word);
        if cache.is_light(&term) {
            light.push(term);
            continue;
        }
        let any = all_ranks(conn, cache, &term, |n| cache.is_heavy(n))?;
        // Reading where a word is in the name costs as much as reading all
        // its matches (FTS5 looks at each to tell the column), so the name
        // list of a heavy word is kept however short it is.
        let heavy = cache.is_heavy(any.len());
        if !heavy {
            cache.note_light(&term);
        }
        in_name.push(all_ranks(conn, cache, &in_name_query(&term), |_| heavy)?);
        anywhere.push(any);
    }
    if !light.is_empty() {
        let together = light.join(" ");
        anywhere.push(all_ranks(conn, cache, &together, |_| false)?);
        in_name.push(all_ranks(conn, cache, &in_name_query(&together), |_| {
            false
        })?);
    }
    Ok((intersection(anywhere), intersection(in_name)))
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

/// Every match, best first: the kept list (search/match_cache.rs), or else read
/// from FTS5 and kept when `worth_keeping` says so of its length.
pub fn all_ranks(
    conn: &Connection,
    cache: &MatchCache,
    fts_query: &str,
    worth_keeping: impl Fn(usize) -> bool,
) -> ApiResult<Ranks> {
    if let Some(ranks) = cache.get(fts_query) {
        return Ok(ranks);
    }
    let mut read = Vec::new();
    // Ranks run from 1 to the number of areas (data/load.rs), so they fit a u32.
    each_rank(conn, fts_query, |rank| {
        read.extend(u32::try_from(rank).ok());
        true
    })?;
    let ranks: Ranks = read.into();
    if worth_keeping(ranks.len()) {
        cache.keep(fts_query, ranks.clone());
    }
    Ok(ranks)
}

/// A word as a quoted FTS5 prefix term. Words hold only letters, digits and
/// combining marks (see search_params::search_words), so quoting makes them plain text.
pub fn fts_term(word: &str) -> String {
    format!("\"{}\"*", word.replace('"', "\"\""))
}
