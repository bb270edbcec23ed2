//! The full-text matches of common words, kept for the life of a dataset.
//!
//! A text search reads each word's matches, anywhere and in the name, and
//! intersects them (search/query/by_text.rs). A few words match thousands of areas:
//! at 100,000 areas "west" 36,575, "Western" (Western Cape) 14,387,
//! "central" 13,053. Read from FTS5 one row at a time, such a word cost
//! 1.3-4.6 ms a request where a typical one (387 matches) cost 0.12 ms, and
//! those requests made the p99 of the text searches (bench/PROFILE.md). A
//! word's matches never change while a dataset is served, so the lists of
//! heavy words are kept here; each request still intersects, filters, counts
//! and pages them itself.
//!
//! Kept are the complete lists of words with at least `HEAVY` matches
//! (lighter ones are cheap to read again): where they match anywhere and
//! where they match in the name, which costs as much to read because FTS5
//! looks at every match to tell its column. A word matching at least one
//! area in `BITMAP_SHARE` is kept as three bitmaps instead (search/index/bitmap.rs), of
//! a fixed size whatever its matches: one by search rank, which read in
//! order is the list; one by position in the grid, so that a search with a
//! circle or a viewport counts its matches a machine word at a time; and one
//! in score order, for a score floor alone. At a million areas
//! "municipality" matches 930,000: 3.7 MB as a list, 375 KB as bitmaps. Lists and bitmaps have budgets of their own
//! (`LIST_CAPACITY`, `BITS_CAPACITY`); within each the least recently used
//! goes first. Apart, because a bitmap's word costs a hundred times more to
//! read again than a list's: in one budget, the thousand base names of a
//! million areas' full-name searches pushed the common words out, and each
//! of those searches read 100,000 matches again. A reload starts an empty
//! cache with the new dataset.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::search::index::bitmap::Bits;

/// Lists shorter than this are not kept. A word with the typical 387 matches
/// at 100,000 areas took about 0.1 ms to read anywhere and again in the name,
/// as much as the rest of a filtered search; one with 40 is read in a few us.
pub const HEAVY: usize = 256;

/// With many areas, a word is heavy from one match in this many areas: at a
/// million, 3,906. Lighter words cost at most about 1 ms to read again, and
/// keeping the thousand base names of a million areas' full names (each
/// about 1,000 matches) pushed out one another and the common words alike,
/// so that each was read again anyway. A dataset that stores its words'
/// matches (word_store/) keeps what it reads from there whatever its
/// size: read again, a pushed-out word costs microseconds, not FTS5's walk.
pub const HEAVY_SHARE: usize = 256;

/// Words known to be light, remembered so that a search can read them all
/// in one FTS5 query, and the stored sets of queries; past this many of
/// either the memory starts afresh.
const LIGHT_WORDS: usize = 1 << 16;

/// Bytes of lists kept (4 a rank).
pub const LIST_CAPACITY: usize = 8 << 20;

/// Bytes of bitmaps kept (three an eighth of a byte an area): 32 common
/// words at a million areas. Both budgets together keep the serving RSS
/// within its budget at a million areas (bench/RESULTS.md).
pub const BITS_CAPACITY: usize = 12 << 20;

/// A word matching at least one area in this many is kept as bitmaps: its
/// three bitmaps then cost at most 3 times what its list would, and a
/// search with a circle or a viewport counts it over the grid instead of
/// testing each match (at a million areas, "ekurhuleni" in a 50 km circle:
/// 57,000 matches tested one by one).
pub const BITMAP_SHARE: usize = 32;

pub struct MatchCache {
    /// How many matches make a word heavy enough to keep: `HEAVY`, lowered
    /// by tests so that the seed data exercises the kept path.
    heavy: usize,
    /// Whether the dataset stores its heavy words' matches (word_store/),
    /// so that a word not kept is read from there, and one not stored is light.
    stored: bool,
    /// Whether a read that took `SLOW_READ` is kept however few its matches.
    slow_reads: bool,
    lists: Mutex<Lists>,
}

/// A read from FTS5 that took this long is kept, however few its matches:
/// in a file without joined words (joined_words.rs), a split word is read as
/// a phrase of a rare word and a common one ("ivory park"), which matches a
/// few areas, but FTS5 steps through the common word's whole list to find
/// them (bench/PROFILE.md), and the same split recurs.
pub const SLOW_READ: Duration = Duration::from_micros(200);

#[derive(Default)]
struct Lists {
    by_query: HashMap<String, Kept>,
    light: HashSet<String>,
    /// The stored set of each query found stored (word_store/): queries
    /// sharing a set share its kept matches, under the set's key.
    sets: HashMap<String, i64>,
    /// Bytes kept, lists then bitmaps.
    bytes: [usize; 2],
    clock: u64,
}

/// A word's matches: the list of their ranks best first, or for a common
/// word two bitmaps, by rank (read in rank order, it is the list) and by
/// position in the grid (counted over a shape's cells).
#[derive(Clone)]
pub enum Matches {
    List(Arc<[u32]>),
    Bits(Arc<WordBits>),
}

pub struct WordBits {
    /// How many areas match: the bits set in each bitmap.
    pub matches: usize,
    pub by_rank: Bits,
    pub by_position: Bits,
    /// By place in score order (search/index/score_order.rs), for a score floor alone.
    pub by_score: Bits,
}

impl Matches {
    /// Lists 0, bitmaps 1: the budget it counts towards.
    fn class(&self) -> usize {
        usize::from(matches!(self, Matches::Bits(_)))
    }

    fn bytes(&self) -> usize {
        match self {
            Matches::List(ranks) => ranks.len() * 4,
            Matches::Bits(b) => b.by_rank.bytes() + b.by_position.bytes() + b.by_score.bytes(),
        }
    }
}

struct Kept {
    matches: Matches,
    last_used: u64,
}

/// A full budget is brought down by 1/ROOM_MADE of it at once, the least
/// recently used first: one pass over the thousands of kept lists of a
/// million areas makes room for many, not for one.
const ROOM_MADE: usize = 16;

impl Lists {
    /// Drops the least recently used matches of a class until its bytes
    /// are at most `bytes`.
    fn drop_oldest(&mut self, class: usize, bytes: usize) {
        let mut by_age: Vec<(u64, &String)> = self
            .by_query
            .iter()
            .filter(|(_, k)| k.matches.class() == class)
            .map(|(q, k)| (k.last_used, q))
            .collect();
        by_age.sort_unstable();
        let (mut left, mut dropped) = (self.bytes[class], Vec::new());
        for (_, query) in by_age {
            if left <= bytes {
                break;
            }
            left -= self.by_query[query].matches.bytes();
            dropped.push(query.clone());
        }
        for query in dropped {
            self.by_query.remove(&query);
        }
        self.bytes[class] = left;
    }
}

impl MatchCache {
    /// The kept matches of an FTS5 query, if it is kept.
    pub fn get(&self, query: &str) -> Option<Matches> {
        let mut lists = self.lists();
        lists.clock += 1;
        let now = lists.clock;
        let kept = lists.by_query.get_mut(query)?;
        kept.last_used = now;
        Some(kept.matches.clone())
    }

    /// The cache of a dataset of `areas` areas.
    pub fn for_areas(areas: usize) -> MatchCache {
        MatchCache::new(HEAVY.max(areas / HEAVY_SHARE))
    }

    pub fn new(heavy: usize) -> MatchCache {
        MatchCache {
            heavy,
            stored: false,
            slow_reads: true,
            lists: Mutex::default(),
        }
    }

    /// A cache that keeps nothing (tests: every list read from FTS5).
    pub fn keeping_nothing() -> MatchCache {
        MatchCache {
            slow_reads: false,
            ..MatchCache::new(usize::MAX)
        }
    }

    /// Whether a read of `matches` that took `took` is worth keeping.
    pub fn worth_keeping(&self, matches: usize, took: Duration) -> bool {
        self.is_heavy(matches) || (self.slow_reads && took >= SLOW_READ)
    }

    /// The cache of a dataset that stores its heavy words' matches, or not.
    pub fn with_stored_sets(self, stored: bool) -> MatchCache {
        MatchCache { stored, ..self }
    }

    pub fn has_stored_sets(&self) -> bool {
        self.stored
    }

    /// Whether a word with this many matches is worth keeping.
    pub fn is_heavy(&self, matches: usize) -> bool {
        matches >= self.heavy
    }

    /// Whether a kept list of this many matches among `areas` is kept as bitmaps.
    pub fn wants_bits(&self, matches: usize, areas: usize) -> bool {
        self.is_heavy(matches) && matches.saturating_mul(BITMAP_SHARE) >= areas
    }

    /// Keeps the complete matches of an FTS5 query, if they fit, dropping
    /// the least recently used lists to make room.
    pub fn keep(&self, query: &str, matches: Matches) {
        let (size, class) = (matches.bytes(), matches.class());
        let capacity = [LIST_CAPACITY, BITS_CAPACITY][class];
        if size > capacity {
            return;
        }
        let mut lists = self.lists();
        if lists.by_query.contains_key(query) {
            return;
        }
        if lists.bytes[class] + size > capacity {
            lists.drop_oldest(
                class,
                (capacity - capacity / ROOM_MADE).saturating_sub(size),
            );
        }
        lists.clock += 1;
        lists.bytes[class] += size;
        let kept = Kept {
            matches,
            last_used: lists.clock,
        };
        lists.by_query.insert(query.to_string(), kept);
    }

    /// Whether an FTS5 query is known to match fewer than the heavy count.
    pub fn is_light(&self, query: &str) -> bool {
        let lists = self.lists();
        lists.light.contains(query)
    }

    /// Remembers that an FTS5 query matches fewer than the heavy count.
    pub fn note_light(&self, query: &str) {
        let mut lists = self.lists();
        if lists.light.len() >= LIGHT_WORDS {
            lists.light.clear();
        }
        lists.light.insert(query.to_string());
    }

    /// The stored set of an FTS5 query, if noted.
    pub fn set_of(&self, query: &str) -> Option<i64> {
        let lists = self.lists();
        lists.sets.get(query).copied()
    }

    /// Remembers the stored set of an FTS5 query, as `note_light` does.
    pub fn note_set(&self, query: &str, set_no: i64) {
        let mut lists = self.lists();
        if lists.sets.len() >= LIGHT_WORDS {
            lists.sets.clear();
        }
        lists.sets.insert(query.to_string(), set_no);
    }

    /// Bytes kept in all (for tests and the bench's account of memory).
    pub fn kept_bytes(&self) -> usize {
        self.lists().bytes.iter().sum()
    }

    /// The kept lists, locked; after a panic elsewhere, as that left them.
    fn lists(&self) -> MutexGuard<'_, Lists> {
        self.lists.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
#[path = "match_cache_tests.rs"]
mod tests;
