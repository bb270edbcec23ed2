//! A set of search ranks that every word of a search matches
//! (search/matches/word_sets.rs): the intersection of the words kept as lists,
//! narrowed by the bitmaps of the words kept as bitmaps
//! (search/matches/match_cache.rs), read best first, counted, or tested rank by rank.

use std::borrow::Cow;
use std::sync::Arc;

use crate::search::index::bitmap::{Bits, count_all, next_in_all};
use crate::search::matches::match_cache::{Matches, WordBits};
use crate::search::matches::seek::Seek;

/// Search ranks of matches, best first (shared with the kept lists).
pub type Ranks = Arc<[u32]>;

/// The ranks every word matches, readable best first: the intersection of
/// the words kept as lists, narrowed by the rank bitmaps of the words kept
/// as bitmaps (search/matches/match_cache.rs).
pub struct RankSet {
    /// None when every word has bitmaps.
    list: Option<Ranks>,
    bits: Vec<Arc<WordBits>>,
    /// One past the highest rank.
    end: usize,
}

impl RankSet {
    pub fn new(matches: Vec<Matches>, areas: usize) -> RankSet {
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
        let mut seek = self.list.as_ref().map(|l| Seek::new(l, ranks.len()));
        ranks
            .iter()
            .map(|&r| self.in_bits(r) && seek.as_mut().is_none_or(|s| s.holds(r)))
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

/// The ranks in every list, best first. Each list is sorted, so the shortest
/// is walked and the others sought, each from where the last search ended.
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
    let mut seeks: Vec<Seek> = others
        .iter()
        .map(|l| Seek::new(l, shortest.len()))
        .collect();
    shortest
        .iter()
        .copied()
        .filter(|&rank| seeks.iter_mut().all(|s| s.holds(rank)))
        .collect()
}
