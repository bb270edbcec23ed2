//! The forgiving tiers of a text search (README, "Search Areas"): after the
//! areas every word matches exactly or as a prefix (the strict tier,
//! api/search_text.rs), those matched through an other name, then with one
//! typo (a joined or split word counts as one), then with two. An area's
//! tier is its weakest word's; within a tier, areas whose name (or other
//! name) holds every word come first, then by search rank, as in the strict
//! tier. `total` counts every tier exactly.
//!
//! Only the areas some word matches beyond its exact matches can be in a
//! forgiving tier: those few are the candidates, and each is graded word by
//! word, the words' best segmentation into single and joined words taken.

use crate::api::contract::{FORGIVING_WORDS_MAX, MATCH_TIERS};
use crate::api::search::{Filter, Window};
use crate::api::search_forgiving_terms::{Both, Grades, each_match, holds, matches_len};
use crate::api::search_params::MatchTier;

/// No grade: the word does not match the area at all.
const NONE: u8 = u8::MAX;

/// The forgiving tiers' matches admitted by the filter: how many, and those
/// at positions `w` (counted from the first forgiving match), with their tier.
pub fn page(filter: &Filter, grades: &Grades, w: Window) -> (usize, Vec<(i64, MatchTier)>) {
    let candidates = candidates(grades);
    // Words alone admit every area with a rank: then only the page's few
    // ranks are looked up, not every match counted.
    let open = !filter.narrows();
    // One run of ranks per tier, the names first: (tier, in a name) in order.
    let mut runs: Vec<Vec<u32>> = vec![Vec::new(); 2 * (MATCH_TIERS.len() - 1)];
    let mut counts = vec![0usize; runs.len()];
    for rank in candidates {
        let tier = tier_of(grades, rank, false);
        if tier <= 1 || tier == NONE || !(open || filter.admit(rank).is_some()) {
            continue;
        }
        let in_name = tier_of(grades, rank, true) <= tier;
        let run = 2 * usize::from(tier - 2) + usize::from(!in_name);
        counts[run] += 1;
        // No run needs more than the window's end: the page lies before it.
        if runs[run].len() < w.end {
            runs[run].push(rank);
        }
    }
    let total = counts.iter().sum();
    let page = runs
        .iter()
        .enumerate()
        .flat_map(|(run, ranks)| {
            ranks
                .iter()
                .map(move |&rank| (rank, MATCH_TIERS[1 + run / 2]))
        })
        .skip(w.start)
        .take(w.end.saturating_sub(w.start))
        .filter_map(|(rank, tier)| Some((filter.admit(rank)?, tier)))
        .collect();
    (total, page)
}

/// Every area that may be in a forgiving tier, as a bitmap by rank: every
/// match must match each word, alone or joined with a neighbour, so the
/// matches of the word that has fewest (with its joined pairs) hold them
/// all. A lone word's exact matches are the strict tier, so they are left
/// out. Sorted by rank, each once.
fn candidates(grades: &Grades) -> Vec<u32> {
    let n = grades.words.len();
    let joined = |i: usize| grades.joined.get(i).map_or(0, |j| j.anywhere.len());
    let size = |i: usize| {
        let g = &grades.words[i];
        let exact = if n == 1 { 0 } else { matches_len(&g.exact.0) };
        exact
            + g.other.len()
            + g.one_typo.anywhere.len()
            + g.two_typos.anywhere.len()
            + joined(i)
            + joined(i + 1)
    };
    let driver = (0..n).min_by_key(|&i| size(i)).unwrap_or(0);
    let Some(g) = grades.words.get(driver) else {
        return Vec::new();
    };
    let mut ranks = Vec::with_capacity(size(driver));
    if n > 1 {
        each_match(&g.exact.0, |r| ranks.push(r));
    }
    ranks.extend_from_slice(&g.other);
    g.one_typo.anywhere.each(|r| ranks.push(r));
    g.two_typos.anywhere.each(|r| ranks.push(r));
    for j in [driver, driver + 1] {
        if let Some(j) = grades.joined.get(j) {
            j.anywhere.each(|r| ranks.push(r));
        }
    }
    ranks.sort_unstable();
    ranks.dedup();
    ranks
}

/// The tier (1 to 4) at which every word matches the area, anywhere or
/// (`in_name`) in a name; `NONE` when some word does not match it.
///
/// The best over the ways of reading the words, each word alone or two
/// neighbours joined: `best[i]`, the best tier of the first i words, is
/// word i alone after `best[i - 1]`, or words i - 1 and i joined after
/// `best[i - 2]`.
fn tier_of(grades: &Grades, rank: u32, in_name: bool) -> u8 {
    let n = grades.words.len();
    let mut best = [NONE; FORGIVING_WORDS_MAX + 1];
    best[0] = 1;
    for i in 1..=n {
        let alone = grade(grades, i - 1, rank, in_name);
        best[i] = best[i - 1].max(alone);
        if i >= 2 {
            let j = &grades.joined[i - 1];
            let set = if in_name { &j.in_name } else { &j.anywhere };
            if set.contains(rank) {
                best[i] = best[i].min(best[i - 2].max(3));
            }
        }
        // Most candidates miss some word: once the words so far cannot be
        // read, only joining the next word to this one could still read
        // them, and only after a readable `best[i - 1]`.
        if best[i] == NONE
            && (best[i - 1] == NONE || grades.joined.get(i).is_none_or(Both::is_empty))
        {
            return NONE;
        }
    }
    best[n]
}

/// How word i matches the area: 1 exactly or as a prefix, 2 through an
/// other name, 3 with one typo, 4 with two, or `NONE`.
fn grade(grades: &Grades, i: usize, rank: u32, in_name: bool) -> u8 {
    let g = &grades.words[i];
    let exact = if in_name { &g.exact.1 } else { &g.exact.0 };
    if holds(exact, rank) {
        return 1;
    }
    if g.other.binary_search(&rank).is_ok() {
        return 2;
    }
    let pick = |b: &Both| {
        if in_name {
            b.in_name.contains(rank)
        } else {
            b.anywhere.contains(rank)
        }
    };
    if pick(&g.one_typo) {
        return 3;
    }
    if pick(&g.two_typos) {
        return 4;
    }
    NONE
}
