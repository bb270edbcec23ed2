//! What the server keeps in memory about every area, and the searches that
//! read it without touching SQLite: the area index and its grid
//! (`area_index`), circles over the grid (`circles`, with the k nearest kept
//! in `nearest` and the grid's trigonometry in `cell_geometry`), distances
//! and discs (`geo`), a shape's cells as bits for testing many word matches
//! (`shape_mask`), the areas of each province as bitmaps (`provinces`),
//! and the full-text matches of
//! common words (`match_cache`, read back from the file by `word_store`), as bitmaps (`bitmap`) counted over a
//! search's shape (`region`) or in score order (`score_order`).

pub mod area_index;
pub mod bbox;
pub mod bitmap;
mod cell_geometry;
pub mod circles;
pub mod fold;
pub mod geo;
pub mod match_cache;
mod nearest;
pub mod provinces;
pub mod region;
mod score_order;
pub mod shape_mask;
#[cfg(test)]
pub mod test_points;
mod trie_top;
mod typo_rows;
pub mod typo_walk;
pub mod vocabulary;
pub mod word_store;
