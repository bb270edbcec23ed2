//! One row of the edit-distance table of a typo walk (search/words/typo_walk.rs),
//! held as bits: for each number of edits up to the bound, which of the
//! query's prefixes are within it of the walk's prefix. A child's row is a
//! few shifts and masks of its parent's, whatever the query's length, where
//! a row of numbers costs a step per letter of the query; the walk makes
//! one row per node of the vocabulary's trie it visits, thousands a word.
//!
//! The distance is the optimal string alignment distance: insertions,
//! deletions, substitutions, and a swap of two neighbouring letters, each
//! one edit. `Query::edits_within` measures one pair within the bound, for
//! explaining a match; `distance` computes it for a pair of any length.

/// The most edits a row tells apart: two typos (api/contract.rs).
pub const MOST: usize = 2;

/// The longest query (in bytes) whose rows fit the bits: one bit for each
/// of its prefixes, the empty one included.
pub const LONGEST: usize = 127;

/// Bit j of `within[e]` is set when the query's first j letters are at
/// most e edits from the walk's prefix.
#[derive(Debug, Clone, Copy, Default)]
pub struct Row {
    within: [u128; MOST + 1],
}

/// What a query brings to every row: where each letter stands in it.
pub struct Query {
    /// Bit j of `at[c]` is set when the query's j-th letter (from 1) is c.
    at: Vec<u128>,
    /// Bits 0 to the query's length.
    all: u128,
    len: usize,
}

impl Query {
    /// None when the query is longer than `LONGEST`.
    pub fn new(query: &[u8]) -> Option<Query> {
        if query.len() > LONGEST {
            return None;
        }
        let mut at = vec![0u128; 256];
        for (j, &c) in query.iter().enumerate() {
            at[usize::from(c)] |= 1 << (j + 1);
        }
        Some(Query {
            at,
            all: u128::MAX >> (127 - query.len()),
            len: query.len(),
        })
    }

    /// The row of the empty prefix: j letters of the query are j edits from it.
    pub fn first(&self) -> Row {
        let mut row = Row::default();
        for (e, within) in row.within.iter_mut().enumerate() {
            *within = (u128::MAX >> (127 - e)) & self.all;
        }
        row
    }

    /// The row of the prefix that ends in `c`, from the rows of the prefix
    /// one letter shorter (`row`) and two shorter (`parent`, whose next
    /// letter was `before`, for a swap).
    pub fn next(&self, parent: &Row, row: &Row, before: Option<u8>, c: u8) -> Row {
        let here = self.at[usize::from(c)];
        let mut next = Row::default();
        for e in 0..=MOST {
            // The query's letter j is the prefix's new letter c.
            let mut bits = (row.within[e] << 1) & here;
            if e > 0 {
                let fewer = row.within[e - 1];
                // c replaces letter j, or is one too many, or letter j is
                // missing from the prefix, each one edit more.
                bits |= fewer << 1 | fewer | next.within[e - 1] << 1 | next.within[e - 1];
                if let Some(b) = before {
                    // The prefix's last two letters are the query's j - 1
                    // and j, swapped.
                    bits |= (parent.within[e - 1] << 2) & self.at[usize::from(b)] & (here << 1);
                }
            }
            next.within[e] = bits & self.all;
        }
        next
    }

    /// The fewest edits between the whole query and the prefix, if at most `MOST`.
    pub fn edits(&self, row: &Row) -> Option<u8> {
        (0..=MOST)
            .find(|&e| row.within[e] >> self.len & 1 == 1)
            .map(|e| e as u8)
    }

    /// The fewest edits between the query and `word`, or with `prefix`
    /// between it and the nearest prefix of `word`, if at most `most`
    /// (itself at most `MOST`): `distance` without a table, and stopped as
    /// soon as no longer prefix of `word` can come within the bound. A page
    /// explains every word of its items' texts against each query word
    /// (search/query/explain.rs).
    pub fn edits_within(&self, word: &[u8], prefix: bool, most: u8) -> Option<u8> {
        let within = |edits: Option<u8>| edits.filter(|&e| e <= most);
        let mut row = self.first();
        let mut parent = row;
        let mut best = if prefix {
            within(self.edits(&row))
        } else {
            None
        };
        let mut before = None;
        for &c in word {
            let next = self.next(&parent, &row, before, c);
            (parent, row, before) = (row, next, Some(c));
            if row.least().is_none_or(|least| least > most) {
                return best;
            }
            if prefix && let Some(e) = within(self.edits(&row)) {
                best = Some(best.map_or(e, |b| b.min(e)));
            }
        }
        if prefix {
            best
        } else {
            within(self.edits(&row))
        }
    }
}

impl Row {
    /// The fewest edits between any prefix of the query and the walk's
    /// prefix, if at most `MOST`: no longer prefix of it can do better.
    pub fn least(&self) -> Option<u8> {
        (0..=MOST).find(|&e| self.within[e] != 0).map(|e| e as u8)
    }
}

/// The optimal string alignment distance between two words, or with
/// `prefix` between `query` and the nearest prefix of `word`.
pub fn distance(query: &[u8], word: &[u8], prefix: bool) -> usize {
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
    if prefix { best } else { last[m] }
}
