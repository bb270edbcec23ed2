//! The first levels of the vocabulary's trie (search/words/vocabulary.rs) as
//! tables, so that a typo walk (search/words/typo_walk.rs) finds a shallow node's
//! children without searching. Within the bound of two typos a walk visits
//! nearly every node of the first three levels, each over a long run of
//! words whose probes miss the cache; deeper runs are short and found by
//! galloping (`Vocabulary::run_of_letter`).
//!
//! The children of a node at depth d are the runs of its words that share
//! d + 1 letters: they start where a word shares at most d letters with the
//! one before. `starts[d]` lists those places, for each depth kept.

use std::ops::Range;

/// Depths whose children are tabled, at most.
const DEPTHS: usize = 5;

/// A level's table is kept only while it is this short (4 bytes an entry):
/// deeper levels of a large vocabulary are many short runs.
const ENTRIES_MAX: usize = 1 << 16;

#[derive(Debug, Default)]
pub struct TrieTop {
    /// `starts[d]`: every word that shares at most d letters with the word
    /// before it (the first word too), ascending.
    starts: Vec<Vec<u32>>,
}

impl TrieTop {
    /// The tables of a sorted list of words, given each word's letters
    /// shared with the one before.
    pub fn new(shared: impl Iterator<Item = usize> + Clone) -> TrieTop {
        let mut starts = Vec::new();
        for d in 0..DEPTHS {
            let level: Vec<u32> = shared
                .clone()
                .enumerate()
                .filter(|&(i, s)| i == 0 || s <= d)
                .map(|(i, _)| i as u32)
                .collect();
            if level.len() > ENTRIES_MAX {
                break;
            }
            starts.push(level);
        }
        TrieTop { starts }
    }

    /// The runs of `range`'s words (which share their first `depth`
    /// letters) by their next letter, if that depth is tabled. The word of
    /// exactly `depth` letters, if there is one, is a run of its own, first.
    pub fn children(
        &self,
        range: Range<usize>,
        depth: usize,
    ) -> Option<impl Iterator<Item = Range<usize>>> {
        let level = self.starts.get(depth)?;
        let from = level.partition_point(|&s| (s as usize) <= range.start);
        let ends = level[from..]
            .iter()
            .map(|&s| s as usize)
            .take_while(move |&s| s < range.end)
            .chain(std::iter::once(range.end));
        let mut start = range.start;
        Some(ends.map(move |end| {
            let run = start..end;
            start = end;
            run
        }))
    }

    pub fn heap_bytes(&self) -> usize {
        self.starts.iter().map(|l| l.capacity() * 4).sum()
    }
}
