//! The words of the vocabulary within a few edits of a query word: a bounded
//! edit-distance walk over the sorted vocabulary (search/words/vocabulary.rs), read
//! as a trie whose nodes are runs of words sharing a prefix.
//!
//! The distance is the optimal string alignment distance: insertions,
//! deletions, substitutions, and a swap of two neighbouring letters, each one
//! edit (Damerau's transposition). Each node carries one row of the distance
//! table (the query's prefixes against the node's prefix), so a prefix shared
//! by thousands of words is computed once, and a subtree whose row holds
//! nothing within the bound is never entered.
//!
//! Two modes (docs/api.md, "Search Areas"): a whole word (every query word but
//! the last) must be within the bound as a whole; the last word, which may
//! still be being typed, matches every word that has a prefix within the bound.

use std::ops::Range;
use std::sync::Arc;

use crate::search::words::typo_rows::{self, MOST, Query, Row};
use crate::search::words::vocabulary::Vocabulary;
pub use crate::search::words::walks::{Mode, Near};

/// Every term within `most` edits of `query`, other than the query itself
/// and the words it is a prefix of (those match without a typo). In
/// `Prefix` mode a term covers a whole subtree at the edits of its root;
/// a deeper prefix nearer to the query is given as a term of its own, so
/// that each word's fewest edits are among the terms that cover it.
pub fn near(v: &Vocabulary, query: &[u8], most: u8, mode: Mode) -> Vec<Near> {
    let most = most.min(MOST as u8);
    let Some(rows) = Query::new(query) else {
        return near_by_scan(v, query, most, mode);
    };
    let mut walk = Walk {
        v,
        query,
        rows,
        most,
        mode,
        path: Vec::new(),
        out: Vec::new(),
    };
    let first = walk.rows.first();
    walk.children(0..v.len(), &first, &first, u8::MAX);
    walk.out
}

/// `near` for a query too long for the walk's rows, word by word: only a
/// word nearly as long can be near it, and such queries are rare.
fn near_by_scan(v: &Vocabulary, query: &[u8], most: u8, mode: Mode) -> Vec<Near> {
    let shortest = query.len().saturating_sub(usize::from(most));
    (0..v.len())
        .filter(|&i| v.word(i).len() >= shortest && !v.word(i).starts_with(query))
        .filter_map(|i| {
            let edits = distance(query, v.word(i), mode);
            (edits <= usize::from(most)).then(|| Near {
                text: String::from_utf8_lossy(v.word(i)).into_owned(),
                prefix: false,
                edits: edits as u8,
                kinds: v.kinds(i),
            })
        })
        .collect()
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
    rows: Query,
    most: u8,
    mode: Mode,
    /// The prefix of the node being visited.
    path: Vec<u8>,
    out: Vec<Near>,
}

/// What every child of one node starts from.
struct Step<'a> {
    parent: &'a Row,
    row: &'a Row,
    /// The node's last letter (for a swap with the child's).
    before: Option<u8>,
    covered: u8,
    inherit: Option<u8>,
}

impl Walk<'_> {
    /// Visits the children of the node whose words are `range`, whose prefix
    /// is `path`, and whose row is `row` (its parent's `parent`). `covered`
    /// is the fewest edits a prefix term above already gave this subtree.
    fn children(&mut self, range: Range<usize>, parent: &Row, row: &Row, covered: u8) {
        self.children_inheriting(range, parent, row, covered, None);
    }

    /// `children`; with `inherit`, a prefix within the bound on the query's
    /// own path: every child off that path is a prefix term at those edits
    /// (its words have this node's prefix), and the child on it is walked on.
    fn children_inheriting(
        &mut self,
        range: Range<usize>,
        parent: &Row,
        row: &Row,
        covered: u8,
        inherit: Option<u8>,
    ) {
        let depth = self.path.len();
        let before = self.path.last().copied();
        let step = Step {
            parent,
            row,
            before,
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
        let next = self.rows.next(step.parent, step.row, step.before, c);
        self.visit(run, step.row, &next, covered);
        self.path.pop();
    }

    fn visit(&mut self, range: Range<usize>, parent: &Row, row: &Row, covered: u8) {
        // No deeper prefix is nearer than the nearest in this row (a swap
        // reaches two rows back, but only to cells the row below undercuts).
        match row.least() {
            Some(least) if least <= self.most && least < covered => {}
            _ => return,
        }
        if self.path.as_slice() == self.query {
            return; // the query's own words match without a typo
        }
        let edits = self.rows.edits(row).unwrap_or(u8::MAX);
        let ends_here = self.v.word(range.start).len() == self.path.len();
        // A prefix term must be whole characters: the full-text index's terms are text.
        if !(edits <= self.most && edits < covered && std::str::from_utf8(&self.path).is_ok()) {
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

/// The optimal string alignment distance between two words, or with
/// `Mode::Prefix` between `query` and the nearest prefix of `word`: what
/// `near` finds, for one word of any length (a query too long for the
/// rows, here and in search/query/explain.rs).
pub fn distance(query: &[u8], word: &[u8], mode: Mode) -> usize {
    typo_rows::distance(query, word, mode == Mode::Prefix)
}

#[cfg(test)]
#[path = "typo_walk_tests.rs"]
mod tests;
