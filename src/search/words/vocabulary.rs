//! Every word search can match: the terms of the full-text index over names,
//! municipalities and provinces (`areas_fts`) and of the other names
//! (`other_names_fts`), sorted, each marked with where it occurs. Read once
//! when a dataset is opened, from FTS5's own vocabulary (`fts5vocab`), so a
//! file of any schema version has one; the typo walk (search/words/typo_walk.rs)
//! and the joined and split words of forgiving search look words up here
//! without touching SQLite.
//!
//! Kept compact: the words' bytes in one buffer and a start offset each, for
//! the 200,000 and more distinct words of a million areas (bench/RESULTS-million.md).
//! The areas of each other names' word are read with them (other_ranks.rs).

use std::ops::Range;

use rusqlite::Connection;

use crate::search::words::other_ranks::OtherNameRanks;
use crate::search::words::trie_top::TrieTop;

/// A word occurs in a name, municipality or province.
pub const IN_AREAS: u8 = 1;
/// A word occurs in an other name.
pub const IN_OTHER_NAMES: u8 = 2;

/// Room for each area's other names in `other_names_fts`'s rowids: the
/// rowid of an area's n-th other name is rank * OTHER_NAME_SLOTS + n, so
/// rowid order is rank order. Import allows at most 20 (import/rules.rs).
pub const OTHER_NAME_SLOTS: i64 = 32;

/// The full-text tables words are read from, and what each marks them with.
const TABLES: [(&str, u8); 2] = [("areas_fts", IN_AREAS), ("other_names_fts", IN_OTHER_NAMES)];

#[derive(Debug, Default)]
pub struct Vocabulary {
    /// The typo walks made over these words, kept (walks.rs).
    pub walks: crate::search::words::walks::Walks,
    /// Every word's bytes, in sorted order, one after the other.
    bytes: Vec<u8>,
    /// Where each word starts in `bytes`, and one more: the end.
    starts: Vec<u32>,
    /// `IN_AREAS` and `IN_OTHER_NAMES` bits of each word.
    kinds: Vec<u8>,
    /// The trie's first levels, tabled (search/words/trie_top.rs).
    top: TrieTop,
    /// The areas each word occurs in among the other names (other_ranks.rs).
    pub other_ranks: OtherNameRanks,
}

impl Vocabulary {
    /// The words of a file's full-text tables.
    pub fn read(conn: &Connection) -> rusqlite::Result<Vocabulary> {
        let mut words: Vec<(String, u8)> = Vec::new();
        for (table, kind) in TABLES.iter() {
            read_table(conn, table, *kind, &mut words)?;
        }
        words.sort_unstable();
        let mut v = Vocabulary::from_sorted(words);
        v.other_ranks = OtherNameRanks::read(conn, &v)?;
        Ok(v)
    }

    /// A vocabulary of the given words (sorted, each once or with its kinds
    /// in several entries, which are merged).
    pub fn from_sorted(words: Vec<(String, u8)>) -> Vocabulary {
        let mut v = Vocabulary::default();
        for (word, kind) in words {
            if !v.is_empty() && v.word(v.len() - 1) == word.as_bytes() {
                *v.kinds.last_mut().expect("a word was pushed") |= kind;
                continue;
            }
            if v.starts.is_empty() {
                v.starts.push(0);
            }
            v.bytes.extend_from_slice(word.as_bytes());
            v.starts.push(v.bytes.len() as u32);
            v.kinds.push(kind);
        }
        v.with_trie_top()
    }

    /// A vocabulary of stored parts (vocabulary_store.rs): the words' bytes,
    /// where each starts (and the end), and each word's kinds; None unless
    /// they are consistent and the words rise strictly, as `read` makes them.
    pub(super) fn from_parts(
        bytes: Vec<u8>,
        starts: Vec<u32>,
        kinds: Vec<u8>,
    ) -> Option<Vocabulary> {
        let consistent = match starts.as_slice() {
            [] => bytes.is_empty() && kinds.is_empty(),
            [first, .., last] => {
                *first == 0 && *last as usize == bytes.len() && kinds.len() + 1 == starts.len()
            }
            [_] => false,
        };
        if !consistent || starts.windows(2).any(|w| w[0] >= w[1]) {
            return None;
        }
        let v = Vocabulary {
            bytes,
            starts,
            kinds,
            ..Vocabulary::default()
        };
        let rising = (1..v.len()).all(|i| v.word(i - 1) < v.word(i));
        rising.then(|| v.with_trie_top())
    }

    /// The parts `from_parts` takes, to be stored.
    pub(super) fn parts(&self) -> (&[u8], &[u32], &[u8]) {
        (&self.bytes, &self.starts, &self.kinds)
    }

    /// Fits the buffers and tables the trie's first levels.
    fn with_trie_top(mut self) -> Vocabulary {
        let v = &mut self;
        v.bytes.shrink_to_fit();
        v.starts.shrink_to_fit();
        v.kinds.shrink_to_fit();
        let shared: Vec<u8> = (0..v.len())
            .map(|i| match i {
                0 => 0,
                _ => {
                    let (a, b) = (v.word(i - 1), v.word(i));
                    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
                    same.min(usize::from(u8::MAX)) as u8
                }
            })
            .collect();
        v.top = TrieTop::new(shared.iter().map(|&s| usize::from(s)));
        self
    }

    /// The runs of `within`'s words (which share their first `depth`
    /// letters) by their next letter, where the trie's first levels are
    /// tabled; the word of `depth` letters, if any, is a run of its own.
    pub fn runs_at(
        &self,
        within: Range<usize>,
        depth: usize,
    ) -> Option<impl Iterator<Item = Range<usize>>> {
        self.top.children(within, depth)
    }

    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// The i-th word, in sorted order.
    pub fn word(&self, i: usize) -> &[u8] {
        &self.bytes[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    pub fn kinds(&self, i: usize) -> u8 {
        self.kinds[i]
    }

    /// The words that start with `prefix` (all of them for an empty one),
    /// within `within`, as a range of indexes.
    pub fn with_prefix_in(&self, prefix: &[u8], within: Range<usize>) -> Range<usize> {
        let slice = within.start..within.end;
        let lo = slice.start + self.partition(slice.clone(), |w| w < prefix);
        let hi = lo + self.partition(lo..slice.end, |w| w.starts_with(prefix));
        lo..hi
    }

    /// The words that start with `prefix`.
    pub fn with_prefix(&self, prefix: &[u8]) -> Range<usize> {
        self.with_prefix_in(prefix, 0..self.len())
    }

    /// The index of the word `word`, if the vocabulary holds it whole.
    pub fn find(&self, word: &[u8]) -> Option<usize> {
        let r = self.with_prefix(word);
        (r.start < r.end && self.word(r.start) == word).then_some(r.start)
    }

    /// The kinds of the word `word`, if the vocabulary holds it whole.
    pub fn word_kinds(&self, word: &[u8]) -> Option<u8> {
        self.find(word).map(|i| self.kinds[i])
    }

    /// The kinds of every word that starts with `prefix`, together (0 for none).
    pub fn prefix_kinds(&self, prefix: &[u8]) -> u8 {
        self.kinds_over(self.with_prefix(prefix))
    }

    /// The kinds of the words `within`, together (0 for none).
    pub fn kinds_over(&self, within: Range<usize>) -> u8 {
        let mut seen = 0;
        for &kinds in &self.kinds[within] {
            seen |= kinds;
            // Both kinds are soon seen in a long range.
            if seen == IN_AREAS | IN_OTHER_NAMES {
                break;
            }
        }
        seen
    }

    /// How many of the words `within`, which share their first `depth`
    /// letters and are longer, have `letter` next: they come first, and the
    /// first has it. Deep in a walk most runs are short, so the search
    /// gallops from the start, its probes near one another in memory,
    /// before it halves the last step.
    pub fn run_of_letter(&self, within: Range<usize>, depth: usize, letter: u8) -> usize {
        let (start, end) = (within.start, within.end);
        let (mut last_in, mut step) = (start, 1);
        loop {
            let probe = last_in + step;
            if probe >= end || self.word(probe)[depth] > letter {
                let rest = last_in + 1..probe.min(end);
                return rest.start - start + self.partition(rest, |w| w[depth] <= letter);
            }
            last_in = probe;
            step *= 2;
        }
    }

    /// Whether some word other than `word` itself starts with it.
    pub fn extends(&self, word: &[u8]) -> bool {
        let r = self.with_prefix(word);
        r.len() > 1 || (r.len() == 1 && self.word(r.start) != word)
    }

    /// The bytes this vocabulary holds on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity()
            + self.starts.capacity() * 4
            + self.kinds.capacity()
            + self.top.heap_bytes()
            + self.other_ranks.heap_bytes()
    }

    /// How many of `within`'s words, which are sorted, `below` holds of:
    /// `below` must be true for a leading run and false after it.
    fn partition(&self, within: Range<usize>, below: impl Fn(&[u8]) -> bool) -> usize {
        let (mut lo, mut hi) = (within.start, within.end);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if below(self.word(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo - within.start
    }
}

/// Adds the terms of one full-text table, through a temporary `fts5vocab`
/// table: the terms as the tokenizer folded them, without the prefix
/// index's entries.
fn read_table(
    conn: &Connection,
    table: &str,
    kind: u8,
    words: &mut Vec<(String, u8)>,
) -> rusqlite::Result<()> {
    // `table` comes from the fixed TABLES list, never from a request.
    conn.execute_batch(&format!(
        "DROP TABLE IF EXISTS temp.vocabulary_of_{table};
         CREATE VIRTUAL TABLE temp.vocabulary_of_{table} USING fts5vocab(main, {table}, row);"
    ))?;
    let read = (|| {
        let mut stmt = conn.prepare(&format!("SELECT term FROM temp.vocabulary_of_{table}"))?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            words.push((row.get(0)?, kind));
        }
        Ok(())
    })();
    conn.execute_batch(&format!("DROP TABLE temp.vocabulary_of_{table};"))?;
    read
}

#[cfg(test)]
#[path = "vocabulary_tests.rs"]
mod tests;
