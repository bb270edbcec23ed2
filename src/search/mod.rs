//! Searching the areas: what the server keeps in memory about every area,
//! the words search can match and the areas each matches, and one search
//! from its criteria to its total and page. The endpoint (api/search.rs)
//! parses the parameters and reads the page's areas; everything between is
//! here, in five folders, each depending only on those after it:
//!
//! - `query`: one search: the filter, the page without words or by text,
//!   the strict and forgiving tiers, and how each item matched;
//! - `matches`: the areas each word matches, as search ranks: read from the
//!   full-text index, kept for heavy words (`match_cache`) and stored in
//!   the file at build (`word_store`), intersected (`rank_set`);
//! - `shape`: circles, viewports and a search's shape over the grid, counted
//!   and paged;
//! - `words`: the vocabulary, text folded as the full-text index folds it,
//!   and the words within a few typos of a query word (no area in sight);
//! - `index`: the area index, its grid, provinces, score order, bitmaps and
//!   distances.
//!
//! `matches` reads `words` and `index` but never `shape`; `shape` reads only
//! `index`. Below the family sit only `domain` and `error`; `data` opens a
//! dataset's index, vocabulary and kept matches and writes the stored sets
//! at build, so search never names `data` or `api` outside its tests (the
//! equivalence tests build files with data/ and search through the endpoint).

pub mod index;
pub mod matches;
pub mod query;
pub mod shape;
pub mod words;

/// The brute force of forgiving search that the end-to-end tests compare
/// with, loaded once here for the unit tests of `words` and `query`, which
/// use parts of it each.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../../tests/common/forgiving.rs"]
pub(crate) mod forgiving_reference;
