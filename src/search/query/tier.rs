//! How q's words match (`match=`) and how a search item matched (its tier),
//! with the bounds forgiving search keeps: the typos a word's length
//! forgives, a joined or split word's parts, and how many words it forgives
//! (docs/api.md, "Search Areas"). api/contract.rs re-exports them with the
//! rest of the parameters' contract.

/// How q's words match (api/contract.rs, `MATCHINGS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matching {
    Forgiving,
    Exact,
}

/// How a search item matched, best first: every word exactly or as a
/// prefix; through an other name; with one typo (or a joined or split
/// word); with two typos. An item's tier is its weakest word's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MatchTier {
    Exact,
    OtherName,
    OneTypo,
    TwoTypos,
}

impl MatchTier {
    /// The tier's name in `match.tier`.
    pub fn name(self) -> &'static str {
        match self {
            MatchTier::Exact => "exact",
            MatchTier::OtherName => "other_name",
            MatchTier::OneTypo => "one_typo",
            MatchTier::TwoTypos => "two_typos",
        }
    }
}

/// A query word of this many letters forgives one typo, and of
/// `TYPO_TWO_FROM` two: Meilisearch's defaults.
pub const TYPO_ONE_FROM: usize = 5;
pub const TYPO_TWO_FROM: usize = 9;
/// The least letters of each part of a joined or split word, defined with
/// the words, which the joined neighbours stored at build need too.
pub use crate::search::words::SPLIT_PART_MIN;
/// A q of more words than this matches exactly: nobody types a place's
/// name in more, and each forgiven word costs a walk and its queries.
pub const FORGIVING_WORDS_MAX: usize = 8;
/// How a search item matched (`match.tier`), best first.
pub const MATCH_TIERS: [MatchTier; 4] = [
    MatchTier::Exact,
    MatchTier::OtherName,
    MatchTier::OneTypo,
    MatchTier::TwoTypos,
];
