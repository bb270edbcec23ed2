//! One search, from its criteria to its total and page (docs/api.md,
//! "Search Areas"): the criteria but the words as a filter (`filter`); the
//! page without words, by distance or by score, or by text (`run`); a text
//! search's strict tier (`text`, its bitmaps in `text::bitmaps`) and
//! forgiving tiers (`forgiving`, each word's grades planned in
//! `forgiving_terms` and read in `forgiving_read`),
//! put together in `by_text`; the tiers and their bounds (`tier`); and how
//! an item matched (`explain`). The page is area numbers: the endpoint
//! (api/search.rs) reads their list form.

use crate::search::index::AreaIndex;
use crate::search::matches::match_cache::MatchCache;
use crate::search::words::vocabulary::Vocabulary;

pub mod by_text;
pub mod explain;
pub mod filter;
pub mod forgiving;
pub mod forgiving_read;
pub mod forgiving_terms;
pub mod run;
pub mod text;
pub mod tier;

/// The positions of a page in a search's order: `start` up to `end`.
#[derive(Clone, Copy)]
pub struct Window {
    pub start: usize,
    pub end: usize,
}

/// The areas of a page (area_no, and the distance when a disc is given).
pub type Page = Vec<(i64, Option<f64>)>;

/// What search reads of a dataset beside its connection (data/dataset.rs
/// holds them; api/search.rs takes them from it).
pub struct Searchable<'a> {
    pub index: &'a AreaIndex,
    pub matches: &'a MatchCache,
    pub vocabulary: &'a Vocabulary,
}
