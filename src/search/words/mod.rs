//! The words search can match: text folded as the full-text index folds it
//! (`fold`), the vocabulary of the dataset's terms (`vocabulary`, its first
//! trie levels in `trie_top`), the terms within a few typos of a query word
//! (`typo_walk`, one row of its table in `typo_rows`, its answers and the
//! walks kept in `walks`), the areas of each word of the other names
//! (`other_ranks`), and the vocabulary as the dataset stores it
//! (`vocabulary_store`). The areas of the other words are read from the
//! full-text index (search/matches/).

pub mod fold;
pub mod other_ranks;
mod trie_top;
pub mod typo_rows;
pub mod typo_walk;
pub mod vocabulary;
pub mod vocabulary_store;
pub mod walks;

/// Each part of a joined or split word has at least this many letters: the
/// joined neighbours stored at build (search/matches/joined_words.rs) and a
/// query's joins and splits (search/query/forgiving_terms.rs) agree on it.
pub const SPLIT_PART_MIN: usize = 2;
