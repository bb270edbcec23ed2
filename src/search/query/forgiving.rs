//! The forgiving tiers of a text search (docs/api.md, "Search Areas"): after the
//! areas every word matches exactly or as a prefix (the strict tier,
//! search/query/text/), those matched through an other name, then with one
//! typo (a joined or split word counts as one), then with two. An area's
//! tier is its weakest word's; within a tier, areas whose name (or other
//! name) holds every word come first, then by search rank, as in the strict
//! tier. `total` counts every tier exactly.
//!
//! No area is graded one by one. Each word's matches are taken as bitmaps of
//! search ranks, and set algebra over them gives, for each tier, the areas
//! that every word matches at that tier or better, the words' best reading
//! as single and joined words taken; a tier's areas are those within it and
//! not within the one before. A total is then a count, and a page orders
//! only its own rows, however many areas a typo of a common word matches.

use roaring::RoaringBitmap;

use super::Window;
use super::filter::Filter;
use crate::search::matches::members::{matches_bitmap, ranks_bitmap};
use crate::search::query::forgiving_read::{Both, Grades, WordGrades};
use crate::search::query::tier::{MATCH_TIERS, MatchTier};

/// The grade, as an index into `MATCH_TIERS`, at which two neighbouring
/// words joined into one match: a joined word counts as one typo.
const JOINED: usize = 2;

/// The forgiving tiers' matches admitted by the filter: how many, and those
/// at positions `w` (counted from the first forgiving match), with their tier.
pub fn page(filter: &Filter, grades: &Grades, w: Window) -> (usize, Vec<(i64, MatchTier)>) {
    if grades.words.is_empty() {
        return (0, Vec::new());
    }
    let anywhere = within(grades, false);
    let in_name = within(grades, true);
    // One run of ranks per tier, the names first: (tier, in a name) in order.
    let runs: Vec<(RoaringBitmap, MatchTier)> = (1..MATCH_TIERS.len())
        .flat_map(|t| {
            let tier = &anywhere[t] - &anywhere[t - 1];
            let named = &tier & &in_name[t];
            let rest = tier - &named;
            [(named, MATCH_TIERS[t]), (rest, MATCH_TIERS[t])]
        })
        .collect();
    if filter.narrows() {
        admitted(filter, runs, w)
    } else {
        open(filter, &runs, w)
    }
}

/// Nothing but the words narrows the search: the total is the runs'
/// lengths, and only the page's ranks are looked up.
fn open(
    filter: &Filter,
    runs: &[(RoaringBitmap, MatchTier)],
    w: Window,
) -> (usize, Vec<(i64, MatchTier)>) {
    let total = runs.iter().map(|(ranks, _)| ranks.len() as usize).sum();
    let (mut skip, mut want) = (w.start, w.end.saturating_sub(w.start));
    let mut page = Vec::new();
    for (ranks, tier) in runs {
        let len = ranks.len() as usize;
        if want == 0 {
            break;
        }
        if skip >= len {
            skip -= len;
            continue;
        }
        let taken = ranks.iter().skip(skip).take(want);
        page.extend(taken.filter_map(|rank| Some((filter.admit(rank)?, *tier))));
        want -= (len - skip).min(want);
        skip = 0;
    }
    (total, page)
}

/// Every match is tested against the filter, run by run, and those at
/// positions `w` kept; met by rank alone (a floor, a province), each run is
/// narrowed by set algebra instead, and paged as when nothing narrows.
fn admitted(
    filter: &Filter,
    mut runs: Vec<(RoaringBitmap, MatchTier)>,
    w: Window,
) -> (usize, Vec<(i64, MatchTier)>) {
    if filter.by_rank_alone() {
        for (ranks, _) in &mut runs {
            filter.narrow_by_rank(ranks);
        }
        return open(filter, &runs, w);
    }
    filter.admitting(runs.iter().map(|(ranks, _)| ranks.len() as usize).sum());
    let mut total = 0;
    let mut page = Vec::new();
    for (ranks, tier) in &runs {
        for rank in ranks {
            let Some(i) = filter.admit_at(rank) else {
                continue;
            };
            if (w.start..w.end).contains(&total) {
                page.push((filter.area_no_at(i), *tier));
            }
            total += 1;
        }
    }
    (total, page)
}

/// `within[t]`: the areas every word matches, anywhere or (`in_name`) in a
/// name, at tier `MATCH_TIERS[t]` or better. Each word's matches up to a
/// grade grow grade by grade: exactly or as a prefix, through an other
/// name, with one typo, with two.
fn within(grades: &Grades, in_name: bool) -> [RoaringBitmap; 4] {
    let joined: Vec<&RoaringBitmap> = grades.joined.iter().map(|j| pick(j, in_name)).collect();
    let mut upto = vec![RoaringBitmap::new(); grades.words.len()];
    std::array::from_fn(|t| {
        for (set, g) in upto.iter_mut().zip(&grades.words) {
            add_graded(set, g, t, in_name);
        }
        best_reading(&upto, (t >= JOINED).then_some(&joined[..]))
    })
}

/// Adds a word's matches of grade `t` (an index into `MATCH_TIERS`) to `set`.
fn add_graded(set: &mut RoaringBitmap, g: &WordGrades, t: usize, in_name: bool) {
    match t {
        0 => *set |= matches_bitmap(if in_name { &g.exact.1 } else { &g.exact.0 }),
        1 => *set |= ranks_bitmap(&g.other),
        2 => *set |= pick(&g.one_typo, in_name),
        _ => *set |= pick(&g.two_typos, in_name),
    }
}

/// The areas that every word matches, each word within `upto`, over the
/// ways of reading the words, each alone or two neighbours joined
/// (`joined[i]`: words i - 1 and i as one, when they count): the first i + 1
/// words match where word i matches after the first i, or where words i - 1
/// and i joined match after the first i - 1.
fn best_reading(upto: &[RoaringBitmap], joined: Option<&[&RoaringBitmap]>) -> RoaringBitmap {
    // The areas the words before matched, and those before them; None
    // before the first word, when every area does.
    let (mut before, mut last): (Option<RoaringBitmap>, Option<RoaringBitmap>) = (None, None);
    for (i, set) in upto.iter().enumerate() {
        let mut next = and(last.as_ref(), set);
        if let Some(pair) = joined.and_then(|j| j.get(i)).filter(|_| i >= 1) {
            next |= and(before.as_ref(), pair);
        }
        before = last;
        last = Some(next);
    }
    last.unwrap_or_default()
}

/// `a` and `b` (`a` None: every area).
fn and(a: Option<&RoaringBitmap>, b: &RoaringBitmap) -> RoaringBitmap {
    match a {
        Some(a) => a & b,
        None => b.clone(),
    }
}

/// A set's matches in a name, or anywhere.
fn pick(b: &Both, in_name: bool) -> &RoaringBitmap {
    if in_name {
        b.in_name.bitmap()
    } else {
        b.anywhere.bitmap()
    }
}
