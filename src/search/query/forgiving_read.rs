//! Reads what forgiving_terms.rs plans for each word of a forgiving search
//! (search/query/forgiving.rs), grade by grade: exactly or as a prefix,
//! through an other name, with one typo (or as a split word), with two
//! typos; and what two neighbouring words match joined into one.
//!
//! Terms of names, municipalities and provinces are read from the full-text
//! tables as search ranks, through the kept and stored matches of heavy
//! words (search/matches/word_sets.rs); a split word from the joined words
//! (search/matches/joined_words.rs). The other names' words are looked up in memory
//! (search/words/other_ranks.rs), but for a typed word that only FTS5
//! folds to the vocabulary's letters, and a phrase.

use std::ops::Range;
use std::sync::Arc;

use rusqlite::Connection;

use crate::error::ApiResult;
use crate::search::index::AreaIndex;
use crate::search::matches::joined_words::{add_neighbours, joined_query};
use crate::search::matches::match_cache::{MatchCache, Matches};
pub use crate::search::matches::members::Members;
use crate::search::matches::word_sets::{
    RANKS_KEPT_FROM, RankTable, other_name_ranks, term_matches,
};
use crate::search::matches::word_store::{fts_term, fts_word, in_name_query};
use crate::search::query::Searchable;
use crate::search::query::forgiving_terms::Plan;
use crate::search::words::typo_walk::Near;
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
        let other = match (t.other, t.folded.is_ascii()) {
            (false, _) => Vec::new(),
            (true, true) => other_ranks(v, cache, &t.folded).to_vec(),
            (true, false) => other_name_ranks(conn, cache, &term)?.to_vec(),
        };
        let (mut one_typo, mut two_typos) = (Both::default(), Both::default());
        add_near(conn, data, &t.near, [&mut one_typo, &mut two_typos])?;
        let last = i + 1 == n;
        for (left, right, kinds) in &t.split {
            let query = joined_query(left, right, last);
            let into = (&mut one_typo.anywhere, &mut one_typo.in_name);
            add_neighbours(conn, cache, *kinds, &query, into)?;
        }
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
            add_term(conn, index, cache, kinds & IN_AREAS, &term, into)?;
            if kinds & IN_OTHER_NAMES != 0 {
                add_other_words(v, words_of(v, text.as_bytes(), prefix), into);
            }
        }
    }
    Ok(Grades {
        words: grades,
        joined,
    })
}

/// Adds the matches of a word's near words to `into`, by their edits (1
/// or 2).
fn add_near(
    conn: &Connection,
    data: &Searchable,
    near: &[Near],
    into: [&mut Both; 2],
) -> ApiResult<()> {
    let (index, cache, v) = (data.index, data.matches, data.vocabulary);
    for near in near {
        let into = &mut *into[usize::from(near.edits > 1)];
        let text = if near.prefix || !v.extends(near.text.as_bytes()) {
            fts_term(&near.text)
        } else {
            fts_word(&near.text)
        };
        add_term(conn, index, cache, near.kinds & IN_AREAS, &text, into)?;
        if near.kinds & IN_OTHER_NAMES != 0 {
            add_other_words(v, words_of(v, near.text.as_bytes(), near.prefix), into);
        }
    }
    Ok(())
}

/// The vocabulary's words that are `text` (a vocabulary word's form), or
/// that start with it.
fn words_of(v: &Vocabulary, text: &[u8], prefix: bool) -> Range<usize> {
    match prefix {
        true => v.with_prefix(text),
        false => v.find(text).map_or(0..0, |i| i..i + 1),
    }
}

/// Adds the areas an other name of which has one of the words `within`.
fn add_other_words(v: &Vocabulary, within: Range<usize>, into: &mut Both) {
    for i in within {
        let ranks = v.other_ranks.of_word(i);
        into.anywhere.add_ranks(ranks);
        into.in_name.add_ranks(ranks);
    }
}

/// The search ranks of the areas an other name of which has a word that
/// starts with `folded` (as the vocabulary holds words), best first, each
/// once: kept when many, as FTS5's are (search/matches/word_sets.rs), since
/// the prefix a person types first may start thousands of words.
fn other_ranks(v: &Vocabulary, cache: &MatchCache, folded: &str) -> Arc<[u32]> {
    let words = v.with_prefix(folded.as_bytes());
    if words.len() <= 1 {
        return v.other_ranks.of_words(words).into();
    }
    // The key of the same query read from FTS5.
    let key = format!("{} {}", RankTable::OtherNames.name(), fts_term(folded));
    if let Some(Matches::List(ranks)) = cache.get(&key) {
        return ranks;
    }
    let ranks: Arc<[u32]> = v.other_ranks.of_words(words).into();
    if ranks.len() >= RANKS_KEPT_FROM {
        cache.keep(&key, Matches::List(ranks.clone()));
    }
    ranks
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
