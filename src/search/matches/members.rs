//! A set of search ranks as forgiving search reads a word's matches
//! (search/query/forgiving_read.rs): short lists merged into one, long lists
//! and bitmaps kept as the match cache holds them (search/matches/match_cache.rs).

use crate::search::index::bitmap::each_in_all;
use crate::search::matches::match_cache::Matches;
use crate::search::matches::seek::Seek;

/// A list of at most this many ranks is merged into a `Members`' own list;
/// a longer one is kept as it is, shared with the match cache, rather than
/// copied on every search.
const MERGED_AT_MOST: usize = 4096;

/// A set of search ranks: the short lists merged, the long lists and the
/// bitmaps kept as read.
#[derive(Default)]
pub struct Members {
    /// Sorted, each rank once.
    list: Vec<u32>,
    parts: Vec<Matches>,
}

impl Members {
    pub fn contains(&self, rank: u32) -> bool {
        self.list.binary_search(&rank).is_ok() || self.parts.iter().any(|m| holds(m, rank))
    }

    pub fn add(&mut self, m: Matches) {
        match m {
            Matches::List(ranks) if ranks.len() <= MERGED_AT_MOST => {
                self.list.extend_from_slice(&ranks)
            }
            long => self.parts.push(long),
        }
    }

    pub fn add_ranks(&mut self, ranks: &[u32]) {
        self.list.extend_from_slice(ranks);
    }

    pub fn finish(&mut self) {
        self.list.sort_unstable();
        self.list.dedup();
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && self.parts.is_empty()
    }

    /// How many members, counting one in two parts twice (a bound).
    pub fn len(&self) -> usize {
        self.list.len() + self.parts.iter().map(matches_len).sum::<usize>()
    }

    /// Calls `each` with the place in `ranks` (sorted, each once) of every
    /// one that is a member, once or (in two parts) more.
    pub fn each_among(&self, ranks: &[u32], mut each: impl FnMut(usize)) {
        each_common(ranks, &self.list, &mut each);
        for m in &self.parts {
            each_among(m, ranks, &mut each);
        }
    }

    /// Calls `each` on every member, once or (in two parts) more.
    pub fn each(&self, mut each: impl FnMut(u32)) {
        self.list.iter().for_each(|&r| each(r));
        for m in &self.parts {
            each_match(m, &mut each);
        }
    }
}

/// How many areas kept matches hold.
pub fn matches_len(m: &Matches) -> usize {
    match m {
        Matches::List(ranks) => ranks.len(),
        Matches::Bits(b) => b.matches,
    }
}

/// Calls `each` on every rank kept matches hold, in order.
pub fn each_match(m: &Matches, mut each: impl FnMut(u32)) {
    match m {
        Matches::List(ranks) => ranks.iter().for_each(|&r| each(r)),
        Matches::Bits(b) => {
            let end = b.by_rank.bytes() * 8;
            each_in_all(&[&b.by_rank], 0, end, |r| each(r as u32));
        }
    }
}

/// Whether kept matches hold a rank.
pub fn holds(m: &Matches, rank: u32) -> bool {
    match m {
        Matches::List(ranks) => ranks.binary_search(&rank).is_ok(),
        Matches::Bits(b) => b.by_rank.get(rank as usize),
    }
}

/// Calls `each` with the place in `ranks` (sorted, each once) of every one
/// that kept matches hold.
pub fn each_among(m: &Matches, ranks: &[u32], mut each: impl FnMut(usize)) {
    match m {
        Matches::List(list) => each_common(ranks, list, each),
        Matches::Bits(b) => {
            for (k, &r) in ranks.iter().enumerate() {
                if b.by_rank.get(r as usize) {
                    each(k);
                }
            }
        }
    }
}

/// Calls `each` with the place in `a` of every rank `b` holds too (both
/// sorted, each once). The shorter is walked and the longer sought
/// (seek.rs), so a short list against a long one costs a few nearby probes
/// a rank, not a search of the whole.
pub fn each_common(a: &[u32], b: &[u32], mut each: impl FnMut(usize)) {
    let a_walked = a.len() <= b.len();
    let (walked, sought) = if a_walked { (a, b) } else { (b, a) };
    let mut seek = Seek::new(sought, walked.len());
    for (i, &r) in walked.iter().enumerate() {
        if seek.holds(r) {
            each(if a_walked { i } else { seek.at() });
        }
    }
}
