//! How a search item matched (`match` in docs/api.md, "Search Areas"): its tier,
//! the other name it was found by, and the area's words the query's words
//! were taken for, so a client can show "Gqeberha (formerly Port
//! Elizabeth)" or "results for johannesburg". Worked out for the items of
//! a page only, from the area's own texts, by the rules the tiers follow
//! (search/query/forgiving.rs).

use std::cell::OnceCell;

use serde::Serialize;

use crate::search::query::tier::MatchTier;
use crate::search::query::tier::{
    FORGIVING_WORDS_MAX, SPLIT_PART_MIN, TYPO_ONE_FROM, TYPO_TWO_FROM,
};
use crate::search::words::fold;
use crate::search::words::typo_rows::Query;
use crate::search::words::typo_walk::{Mode, distance};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchMatch {
    #[serde(serialize_with = "tier_name")]
    pub tier: MatchTier,
    /// The other name a word was found in, when one was.
    pub other_name: Option<String>,
    /// The area's words the query's words were taken for, folded as search
    /// folds them, in the query's order; a split word gives two.
    pub words: Vec<String>,
}

fn tier_name<S: serde::Serializer>(tier: &MatchTier, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(tier.name())
}

/// One text of an area, as words; `other` is the other name's text.
struct Field<'t> {
    words: &'t [&'t str],
    other: Option<&'t str>,
}

/// How one query word, or two joined, matched: its grade (1 to 4, as
/// search/query/forgiving.rs counts), the area's word (and the next, for a
/// split word) and the field, borrowed from the fields until the best
/// reading is known.
#[derive(Clone)]
struct Hit<'f> {
    grade: u8,
    words: (&'f str, Option<&'f str>),
    other: Option<&'f str>,
}

/// A search's words, folded once for every item of its page.
pub struct SearchWords {
    words: Vec<QueryWord>,
}

/// One query word, folded, with the rows that measure its typos against an
/// item's words without a table each (None for a word too long for them),
/// made when a page first has a typo to measure: a page of exact matches
/// has none.
struct QueryWord {
    text: String,
    rows: OnceCell<Option<Query>>,
}

impl QueryWord {
    /// The typos between this word and `word` (or its nearest prefix, in
    /// `Mode::Prefix`), if at most `allowed`.
    fn typos(&self, word: &str, mode: Mode, allowed: usize) -> Option<u8> {
        let prefix = mode == Mode::Prefix;
        match self.rows.get_or_init(|| Query::new(self.text.as_bytes())) {
            Some(rows) => rows.edits_within(word.as_bytes(), prefix, allowed as u8),
            None => {
                let d = distance(self.text.as_bytes(), word.as_bytes(), mode);
                (d <= allowed).then_some(d as u8)
            }
        }
    }
}

impl SearchWords {
    pub fn new(words: &[String]) -> SearchWords {
        SearchWords {
            words: words
                .iter()
                .map(|w| QueryWord {
                    text: fold::word(w),
                    rows: OnceCell::new(),
                })
                .collect(),
        }
    }

    /// The match of an area whose texts are `name`, `municipality` and
    /// `province`, with its `other_names`, found at `tier`.
    pub fn explain(
        &self,
        texts: [&str; 3],
        other_names: &[String],
        tier: MatchTier,
    ) -> SearchMatch {
        let texts = texts
            .into_iter()
            .map(|t| (t, None))
            .chain(other_names.iter().map(|n| (n.as_str(), Some(n.as_str()))));
        // Every field's words folded into one buffer: a page explains many
        // items, and a string a word was near a tenth of a 3-letter search's
        // time (bench/PROFILE.md, "A page's items built for less").
        let mut folded = String::with_capacity(texts.clone().map(|(t, _)| t.len()).sum());
        let mut spans = Vec::new();
        let mut ends = Vec::new();
        for (text, _) in texts.clone() {
            fold::push_words(text, &mut folded, &mut spans);
            ends.push(spans.len());
        }
        let words: Vec<&str> = spans.into_iter().map(|r| &folded[r]).collect();
        let fields: Vec<Field> = texts
            .zip(
                ends.iter()
                    .scan(0, |start, &end| Some(std::mem::replace(start, end)..end)),
            )
            .map(|((_, other), range)| Field {
                words: &words[range],
                other,
            })
            .collect();
        let hits = best_reading(&fields, &self.words, tier);
        SearchMatch {
            tier,
            other_name: hits.iter().find_map(|h| h.other).map(str::to_owned),
            words: hits
                .iter()
                .flat_map(|h| std::iter::once(h.words.0).chain(h.words.1))
                .map(str::to_owned)
                .collect(),
        }
    }
}

/// The hits of the query's words read best, each alone or two neighbours
/// joined: `best[i]`, the weakest grade of the first i words and its hits.
fn best_reading<'f>(fields: &'f [Field], query: &[QueryWord], tier: MatchTier) -> Vec<Hit<'f>> {
    let n = query.len().min(FORGIVING_WORDS_MAX);
    let mut best: Vec<Option<(u8, Vec<Hit>)>> = vec![None; n + 1];
    best[0] = Some((1, Vec::new()));
    for i in 1..=n {
        let last = i == query.len();
        let mut options = Vec::new();
        if let (Some(before), Some(hit)) =
            (&best[i - 1], word_hit(fields, &query[i - 1], last, tier))
        {
            options.push((before, hit));
        }
        if i >= 2
            && tier >= MatchTier::OneTypo
            && let (Some(before), Some(hit)) = (
                &best[i - 2],
                joined_hit(fields, &query[i - 2].text, &query[i - 1].text, last),
            )
        {
            options.push((before, hit));
        }
        best[i] = options
            .into_iter()
            .map(|((grade, hits), hit)| {
                let mut hits = hits.clone();
                let grade = (*grade).max(hit.grade);
                hits.push(hit);
                (grade, hits)
            })
            .min_by_key(|(grade, _)| *grade);
    }
    best[n].take().map(|(_, hits)| hits).unwrap_or_default()
}

/// The typos a query word of this many letters may have.
fn typos_allowed(letters: usize) -> usize {
    match letters {
        n if n >= TYPO_TWO_FROM => 2,
        n if n >= TYPO_ONE_FROM => 1,
        _ => 0,
    }
}

/// The best hit of one query word in any field; typos and splits are
/// looked for only when the area's tier allows them.
fn word_hit<'f>(
    fields: &'f [Field],
    query: &QueryWord,
    last: bool,
    tier: MatchTier,
) -> Option<Hit<'f>> {
    let q = query.text.as_str();
    let forgives = tier >= MatchTier::OneTypo;
    let allowed = if forgives {
        typos_allowed(q.chars().count())
    } else {
        0
    };
    let mode = if last { Mode::Prefix } else { Mode::Whole };
    let mut best: Option<Hit> = None;
    let mut offer = |grade: u8, words: (&'f str, Option<&'f str>), f: &Field<'f>| {
        if best.as_ref().is_none_or(|b| grade < b.grade) {
            best = Some(Hit {
                grade,
                words,
                other: f.other,
            });
        }
    };
    for f in fields {
        for (k, &w) in f.words.iter().enumerate() {
            if w.starts_with(q) {
                offer(if f.other.is_some() { 2 } else { 1 }, (w, None), f);
                continue;
            }
            // A whole word differs by at least its difference in length.
            let near = mode == Mode::Prefix || w.len().abs_diff(q.len()) <= allowed;
            if allowed > 0
                && near
                && let Some(d) = query.typos(w, mode, allowed)
            {
                offer(2 + d, (w, None), f);
            }
            if forgives
                && let Some(&next) = f.words.get(k + 1)
                && splits_into(q, w, next, last)
            {
                offer(3, (w, Some(next)), f);
            }
        }
    }
    best
}

/// Whether `q` is `left` then `right` (or a prefix of it, when `last`),
/// each part long enough.
fn splits_into(q: &str, left: &str, right: &str, last: bool) -> bool {
    let Some(rest) = q.strip_prefix(left) else {
        return false;
    };
    let long_enough =
        left.chars().count() >= SPLIT_PART_MIN && rest.chars().count() >= SPLIT_PART_MIN;
    long_enough
        && if last {
            right.starts_with(rest)
        } else {
            right == rest
        }
}

/// The hit of two query words joined into one word of a field.
fn joined_hit<'f>(fields: &'f [Field], first: &str, second: &str, last: bool) -> Option<Hit<'f>> {
    if first.chars().count() < SPLIT_PART_MIN || second.chars().count() < SPLIT_PART_MIN {
        return None;
    }
    let joined = format!("{first}{second}");
    fields.iter().find_map(|f| {
        f.words
            .iter()
            .find(|w| {
                if last {
                    w.starts_with(&joined)
                } else {
                    **w == joined
                }
            })
            .map(|&w| Hit {
                grade: 3,
                words: (w, None),
                other: f.other,
            })
    })
}
