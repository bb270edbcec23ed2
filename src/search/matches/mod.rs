//! The areas each word of a search matches, as search ranks: read from the
//! full-text index anywhere and in the name (`word_sets`), the heavy words'
//! lists and bitmaps kept for the life of a dataset (`match_cache`) or
//! stored in the file at build (`word_store`), their intersection
//! (`rank_set`), a word's matches as forgiving search reads them
//! (`members`), and the walk along sorted ranks under both (`seek`).

pub mod joined_words;
pub mod match_cache;
pub mod members;
pub mod rank_set;
pub mod seek;
pub mod word_sets;
pub mod word_store;
