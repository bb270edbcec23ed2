//! The words of the vocabulary within a few edits of a query word: the query
//! word's typo automaton (typo_automaton.rs) walked over the sorted vocabulary
//! (search/words/vocabulary.rs), read as a trie whose nodes are runs of words
//! sharing a prefix.
//!
//! The distance is the optimal string alignment distance: insertions,
//! deletions, substitutions, and a swap of two neighbouring letters, each one
//! edit (Damerau's transposition). Each node carries the automaton's state at
//! its prefix, so a prefix shared by thousands of words is stepped once, and
//! a subtree no word of which is within the bound is never entered.
//!
//! Two modes (docs/api.md, "Search Areas"): a whole word (every query word but
//! the last) must be within the bound as a whole; the last word, which may
//! still be being typed, matches every word that has a prefix within the bound.

use std::ops::Range;
use std::sync::Arc;

use crate::search::words::typo_automaton::{MOST, State, Typos};
use crate::search::words::vocabulary::Vocabulary;
pub use crate::search::words::walks::{Mode, Near};

/// Every term within `most` edits of `query`, other than the query itself
/// and the words it is a prefix of (those match without a typo). In
/// `Prefix` mode a term covers a whole subtree at the edits of its root;
/// a deeper prefix nearer to the query is given as a term of its own, so
/// that each word's fewest edits are among the terms that cover it.
pub fn near(v: &Vocabulary, query: &[u8], most: u8, mode: Mode) -> Vec<Near> {
    let most = most.min(MOST);
    let typos = Typos::new(query, most);
    let mut walk = Walk {
        v,
        query,
        typos,
        most,
        mode,
        path: Vec::new(),
        out: Vec::new(),
    };
    let start = walk.typos.start();
    walk.children(0..v.len(), start, u8::MAX);
    walk.out
}

/// `near`, made once per query word, bound and mode and kept by the
/// vocabulary (walks.rs).
pub fn near_kept(v: &Vocabulary, query: &[u8], most: u8, mode: Mode) -> Arc<[Near]> {
    v.walks
        .kept_or((query, most, mode), || near(v, query, most, mode))
}

struct Walk<'a> {
    v: &'a Vocabulary,
    query: &'a [u8],
    typos: Typos,
    most: u8,
    mode: Mode,
    /// The prefix of the node being visited.
    path: Vec<u8>,
    out: Vec<Near>,
}

/// What every child of one node starts from.
struct Step {
    /// The automaton's state at the node's prefix.
    state: State,
    covered: u8,
    inherit: Option<u8>,
}

impl Walk<'_> {
    /// Visits the children of the node whose words are `range`, whose prefix
    /// is `path`, and whose automaton state is `state`. `covered` is the
    /// fewest edits a prefix term above already gave this subtree.
    fn children(&mut self, range: Range<usize>, state: State, covered: u8) {
        self.children_inheriting(range, state, covered, None);
    }

    /// `children`; with `inherit`, a prefix within the bound on the query's
    /// own path: every child off that path is a prefix term at those edits
    /// (its words have this node's prefix), and the child on it is walked on.
    fn children_inheriting(
        &mut self,
        range: Range<usize>,
        state: State,
        covered: u8,
        inherit: Option<u8>,
    ) {
        let depth = self.path.len();
        let step = Step {
            state,
            covered,
            inherit,
        };
        if let Some(runs) = self.v.runs_at(range.clone(), depth) {
            for run in runs {
                // The word that is the prefix itself has no child.
                if self.v.word(run.start).len() > depth {
                    self.child(run, &step);
                }
            }
            return;
        }
        let mut i = range.start;
        if i < range.end && self.v.word(i).len() == depth {
            i += 1;
        }
        while i < range.end {
            // The words share the prefix, so a child's run is found by the
            // next letter alone.
            let c = self.v.word(i)[depth];
            let end = i + self.v.run_of_letter(i..range.end, depth, c);
            self.child(i..end, &step);
            i = end;
        }
    }

    /// Visits the child whose words are `run`.
    fn child(&mut self, run: Range<usize>, step: &Step) {
        let c = self.v.word(run.start)[self.path.len()];
        self.path.push(c);
        let mut covered = step.covered;
        let on_path = self.query.get(self.path.len() - 1) == Some(&c);
        if let (Some(edits), false) = (step.inherit, on_path)
            && std::str::from_utf8(&self.path).is_ok()
        {
            self.emit(&run, true, edits);
            covered = edits;
        }
        let next = self.typos.step(step.state, c);
        self.visit(run, next, covered);
        self.path.pop();
    }

    fn visit(&mut self, range: Range<usize>, state: State, covered: u8) {
        // No word of the subtree is nearer than the automaton's least here.
        match self.typos.least(state) {
            Some(least) if least <= self.most && least < covered => {}
            _ => return,
        }
        if self.path.as_slice() == self.query {
            return; // the query's own words match without a typo
        }
        let edits = self.typos.edits(state).unwrap_or(u8::MAX);
        let ends_here = self.v.word(range.start).len() == self.path.len();
        // A prefix term must be whole characters: the full-text index's terms are text.
        if !(edits <= self.most && edits < covered && std::str::from_utf8(&self.path).is_ok()) {
            return self.children(range, state, covered);
        }
        match self.mode {
            // On the query's own path, the subtree holds the query's words,
            // which match without a typo: this node's word and the children
            // off the path are terms, and the walk goes on along it.
            Mode::Prefix if self.query.starts_with(&self.path) => {
                if ends_here {
                    self.emit(&(range.start..range.start + 1), false, edits);
                }
                self.children_inheriting(range, state, covered, Some(edits));
            }
            Mode::Prefix => {
                self.emit(&range, true, edits);
                self.children(range, state, edits);
            }
            Mode::Whole => {
                if ends_here {
                    self.emit(&(range.start..range.start + 1), false, edits);
                }
                self.children(range, state, covered);
            }
        }
    }

    fn emit(&mut self, range: &Range<usize>, prefix: bool, edits: u8) {
        let kinds = if prefix {
            self.v.kinds_over(range.clone())
        } else {
            self.v.kinds(range.start)
        };
        self.out.push(Near {
            text: String::from_utf8_lossy(&self.path).into_owned(),
            prefix,
            edits,
            kinds,
        });
    }
}

#[cfg(test)]
#[path = "typo_walk_tests.rs"]
mod tests;
