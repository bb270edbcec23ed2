//! What each word of a forgiving search matches, grade by grade
//! (search/query/forgiving.rs): exactly or as a prefix, through an other name,
//! with one typo (or as a split word), with two typos; and what two
//! neighbouring words match joined into one.
//!
//! The vocabulary (search/words/vocabulary.rs) says which terms exist, without
//! I/O: a word with no other name, no near word and no split or join costs
//! nothing more than its exact matches, which the strict tier reads anyway.
//! Terms are read from the full-text tables as search ranks, through the
//! kept and stored matches of heavy words (search/matches/word_sets.rs); a
//! split word from the joined words (search/matches/joined_words.rs), or as a
//! phrase from a file without them.

use std::sync::Arc;

use rusqlite::Connection;

use crate::error::ApiResult;
use crate::search::index::AreaIndex;
use crate::search::matches::joined_words::{add_neighbours, joined_query};
use crate::search::matches::match_cache::{MatchCache, Matches};
pub use crate::search::matches::members::{Members, each_match, holds, matches_len};
use crate::search::matches::word_sets::{other_name_ranks, term_matches};
use crate::search::matches::word_store::{fts_term, fts_word, in_name_query};
use crate::search::query::Searchable;
use crate::search::query::tier::{SPLIT_PART_MIN, TYPO_ONE_FROM, TYPO_TWO_FROM};
use crate::search::words::fold;
use crate::search::words::typo_walk::{Mode, Near, near_kept};
use crate::search::words::vocabulary::{IN_AREAS, IN_OTHER_NAMES, Vocabulary};

/// Matches anywhere (name, municipality, province, other names) and in a
/// name (the name or an other name).
#[derive(Default)]
pub struct Both {
    pub anywhere: Members,
    pub in_name: Members,
}

impl Both {
    pub fn is_empty(&self) -> bool {
        self.anywhere.is_empty() && self.in_name.is_empty()
    }

    fn finish(&mut self) {
        self.anywhere.finish();
        self.in_name.finish();
    }
}

/// One query word's matches by grade.
pub struct WordGrades {
    /// Exactly or as a prefix, in name, municipality or province: as strict
    /// search reads them.
    pub exact: (Matches, Matches),
    /// As a prefix of an other name's word.
    pub other: Vec<u32>,
    pub one_typo: Both,
    pub two_typos: Both,
}

/// Everything a forgiving search's words match beyond the strict tier.
pub struct Grades {
    pub words: Vec<WordGrades>,
    /// `joined[i]`: words i - 1 and i read as one word (nothing for i = 0).
    pub joined: Vec<Both>,
}

/// The terms of one word beyond its exact matches, from the vocabulary alone.
struct Terms {
    /// It may have exact matches (most typos have none). Only an ASCII word is
    /// told by the vocabulary: fold.rs folds fewer letters than FTS5.
    exact: bool,
    other: bool,
    near: Arc<[Near]>,
    /// Split in two: (left, right) words of the vocabulary, and the tables
    /// that hold both (search/words/vocabulary.rs, `IN_AREAS`, `IN_OTHER_NAMES`).
    split: Vec<(String, String, u8)>,
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
    terms: Vec<Terms>,
    joined: Vec<Option<(String, bool)>>,
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

/// Reads every grade of every word, and the joined pairs.
pub fn read(
    conn: &Connection,
    data: &Searchable,
    words: &[String],
    plan: &Plan,
) -> ApiResult<Grades> {
    let (index, cache, v) = (data.index, data.matches, data.vocabulary);
    let n = words.len();
    let mut grades = Vec::with_capacity(n);
    for (i, word) in words.iter().enumerate() {
        let t = &plan.terms[i];
        let term = fts_term(&word.to_ascii_lowercase());
        let exact = if t.exact {
            (
                term_matches(conn, index, cache, &term)?,
                term_matches(conn, index, cache, &in_name_query(&term))?,
            )
        } else {
            (Matches::List(Arc::from([])), Matches::List(Arc::from([])))
        };
        let other = if t.other {
            other_name_ranks(conn, cache, &term)?.to_vec()
        } else {
            Vec::new()
        };
        let (mut one_typo, mut two_typos) = (Both::default(), Both::default());
        add_near(conn, data, &t.near, [&mut one_typo, &mut two_typos])?;
        let last = i + 1 == n;
        for (left, right, kinds) in &t.split {
            if data.joined_words {
                let query = joined_query(left, right, last);
                let into = (&mut one_typo.anywhere, &mut one_typo.in_name);
                add_neighbours(conn, cache, *kinds, &query, into)?;
            } else {
                let tail = if last { "*" } else { "" };
                let phrase = format!("{} + {}{tail}", fts_word(left), fts_word(right));
                add_term(conn, index, cache, *kinds, &phrase, &mut one_typo)?;
            }
        }
        one_typo.finish();
        two_typos.finish();
        grades.push(WordGrades {
            exact,
            other,
            one_typo,
            two_typos,
        });
    }
    let mut joined: Vec<Both> = (0..n).map(|_| Both::default()).collect();
    for (into, planned) in joined.iter_mut().zip(&plan.joined).skip(1) {
        if let Some((text, prefix)) = planned.clone() {
            let kinds = if prefix {
                v.prefix_kinds(text.as_bytes())
            } else {
                v.word_kinds(text.as_bytes()).unwrap_or(0)
            };
            let term = if prefix || !v.extends(text.as_bytes()) {
                fts_term(&text)
            } else {
                fts_word(&text)
            };
            add_term(conn, index, cache, kinds, &term, into)?;
            into.finish();
        }
    }
    Ok(Grades {
        words: grades,
        joined,
    })
}

/// Adds the matches of a word's near words to `into`, by their edits (1
/// or 2). Those in other names are read in one query a grade: at a million
/// areas a word has a dozen near words there, and each query of its own
/// cost about 20 us (bench/RESULTS-million.md).
fn add_near(
    conn: &Connection,
    data: &Searchable,
    near: &[Near],
    into: [&mut Both; 2],
) -> ApiResult<()> {
    let (index, cache, v) = (data.index, data.matches, data.vocabulary);
    let mut in_other_names: [Vec<String>; 2] = Default::default();
    for near in near {
        let grade = usize::from(near.edits > 1);
        let text = if near.prefix || !v.extends(near.text.as_bytes()) {
            fts_term(&near.text)
        } else {
            fts_word(&near.text)
        };
        add_term(
            conn,
            index,
            cache,
            near.kinds & IN_AREAS,
            &text,
            into[grade],
        )?;
        if near.kinds & IN_OTHER_NAMES != 0 {
            in_other_names[grade].push(text);
        }
    }
    for (terms, into) in in_other_names.iter().zip(into) {
        if !terms.is_empty() {
            let ranks = other_name_ranks(conn, cache, &terms.join(" OR "))?;
            into.anywhere.add_ranks(&ranks);
            into.in_name.add_ranks(&ranks);
        }
    }
    Ok(())
}

/// Adds the matches of one FTS5 term to `into`, from the tables `kinds`
/// says hold it.
fn add_term(
    conn: &Connection,
    index: &AreaIndex,
    cache: &MatchCache,
    kinds: u8,
    term: &str,
    into: &mut Both,
) -> ApiResult<()> {
    if kinds & IN_AREAS != 0 {
        into.anywhere.add(term_matches(conn, index, cache, term)?);
        into.in_name
            .add(term_matches(conn, index, cache, &in_name_query(term))?);
    }
    if kinds & IN_OTHER_NAMES != 0 {
        let ranks = other_name_ranks(conn, cache, term)?;
        into.anywhere.add_ranks(&ranks);
        into.in_name.add_ranks(&ranks);
    }
    Ok(())
}
