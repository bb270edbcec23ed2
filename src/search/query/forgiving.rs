//! The forgiving tiers of a text search (docs/api.md, "Search Areas"): after the
//! areas every word matches exactly or as a prefix (the strict tier,
//! search/query/text.rs), those matched through an other name, then with one
//! typo (a joined or split word counts as one), then with two. An area's
//! tier is its weakest word's; within a tier, areas whose name (or other
//! name) holds every word come first, then by search rank, as in the strict
//! tier. `total` counts every tier exactly.
//!
//! Only the areas some word matches beyond its exact matches can be in a
//! forgiving tier: those few are the candidates, and each is graded word by
//! word, the words' best segmentation into single and joined words taken.

use super::Window;
use super::filter::Filter;
use crate::search::matches::members::{Members, each_among, each_common};
use crate::search::query::forgiving_read::{Both, Grades, each_match, matches_len};
use crate::search::query::tier::MatchTier;
use crate::search::query::tier::{FORGIVING_WORDS_MAX, MATCH_TIERS};

/// No grade: the word does not match the area at all.
const NONE: u8 = u8::MAX;

/// The forgiving tiers' matches admitted by the filter: how many, and those
/// at positions `w` (counted from the first forgiving match), with their tier.
pub fn page(filter: &Filter, grades: &Grades, w: Window) -> (usize, Vec<(i64, MatchTier)>) {
    let candidates = candidates(grades);
    // Words alone admit every area with a rank: then only the page's few
    // ranks are looked up, not every match counted.
    let open = !filter.narrows();
    let anywhere = Graded::new(grades, &candidates, false);
    let tiered: Vec<(u32, u8)> = candidates
        .iter()
        .enumerate()
        .map(|(k, &rank)| (rank, anywhere.tier(k)))
        .filter(|&(_, tier)| (2..NONE).contains(&tier))
        .collect();
    let found: Vec<(u32, u8)> = if open {
        tiered
    } else {
        filter.admitting(tiered.len());
        tiered
            .into_iter()
            .filter(|&(rank, _)| filter.admit_at(rank).is_some())
            .collect()
    };
    let ranks: Vec<u32> = found.iter().map(|&(rank, _)| rank).collect();
    let in_name = Graded::new(grades, &ranks, true);
    // One run of ranks per tier, the names first: (tier, in a name) in order.
    let mut runs: Vec<Vec<u32>> = vec![Vec::new(); 2 * (MATCH_TIERS.len() - 1)];
    let mut counts = vec![0usize; runs.len()];
    for (k, &(rank, tier)) in found.iter().enumerate() {
        let run = 2 * usize::from(tier - 2) + usize::from(in_name.tier(k) > tier);
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

/// How each word matches each of some areas, anywhere or (`in_name`) in
/// a name: 1 exactly or as a prefix, 2 through an other name, 3 with one
/// typo, 4 with two, or `NONE`; and which neighbouring words match it
/// joined. Each word's sets are swept once along the areas' ranks, in
/// order, rather than searched for each area.
struct Graded {
    words: usize,
    /// `grade[k * words + i]`: word i's grade for the k-th area.
    grade: Vec<u8>,
    /// `joined[k * words + i]`: words i - 1 and i joined match the k-th area.
    joined: Vec<bool>,
}

impl Graded {
    fn new(grades: &Grades, ranks: &[u32], in_name: bool) -> Graded {
        let n = grades.words.len();
        let mut grade = vec![NONE; ranks.len() * n];
        for (i, g) in grades.words.iter().enumerate() {
            let mut set = |k: usize, to: u8| {
                let cell = &mut grade[k * n + i];
                *cell = (*cell).min(to);
            };
            let exact = if in_name { &g.exact.1 } else { &g.exact.0 };
            each_among(exact, ranks, |k| set(k, 1));
            each_common(ranks, &g.other, |k| set(k, 2));
            pick(&g.one_typo, in_name).each_among(ranks, |k| set(k, 3));
            pick(&g.two_typos, in_name).each_among(ranks, |k| set(k, 4));
        }
        let mut joined = vec![false; ranks.len() * n];
        for (i, j) in grades.joined.iter().enumerate().skip(1) {
            pick(j, in_name).each_among(ranks, |k| joined[k * n + i] = true);
        }
        Graded {
            words: n,
            grade,
            joined,
        }
    }

    /// The tier (1 to 4) at which every word matches the k-th area; `NONE`
    /// when some word does not match it.
    ///
    /// The best over the ways of reading the words, each word alone or two
    /// neighbours joined: `best[i]`, the best tier of the first i words, is
    /// word i alone after `best[i - 1]`, or words i - 1 and i joined after
    /// `best[i - 2]`.
    fn tier(&self, k: usize) -> u8 {
        let n = self.words;
        let (grade, joined) = (&self.grade[k * n..][..n], &self.joined[k * n..][..n]);
        let mut best = [NONE; FORGIVING_WORDS_MAX + 1];
        best[0] = 1;
        for i in 1..=n {
            best[i] = best[i - 1].max(grade[i - 1]);
            if i >= 2 && joined[i - 1] {
                best[i] = best[i].min(best[i - 2].max(3));
            }
        }
        best[n]
    }
}

/// A set's matches in a name, or anywhere.
fn pick(b: &Both, in_name: bool) -> &Members {
    if in_name { &b.in_name } else { &b.anywhere }
}
