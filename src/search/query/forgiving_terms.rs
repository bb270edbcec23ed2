//! What each word of a forgiving search may match beyond its exact
//! matches, from the vocabulary alone (search/words/vocabulary.rs), without
//! I/O: its near words within its typo bound, its splits into two words,
//! whether an other name starts with it, and what two neighbouring words
//! make joined into one. forgiving_read.rs reads what this plans.
//!
//! A word with no other name, no near word and no split or join costs
//! nothing more than its exact matches, which the strict tier reads anyway.

use std::sync::Arc;

use crate::search::query::tier::{SPLIT_PART_MIN, TYPO_ONE_FROM, TYPO_TWO_FROM};
use crate::search::words::fold;
use crate::search::words::typo_walk::{Mode, Near, near_kept};
use crate::search::words::vocabulary::{IN_AREAS, IN_OTHER_NAMES, Vocabulary};

/// The terms of one word beyond its exact matches, from the vocabulary alone.
pub(super) struct Terms {
    /// The word as the vocabulary holds words.
    pub(super) folded: String,
    /// It may have exact matches (most typos have none). Only an ASCII word is
    /// told by the vocabulary: fold.rs folds fewer letters than FTS5.
    pub(super) exact: bool,
    pub(super) other: bool,
    pub(super) near: Arc<[Near]>,
    /// Split in two: (left, right) words of the vocabulary, and the tables
    /// that hold both (search/words/vocabulary.rs, `IN_AREAS`, `IN_OTHER_NAMES`).
    pub(super) split: Vec<(String, String, u8)>,
}

/// What a word may match beyond its exact matches; `last` says it may
/// still be being typed, so it matches as a prefix.
fn terms(v: &Vocabulary, word: &str, last: bool) -> Terms {
    let folded = fold::word(word);
    let letters = folded.chars().count();
    let most = match letters {
        n if n >= TYPO_TWO_FROM => 2,
        n if n >= TYPO_ONE_FROM => 1,
        _ => 0,
    };
    let mode = if last { Mode::Prefix } else { Mode::Whole };
    let near = if most > 0 {
        near_kept(v, folded.as_bytes(), most, mode)
    } else {
        Arc::from([])
    };
    let split = folded
        .char_indices()
        .map(|(i, _)| i)
        .filter(|&i| folded[..i].chars().count() >= SPLIT_PART_MIN)
        .filter(|&i| folded[i..].chars().count() >= SPLIT_PART_MIN)
        .filter_map(|i| {
            let (left, right) = folded.split_at(i);
            // Most lefts are no word: the right is looked up only after.
            // Both parts must be in one table for its phrase to match.
            let left_kinds = v.word_kinds(left.as_bytes())?;
            let right_kinds = if last {
                v.prefix_kinds(right.as_bytes())
            } else {
                v.word_kinds(right.as_bytes())?
            };
            let kinds = left_kinds & right_kinds;
            (kinds != 0).then(|| (left.to_string(), right.to_string(), kinds))
        })
        .collect();
    let kinds = v.prefix_kinds(folded.as_bytes());
    Terms {
        exact: kinds & IN_AREAS != 0 || !folded.is_ascii(),
        folded,
        other: kinds & IN_OTHER_NAMES != 0,
        near,
        split,
    }
}

/// The joined form of two neighbouring words, if the vocabulary has it
/// (as a prefix when the second is the last word).
fn joined_term(v: &Vocabulary, first: &str, second: &str, last: bool) -> Option<(String, bool)> {
    let (a, b) = (fold::word(first), fold::word(second));
    if a.chars().count() < SPLIT_PART_MIN || b.chars().count() < SPLIT_PART_MIN {
        return None;
    }
    let joined = a + &b;
    let found = if last {
        !v.with_prefix(joined.as_bytes()).is_empty()
    } else {
        v.word_kinds(joined.as_bytes()).is_some()
    };
    found.then_some((joined, last))
}

/// The terms of every word and of every joined pair, from the vocabulary.
pub struct Plan {
    pub(super) terms: Vec<Terms>,
    pub(super) joined: Vec<Option<(String, bool)>>,
}

/// What a search's words may match beyond their exact matches, or None
/// when nothing: the forgiving tiers are then empty and nothing is read.
pub fn plan(v: &Vocabulary, words: &[String]) -> Option<Plan> {
    let n = words.len();
    let terms: Vec<Terms> = (0..n).map(|i| terms(v, &words[i], i + 1 == n)).collect();
    let joined: Vec<Option<(String, bool)>> = (0..n)
        .map(|i| {
            (i > 0)
                .then(|| joined_term(v, &words[i - 1], &words[i], i + 1 == n))
                .flatten()
        })
        .collect();
    let any = terms
        .iter()
        .any(|t| t.other || !t.near.is_empty() || !t.split.is_empty())
        || joined.iter().any(Option::is_some);
    any.then_some(Plan { terms, joined })
}
