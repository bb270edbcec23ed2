//! The matches of a search's words, read from the full-text index (FTS5) as
//! search ranks, best first: anywhere (name, municipality, province) and in
//! the name alone. The lists of common words are kept (search/match_cache.rs).

use std::sync::Arc;

use rusqlite::Connection;

use crate::error::ApiResult;
use crate::search::area_index::AreaIndex;
use crate::search::bitmap::{Bits, count_all, next_in_all};
use crate::search::match_cache::{MatchCache, Matches, WordBits};

/// Search ranks of matches, best first (shared with the kept lists).
pub type Ranks = Arc<[u32]>;

/// Full-text matches, best first: the index's rowid is the search rank
/// (shorter names first, ties by area_no; schema.sql search_rank), so FTS5
/// yields them in relevance order.
const MATCHING: &str = "SELECT rowid FROM areas_fts WHERE areas_fts MATCH ?1 ORDER BY rowid";

/// What a search's words match, anywhere (name, municipality, province)
/// and in the name alone.
pub struct WordSets {
    pub anywhere: RankSet,
    pub in_name: RankSet,
}

/// The ranks every word matches, readable best first: the intersection of
/// the words kept as lists, narrowed by the rank bitmaps of the words kept
/// as bitmaps (search/match_cache.rs).
pub struct RankSet {
    /// None when every word has bitmaps.
    list: Option<Ranks>,
    bits: Vec<Arc<WordBits>>,
    /// One past the highest rank.
    end: usize,
}

impl RankSet {
    fn new(matches: Vec<Matches>, areas: usize) -> RankSet {
        let (mut lists, mut bits) = (Vec::new(), Vec::new());
        for m in matches {
            match m {
                Matches::List(ranks) => lists.push(ranks),
                Matches::Bits(b) => bits.push(b),
            }
        }
        RankSet {
            list: (!lists.is_empty()).then(|| intersection(lists)),
            bits,
            end: areas + 1,
        }
    }

    /// Calls `each` on every rank best first while it says go on.
    pub fn each_while(&self, mut each: impl FnMut(u32) -> bool) {
        match &self.list {
            Some(list) => {
                for &r in list.iter() {
                    if self.in_bits(r) && !each(r) {
                        return;
                    }
                }
            }
            None => {
                let sets: Vec<&Bits> = self.bits.iter().map(|b| &b.by_rank).collect();
                let mut from = 0;
                while let Some(r) = next_in_all(&sets, from, self.end) {
                    if !each(r as u32) {
                        return;
                    }
                    from = r + 1;
                }
            }
        }
    }

    fn in_bits(&self, rank: u32) -> bool {
        self.bits.iter().all(|b| b.by_rank.get(rank as usize))
    }

    pub fn contains(&self, rank: u32) -> bool {
        self.in_bits(rank)
            && self
                .list
                .as_ref()
                .is_none_or(|l| l.binary_search(&rank).is_ok())
    }

    /// How many ranks there are.
    pub fn count(&self) -> usize {
        match &self.list {
            Some(list) => list.iter().filter(|&&r| self.in_bits(r)).count(),
            None => {
                let sets: Vec<&Bits> = self.bits.iter().map(|b| &b.by_rank).collect();
                count_all(&sets, 0, self.end)
            }
        }
    }

    /// The bitmaps whose AND is the set, when every word has them.
    pub fn word_bits(&self) -> Option<Vec<&WordBits>> {
        self.list
            .is_none()
            .then(|| self.bits.iter().map(|b| b.as_ref()).collect())
    }
}

/// The matches of a search's words (see `WordSets`).
///
/// Each word's matches are read on their own, anywhere and in the name, and
/// intersected here: the matches of common words ("west", "central", "6") are
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
        let (any, count) = all_matches(conn, index, cache, &term, |n| {
            (cache.is_heavy(n), cache.wants_bits(n, areas))
        })?;
        // Reading where a word is in the name costs as much as reading all
        // its matches (FTS5 looks at each to tell the column), so the name
        // list of a heavy word is kept however short it is.
        let heavy = cache.is_heavy(count);
        if !heavy {
            cache.note_light(&term);
        }
        let name = all_matches(conn, index, cache, &in_name_query(&term), |n| {
            (heavy, heavy && cache.wants_bits(n, areas))
        })?;
        in_name.push(name.0);
        anywhere.push(any);
    }
    if !light.is_empty() {
        let together = light.join(" ");
        let never = |_| (false, false);
        anywhere.push(all_matches(conn, index, cache, &together, never)?.0);
        in_name.push(all_matches(conn, index, cache, &in_name_query(&together), never)?.0);
    }
    Ok(WordSets {
        anywhere: RankSet::new(anywhere, areas),
        in_name: RankSet::new(in_name, areas),
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

/// Every match, and how many: the kept matches (search/match_cache.rs), or
/// else read from FTS5 and kept when `keeping` says so of their number (as
/// bitmaps when it says that too).
pub fn all_matches(
    conn: &Connection,
    index: &AreaIndex,
    cache: &MatchCache,
    fts_query: &str,
    keeping: impl Fn(usize) -> (bool, bool),
) -> ApiResult<(Matches, usize)> {
    if let Some(matches) = cache.get(fts_query) {
        let count = match &matches {
            Matches::List(ranks) => ranks.len(),
            Matches::Bits(b) => count_all(&[&b.by_rank], 0, index.area_count() + 1),
        };
        return Ok((matches, count));
    }
    let mut read = Vec::new();
    // Ranks run from 1 to the number of areas (data/load.rs), so they fit a u32.
    each_rank(conn, fts_query, |rank| {
        read.extend(u32::try_from(rank).ok());
        true
    })?;
    let count = read.len();
    let (keep, as_bits) = keeping(count);
    let matches = if as_bits {
        let mut by_rank = Bits::new(index.area_count() + 1);
        read.iter().for_each(|&r| by_rank.set(r as usize));
        let by_position = index.bits_of_ranks(&read);
        Matches::Bits(Arc::new(WordBits {
            by_rank,
            by_score: index.in_score_order(&by_position),
            by_position,
        }))
    } else {
        Matches::List(read.into())
    };
    if keep {
        cache.keep(fts_query, matches.clone());
    }
    Ok((matches, count))
}

/// A word as a quoted FTS5 prefix term. Words hold only letters, digits and
/// combining marks (see search_params::search_words), so quoting makes them plain text.
pub fn fts_term(word: &str) -> String {
    format!("\"{}\"*", word.replace('"', "\"\""))
}
