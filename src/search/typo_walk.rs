//! The words of the vocabulary within a few edits of a query word: a bounded
//! edit-distance walk over the sorted vocabulary (search/vocabulary.rs), read
//! as a trie whose nodes are runs of words sharing a prefix.
//!
//! The distance is the optimal string alignment distance: insertions,
//! deletions, substitutions, and a swap of two neighbouring letters, each one
//! edit (Damerau's transposition). Each node carries one row of the distance
//! table (the query's prefixes against the node's prefix), so a prefix shared
//! by thousands of words is computed once, and a subtree whose row holds
//! nothing within the bound is never entered.
//!
//! Two modes (README, "Search Areas"): a whole word (every query word but
//! the last) must be within the bound as a whole; the last word, which may
//! still be being typed, matches every word that has a prefix within the bound.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use crate::search::vocabulary::Vocabulary;

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

/// Every term within `most` edits of `query`, other than the query itself
/// and the words it is a prefix of (those match without a typo). In
/// `Prefix` mode a term covers a whole subtree at the edits of its root;
/// a deeper prefix nearer to the query is given as a term of its own, so
/// that each word's fewest edits are among the terms that cover it.
pub fn near(v: &Vocabulary, query: &[u8], most: u8, mode: Mode) -> Vec<Near> {
    let mut walk = Walk {
        v,
        query,
        most,
        mode,
        path: Vec::new(),
        out: Vec::new(),
        spare: Vec::new(),
    };
    let first: Vec<u8> = (0..=query.len()).map(|j| j.min(255) as u8).collect();
    walk.children(0..v.len(), &first, &first, u8::MAX);
    walk.out
}

/// How many walks are kept: the words people type recur ("north",
/// "extension", a town's name), and a walk over a quarter of a million
/// words costs more than the rest of a search.
const WALKS_KEPT: usize = 4096;

/// The walks already made over one vocabulary, by query word, bound and
/// mode; emptied whole when full, so it never holds more than `WALKS_KEPT`.
#[derive(Debug, Default)]
pub struct Walks(Mutex<HashMap<(Vec<u8>, u8, Mode), Arc<[Near]>>>);

impl Walks {
    /// `near`, made once per query word, bound and mode.
    pub fn near(&self, v: &Vocabulary, query: &[u8], most: u8, mode: Mode) -> Arc<[Near]> {
        let key = (query.to_vec(), most, mode);
        let lock = || self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = lock().get(&key) {
            return found.clone();
        }
        let made: Arc<[Near]> = near(v, query, most, mode).into();
        let mut kept = lock();
        if kept.len() >= WALKS_KEPT {
            kept.clear();
        }
        kept.insert(key, made.clone());
        made
    }
}

struct Walk<'a> {
    v: &'a Vocabulary,
    query: &'a [u8],
    most: u8,
    mode: Mode,
    /// The prefix of the node being visited.
    path: Vec<u8>,
    out: Vec<Near>,
    /// Rows to reuse: one per level of the walk, not one per node.
    spare: Vec<Vec<u8>>,
}

impl Walk<'_> {
    /// Visits the children of the node whose words are `range`, whose prefix
    /// is `path`, and whose row is `row` (its parent's `parent`). `covered`
    /// is the fewest edits a prefix term above already gave this subtree.
    fn children(&mut self, range: Range<usize>, parent: &[u8], row: &[u8], covered: u8) {
        self.children_inheriting(range, parent, row, covered, None);
    }

    /// `children`; with `inherit`, a prefix within the bound on the query's
    /// own path: every child off that path is a prefix term at those edits
    /// (its words have this node's prefix), and the child on it is walked on.
    fn children_inheriting(
        &mut self,
        range: Range<usize>,
        parent: &[u8],
        row: &[u8],
        covered: u8,
        inherit: Option<u8>,
    ) {
        let depth = self.path.len();
        let mut i = range.start;
        // The word that is the prefix itself sorts first and has no child.
        if i < range.end && self.v.word(i).len() == depth {
            i += 1;
        }
        while i < range.end {
            // The words share the prefix, so a child's run is found by the
            // next letter alone.
            let c = self.v.word(i)[depth];
            let end = i + self.v.run_of_letter(i..range.end, depth, c);
            self.path.push(c);
            let mut covered = covered;
            let on_path = self.query.get(depth) == Some(&c);
            if let (Some(edits), false) = (inherit, on_path)
                && std::str::from_utf8(&self.path).is_ok()
            {
                self.emit(&(i..end), true, edits);
                covered = edits;
            }
            let mut next = self.spare.pop().unwrap_or_default();
            self.next_row(parent, row, c, &mut next);
            self.visit(i..end, row, &next, covered);
            self.spare.push(next);
            self.path.pop();
            i = end;
        }
    }

    fn visit(&mut self, range: Range<usize>, parent: &[u8], row: &[u8], covered: u8) {
        let least = *row.iter().min().expect("a row has the empty prefix's cell");
        // Every deeper cell is at least the row's least (a swap reaches two
        // rows back, but only to cells the row below already undercuts).
        if least > self.most || least >= covered {
            return;
        }
        if self.path.as_slice() == self.query {
            return; // the query's own words match without a typo
        }
        let edits = row[self.query.len()];
        let ends_here = self.v.word(range.start).len() == self.path.len();
        // A prefix term must be whole characters: the full-text index's terms are text.
        let whole_chars = std::str::from_utf8(&self.path).is_ok();
        if !(edits <= self.most && edits < covered && whole_chars) {
            return self.children(range, parent, row, covered);
        }
        match self.mode {
            // On the query's own path, the subtree holds the query's words,
            // which match without a typo: this node's word and the children
            // off the path are terms, and the walk goes on along it.
            Mode::Prefix if self.query.starts_with(&self.path) => {
                if ends_here {
                    self.emit(&(range.start..range.start + 1), false, edits);
                }
                self.children_inheriting(range, parent, row, covered, Some(edits));
            }
            Mode::Prefix => {
                self.emit(&range, true, edits);
                self.children(range, parent, row, edits);
            }
            Mode::Whole => {
                if ends_here {
                    self.emit(&(range.start..range.start + 1), false, edits);
                }
                self.children(range, parent, row, covered);
            }
        }
    }

    fn emit(&mut self, range: &Range<usize>, prefix: bool, edits: u8) {
        let kinds = if prefix {
            self.v.prefix_kinds(&self.path)
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

    /// The row of `path` (whose last letter is `c`) from the rows of its
    /// two shorter prefixes, `parent` (`path` less two letters) and `row`
    /// (`path` less one).
    fn next_row(&self, parent: &[u8], row: &[u8], c: u8, next: &mut Vec<u8>) {
        let q = self.query;
        let depth = self.path.len();
        next.clear();
        next.resize(q.len() + 1, 0);
        next[0] = depth.min(255) as u8;
        for j in 1..=q.len() {
            let substitute = row[j - 1].saturating_add(u8::from(q[j - 1] != c));
            let mut best = substitute
                .min(row[j].saturating_add(1))
                .min(next[j - 1].saturating_add(1));
            let swapped = depth >= 2
                && j >= 2
                && q[j - 1] == self.path[depth - 2]
                && q[j - 2] == c
                && q[j - 1] != q[j - 2];
            if swapped {
                best = best.min(parent[j - 2].saturating_add(1));
            }
            next[j] = best;
        }
    }
}

/// The optimal string alignment distance between two words, or with
/// `Mode::Prefix` between `query` and the nearest prefix of `word`: what
/// `near` finds, for one word (api/search_explain.rs).
pub fn distance(query: &[u8], word: &[u8], mode: Mode) -> usize {
    let m = query.len();
    // Three rows of the table at a time: the one two back (for a swap), the
    // last one, and the one being made.
    let (mut two_back, mut last, mut now) = (
        vec![0; m + 1],
        (0..=m).collect::<Vec<usize>>(),
        vec![0; m + 1],
    );
    let mut best = last[m];
    for (i, &c) in word.iter().enumerate() {
        now[0] = i + 1;
        for j in 1..=m {
            let mut d = (last[j - 1] + usize::from(query[j - 1] != c))
                .min(last[j] + 1)
                .min(now[j - 1] + 1);
            if i >= 1 && j >= 2 && query[j - 1] == word[i - 1] && query[j - 2] == c {
                d = d.min(two_back[j - 2] + 1);
            }
            now[j] = d;
        }
        best = best.min(now[m]);
        std::mem::swap(&mut two_back, &mut last);
        std::mem::swap(&mut last, &mut now);
    }
    match mode {
        Mode::Whole => last[m],
        Mode::Prefix => best,
    }
}

#[cfg(test)]
#[path = "typo_walk_tests.rs"]
mod tests;
