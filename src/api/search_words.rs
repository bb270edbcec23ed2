//! The matches of a search's words, read from the full-text index (FTS5) as
//! search ranks, best first: anywhere (name, municipality, province) and in
//! the name alone. The lists of common words are kept (search/match_cache.rs).

use std::borrow::Cow;
use std::sync::Arc;

use rusqlite::Connection;

use crate::error::ApiResult;
use crate::search::area_index::AreaIndex;
use crate::search::bitmap::{Bits, count_all, next_in_all};
use crate::search::match_cache::{MatchCache, Matches, WordBits};
use crate::search::word_store::{self, fts_term, in_name_query};

/// Search ranks of matches, best first (shared with the kept lists).
pub type Ranks = Arc<[u32]>;

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

    /// Every rank, best first.
    pub fn ranks(&self) -> Cow<'_, [u32]> {
        match &self.list {
            Some(list) if self.bits.is_empty() => Cow::Borrowed(list),
            _ => {
                let mut ranks = Vec::new();
                self.each_while(|r| {
                    ranks.push(r);
                    true
                });
                Cow::Owned(ranks)
            }
        }
    }

    /// Whether each of `ranks` (best first) is in the set: one pass along
    /// the list, where a search of it for each would cost its log.
    pub fn marks(&self, ranks: &[u32]) -> Vec<bool> {
        let mut at = 0;
        ranks
            .iter()
            .map(|&r| {
                self.in_bits(r)
                    && self.list.as_ref().is_none_or(|list| {
                        at = gallop(list, at, r);
                        list.get(at) == Some(&r)
                    })
            })
            .collect()
    }

    /// Whether the set is `other`, knowing it is a subset of it: both are
    /// lists alone, of one length.
    pub fn equals_superset(&self, other: &RankSet) -> bool {
        let len = |s: &RankSet| {
            s.list
                .as_ref()
                .filter(|_| s.bits.is_empty())
                .map(|l| l.len())
        };
        len(self).is_some() && len(self) == len(other)
    }

    /// How many ranks the set's list holds, when it has one: the most
    /// matches a walk of the set tests.
    pub fn list_len(&self) -> Option<usize> {
        self.list.as_ref().map(|l| l.len())
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
/// A dataset that stores its heavy words' matches (search/word_store.rs) is
/// read from there. Words known to be light are read together, two queries
/// in all: FTS5's own AND is cheap over short lists.
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
        // FTS5 folds case, so "North" and "north" are one query, kept once.
        let term = fts_term(&word.to_ascii_lowercase());
        if cache.is_light(&term) {
            light.push(term);
            continue;
        }
        if cache.has_stored_sets() && word.is_ascii() {
            // Every heavy prefix is stored (search/word_store.rs), and an
            // ASCII word is stored as typed: one not stored is light.
            let any = kept_or_stored(conn, index, cache, &term)?;
            let name = kept_or_stored(conn, index, cache, &in_name_query(&term))?;
            if let (Some(any), Some(name)) = (any, name) {
                anywhere.push(any.0);
                in_name.push(name.0);
            } else {
                cache.note_light(&term);
                light.push(term);
            }
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

/// The kept matches of an FTS5 query and their number.
fn kept(cache: &MatchCache, fts_query: &str) -> Option<(Matches, usize)> {
    let matches = cache.get(fts_query)?;
    let count = match &matches {
        Matches::List(ranks) => ranks.len(),
        Matches::Bits(b) => b.matches,
    };
    Some((matches, count))
}

/// The kept matches of an FTS5 query, or else its stored ones, then kept.
fn kept_or_stored(
    conn: &Connection,
    index: &AreaIndex,
    cache: &MatchCache,
    fts_query: &str,
) -> ApiResult<Option<(Matches, usize)>> {
    if let Some(found) = kept(cache, fts_query) {
        return Ok(Some(found));
    }
    let stored = word_store::read(conn, index, fts_query)?;
    if let Some((matches, _)) = &stored {
        cache.keep(fts_query, matches.clone());
    }
    Ok(stored)
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
        .filter(|&rank| {
            others.iter().zip(from.iter_mut()).all(|(list, at)| {
                *at = gallop(list, *at, rank);
                list.get(*at) == Some(&rank)
            })
        })
        .collect()
}

/// The first place from `at` in a sorted list holding `rank` or more. It
/// looks 1, 2, 4... places ahead, then searches the last step: the next
/// rank of a short list usually lies near in a long one, where a search of
/// the whole rest took a third of a full-name search at a million areas.
fn gallop(list: &[u32], at: usize, rank: u32) -> usize {
    let (mut low, mut step) = (at, 1);
    while low + step < list.len() && list[low + step] < rank {
        low += step;
        step *= 2;
    }
    let high = (low + step + 1).min(list.len());
    low + list[low..high].partition_point(|&r| r < rank)
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
    if let Some(found) = kept(cache, fts_query) {
        return Ok(found);
    }
    let read = word_store::ranks_of(conn, fts_query)?;
    let count = read.len();
    let (keep, as_bits) = keeping(count);
    let matches = word_store::kept_form(index, read, as_bits);
    if keep {
        cache.keep(fts_query, matches.clone());
    }
    Ok((matches, count))
}
