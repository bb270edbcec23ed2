//! A query word's typo automaton: levenshtein_automata's DFA of the
//! optimal string alignment distance (insertions, deletions, substitutions,
//! and a swap of two neighbouring letters, each one edit) within a bound,
//! stepped a byte at a time along the vocabulary's trie (typo_walk.rs) or
//! along one word, to explain a match (search/query/explain.rs).
//!
//! Edits are counted in bytes, as the walk and the reference forgiving
//! search count them: the query's bytes are given to the crate as the
//! characters U+0000 to U+00FF, and a word's byte from 0x80 is stepped as
//! that character's two UTF-8 bytes. A prefix's distance (the last word,
//! which may still be being typed) is the least along the word: the crate's
//! own prefix automaton loses a prefix at the bound once the word goes on.
//! Each state also knows the fewest edits any longer word can still reach
//! from it, so that a walk leaves a subtree that holds nothing it wants.

use std::sync::OnceLock;

use levenshtein_automata::{DFA, Distance, LevenshteinAutomatonBuilder};

/// The most edits an automaton tells apart: two typos (api/contract.rs).
pub const MOST: u8 = 2;

/// No number of edits within the bound.
const NONE: u8 = u8::MAX;

/// A state of a query word's automaton: where a prefix of a word leaves it.
pub type State = u32;

/// The typo automaton of one query word within a bound.
pub struct Typos {
    dfa: DFA,
    /// For each state, the fewest edits of any word through it, or `NONE`.
    least: Vec<u8>,
}

/// The crate's builders for 0 to `MOST` edits, with transpositions: each
/// costs a few milliseconds to make, so they are made once.
fn builder(most: u8) -> &'static LevenshteinAutomatonBuilder {
    static BUILDERS: OnceLock<Vec<LevenshteinAutomatonBuilder>> = OnceLock::new();
    let builders = BUILDERS.get_or_init(|| {
        (0..=MOST)
            .map(|d| LevenshteinAutomatonBuilder::new(d, true))
            .collect()
    });
    &builders[usize::from(most.min(MOST))]
}

impl Typos {
    /// The automaton of `query` within `most` edits (at most `MOST`).
    pub fn new(query: &[u8], most: u8) -> Typos {
        let chars: String = query.iter().map(|&b| char::from(b)).collect();
        let mut typos = Typos {
            dfa: builder(most).build_dfa(&chars),
            least: Vec::new(),
        };
        typos.least = typos.least_reachable(query);
        typos
    }

    /// The state of the empty prefix.
    pub fn start(&self) -> State {
        self.dfa.initial_state()
    }

    /// The state of a prefix one byte longer.
    pub fn step(&self, state: State, byte: u8) -> State {
        if byte < 0x80 {
            self.dfa.transition(state, byte)
        } else {
            let lead = self.dfa.transition(state, 0xC0 | (byte >> 6));
            self.dfa.transition(lead, 0x80 | (byte & 0x3F))
        }
    }

    /// The edits between the whole query and the prefix, if within the bound.
    pub fn edits(&self, state: State) -> Option<u8> {
        match self.dfa.distance(state) {
            Distance::Exact(d) => Some(d),
            Distance::AtLeast(_) => None,
        }
    }

    /// The fewest edits between the query and any word through the state
    /// (the prefix itself included), if within the bound.
    pub fn least(&self, state: State) -> Option<u8> {
        Some(self.least[state as usize]).filter(|&l| l != NONE)
    }

    /// The edits between the query and `word`, or with `prefix` between it
    /// and the nearest prefix of `word`, if at most `most`; stopped as soon
    /// as no longer prefix of `word` can come within it.
    pub fn edits_within(&self, word: &[u8], prefix: bool, most: u8) -> Option<u8> {
        let within = |edits: Option<u8>| edits.filter(|&e| e <= most);
        let mut state = self.start();
        let mut best = if prefix {
            within(self.edits(state))
        } else {
            None
        };
        for &b in word {
            state = self.step(state, b);
            if self.least(state).is_none_or(|least| least > most) {
                return best;
            }
            if prefix && let Some(e) = within(self.edits(state)) {
                best = Some(best.map_or(e, |b| b.min(e)));
            }
        }
        if prefix {
            best
        } else {
            within(self.edits(state))
        }
    }

    /// `least` for every state: each state's own edits, lowered to the
    /// least of the states it steps to until nothing changes. A byte not in
    /// the query stands for all of them, which step alike.
    fn least_reachable(&self, query: &[u8]) -> Vec<u8> {
        let mut bytes = query.to_vec();
        bytes.sort_unstable();
        bytes.dedup();
        bytes.extend((0..=u8::MAX).find(|b| !query.contains(b)));
        let states = self.dfa.num_states() as State;
        let mut least: Vec<u8> = (0..states).map(|s| self.edits(s).unwrap_or(NONE)).collect();
        let mut changed = true;
        while changed {
            changed = false;
            // States are numbered as first reached, so most steps lead to
            // a later one: going backwards settles most in one pass.
            for s in (0..states).rev() {
                for &b in &bytes {
                    let next = least[self.step(s, b) as usize];
                    if next < least[s as usize] {
                        least[s as usize] = next;
                        changed = true;
                    }
                }
            }
        }
        least
    }
}
