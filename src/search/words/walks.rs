//! What a typo walk (typo_walk.rs) answers: the vocabulary's words near a
//! query word, compared whole or as a prefix; and the walks kept per
//! vocabulary, which the vocabulary holds (vocabulary.rs, `walks`) so that
//! they last as long as its words, without knowing how a walk is made.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How a query word is compared with the vocabulary's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// The whole word within the bound.
    Whole,
    /// Some prefix of the word within the bound.
    Prefix,
}

/// A vocabulary word, or with `prefix` every word that starts with `text`,
/// within `edits` of the query word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Near {
    pub text: String,
    pub prefix: bool,
    pub edits: u8,
    /// Where the words occur (vocabulary.rs, `IN_AREAS`, `IN_OTHER_NAMES`).
    pub kinds: u8,
}

/// How many walks each generation of the kept walks holds: the words people
/// type recur ("north", "extension", a town's name), and a walk over a
/// quarter of a million words costs more than the rest of a search.
const WALKS_KEPT: usize = 4096;

/// The walks already made over one vocabulary, by query word, bound and
/// mode, in two generations: a full one becomes the old one, and a walk
/// found in the old one moves to the new, so words in use stay while a
/// stream of one-off typos passes through. At most twice `WALKS_KEPT`.
#[derive(Debug, Default)]
pub struct Walks(Mutex<Generations>);

type WalkKey = (Vec<u8>, u8, Mode);

#[derive(Debug, Default)]
struct Generations {
    now: HashMap<WalkKey, Arc<[Near]>>,
    old: HashMap<WalkKey, Arc<[Near]>>,
}

impl Generations {
    fn keep(&mut self, key: WalkKey, walk: Arc<[Near]>) {
        if self.now.len() >= WALKS_KEPT {
            self.old = std::mem::take(&mut self.now);
        }
        self.now.insert(key, walk);
    }
}

impl Walks {
    /// The walk kept for a query word, bound and mode, or the one `make`
    /// makes, then kept.
    pub fn kept_or(
        &self,
        (query, most, mode): (&[u8], u8, Mode),
        make: impl FnOnce() -> Vec<Near>,
    ) -> Arc<[Near]> {
        let key = (query.to_vec(), most, mode);
        let lock = || self.0.lock().unwrap_or_else(|p| p.into_inner());
        {
            let mut kept = lock();
            if let Some(found) = kept.now.get(&key) {
                return found.clone();
            }
            if let Some(found) = kept.old.remove(&key) {
                kept.keep(key, found.clone());
                return found;
            }
        }
        let made: Arc<[Near]> = make().into();
        lock().keep(key, made.clone());
        made
    }
}
