//! The words search can match, apart from the areas that hold them: text
//! folded as the full-text index folds it (`fold`), the vocabulary of the
//! dataset's terms (`vocabulary`, its first trie levels in `trie_top`), and
//! the terms within a few typos of a query word (`typo_walk`, one row of
//! its table in `typo_rows`, its answers and the walks kept in `walks`).

pub mod fold;
mod trie_top;
mod typo_rows;
pub mod typo_walk;
pub mod vocabulary;
pub mod walks;
