//! The full-text matches of common words, kept for the life of a dataset.
//!
//! A text search reads each word's matches, anywhere and in the name, and
//! intersects them (api/search.rs). A few words match thousands of areas:
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
//! looks at every match to tell its column. At most `CAPACITY` ranks are kept
//! in all (4 MiB); the least recently used list goes first. A reload starts
//! an empty cache with the new dataset.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// Lists shorter than this are not kept. A word with the typical 387 matches
/// at 100,000 areas took about 0.1 ms to read anywhere and again in the name,
/// as much as the rest of a filtered search; one with 40 is read in a few us.
pub const HEAVY: usize = 256;

/// Words known to be light, remembered so that a search can read them all
/// in one FTS5 query; past this many the memory starts afresh.
const LIGHT_WORDS: usize = 1 << 16;

/// Ranks kept in all, across every list (4 bytes each).
pub const CAPACITY: usize = 1 << 20;

pub struct MatchCache {
    /// How many matches make a word heavy enough to keep: `HEAVY`, lowered
    /// by tests so that the seed data exercises the kept path.
    heavy: usize,
    lists: Mutex<Lists>,
}

impl Default for MatchCache {
    fn default() -> MatchCache {
        MatchCache::new(HEAVY)
    }
}

#[derive(Default)]
struct Lists {
    by_query: HashMap<String, Kept>,
    light: HashSet<String>,
    ranks: usize,
    clock: u64,
}

struct Kept {
    ranks: Arc<[u32]>,
    last_used: u64,
}

impl MatchCache {
    /// The kept ranks of an FTS5 query, best first, if it is kept.
    pub fn get(&self, query: &str) -> Option<Arc<[u32]>> {
        let mut lists = self.lists.lock().unwrap_or_else(|p| p.into_inner());
        lists.clock += 1;
        let now = lists.clock;
        let kept = lists.by_query.get_mut(query)?;
        kept.last_used = now;
        Some(kept.ranks.clone())
    }

    pub fn new(heavy: usize) -> MatchCache {
        MatchCache {
            heavy,
            lists: Mutex::default(),
        }
    }

    /// Whether a word with this many matches is worth keeping.
    pub fn is_heavy(&self, matches: usize) -> bool {
        matches >= self.heavy
    }

    /// Keeps the complete ranks of an FTS5 query, if they fit, dropping the
    /// least recently used lists to make room.
    pub fn keep(&self, query: &str, ranks: Arc<[u32]>) {
        if ranks.len() > CAPACITY {
            return;
        }
        let mut lists = self.lists.lock().unwrap_or_else(|p| p.into_inner());
        if lists.by_query.contains_key(query) {
            return;
        }
        while lists.ranks + ranks.len() > CAPACITY {
            let Some(oldest) = lists
                .by_query
                .iter()
                .min_by_key(|(_, k)| k.last_used)
                .map(|(q, _)| q.clone())
            else {
                break;
            };
            if let Some(k) = lists.by_query.remove(&oldest) {
                lists.ranks -= k.ranks.len();
            }
        }
        lists.clock += 1;
        lists.ranks += ranks.len();
        let kept = Kept {
            ranks,
            last_used: lists.clock,
        };
        lists.by_query.insert(query.to_string(), kept);
    }

    /// Whether an FTS5 query is known to match fewer than the heavy count.
    pub fn is_light(&self, query: &str) -> bool {
        let lists = self.lists.lock().unwrap_or_else(|p| p.into_inner());
        lists.light.contains(query)
    }

    /// Remembers that an FTS5 query matches fewer than the heavy count.
    pub fn note_light(&self, query: &str) {
        let mut lists = self.lists.lock().unwrap_or_else(|p| p.into_inner());
        if lists.light.len() >= LIGHT_WORDS {
            lists.light.clear();
        }
        lists.light.insert(query.to_string());
    }

    /// Ranks kept in all (for tests and the bench's account of memory).
    pub fn kept_ranks(&self) -> usize {
        self.lists.lock().unwrap_or_else(|p| p.into_inner()).ranks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(n: usize) -> Arc<[u32]> {
        (1..=n as u32).collect()
    }

    #[test]
    fn stays_within_capacity_dropping_the_least_recently_used() {
        let cache = MatchCache::default();
        let quarter = CAPACITY / 4;
        for q in ["a", "b", "c", "d"] {
            cache.keep(q, list(quarter));
        }
        assert!(cache.get("a").is_some()); // "b" is the least recently used
        cache.keep("e", list(quarter));
        assert!(cache.get("b").is_none());
        for q in ["a", "c", "d", "e"] {
            assert!(cache.get(q).is_some(), "{q}");
        }
        assert_eq!(cache.kept_ranks(), CAPACITY);
        cache.keep("huge", list(CAPACITY + 1));
        assert!(cache.get("huge").is_none());
        assert_eq!(cache.kept_ranks(), CAPACITY);
    }
}
