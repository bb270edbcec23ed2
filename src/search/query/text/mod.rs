//! The page and total of a text search (by_text.rs): the areas whose name
//! holds every word first, then the others, each tier by search rank.
//!
//! Two ways to the same answer. `walked` reads the matches best first and
//! tests each against the filter: cheap when the filter keeps most of them or
//! the lists are short. `counted` serves a common word with a circle, a
//! viewport, a score floor or a province: the total is a popcount of the
//! words' bitmaps over the shape's grid cells (search/shape/region.rs), a
//! province's stretch of the grid, or the score order above the floor; and
//! each tier's page is either collected from the few matches in the shape
//! or, when many match, walked from the lists, which then soon fill it.

use super::Window;
use super::filter::Filter;
use crate::search::index::bitmap::in_all;
use crate::search::matches::match_cache::WordBits;
use crate::search::matches::rank_set::RankSet;
use crate::search::matches::word_sets::WordSets;
use bitmaps::Bitmaps;

mod bitmaps;

/// A tier with at most this many matches in the shape is collected from the
/// bitmaps and sorted; past it, walking the list fills a page after some
/// hundreds of matches on average.
pub const COLLECT_AT_MOST: usize = 4096;

/// The other tier is collected only when both tiers together hold at most
/// this many times `COLLECT_AT_MOST`.
const COLLECT_TOTAL: usize = 4;

/// Reads the matches best first, testing each against the filter.
pub fn walked(filter: &Filter, sets: &WordSets, w: Window) -> (usize, Vec<i64>) {
    let mut page = Vec::new();
    // The name tier: positions 0 up to the number of admitted name matches.
    let mut position = 0;
    if w.end > 0 {
        sets.in_name.each_while(|rank| {
            if let Some(i) = filter.admit_at(rank) {
                if position >= w.start {
                    page.push(filter.area_no_at(i));
                }
                position += 1;
            }
            position < w.end
        });
    }
    // The other tier follows, in rank order; it is needed only when the name
    // tier ended inside the window.
    let mut total = 0;
    let mut counted_all = false;
    let province_alone = filter.province_alone();
    sets.anywhere.each_while(|rank| {
        // Past the page, a match in a province is counted by its bit.
        if let Some(p) = province_alone.filter(|_| position >= w.end) {
            total += usize::from(p.holds_rank(rank));
            return true;
        }
        let Some(i) = filter.admit_at(rank) else {
            return true;
        };
        total += 1;
        if position < w.end {
            if !sets.in_name.contains(rank) {
                if position >= w.start {
                    page.push(filter.area_no_at(i));
                }
                position += 1;
            }
        } else if !filter.narrows() {
            // Nothing filters and the page is full: every match counts.
            counted_all = true;
            return false;
        }
        true
    });
    if counted_all {
        total = sets.anywhere.count();
    }
    (total, page)
}

/// Tests every match against the shape's mask (search/shape/shape_mask.rs), then
/// pages the tiers from the matches held: for a list of thousands of matches
/// and a circle or a viewport, where walking read each match's entry.
pub fn masked(filter: &Filter, sets: &WordSets, w: Window) -> (usize, Vec<i64>) {
    let held = filter.index.held(&filter.shape(), &sets.anywhere.ranks());
    // A word's matches in the name are among its matches anywhere, so as
    // many are the same: commonly so for a place's own name.
    let in_name = if sets.in_name.equals_superset(&sets.anywhere) {
        vec![true; held.len()]
    } else {
        sets.in_name.marks(&held)
    };
    let tier = |name: bool| {
        held.iter()
            .zip(&in_name)
            .filter(move |&(_, &n)| n == name)
            .map(|(&r, _)| r)
    };
    (
        held.len(),
        page_of(filter, tier(true).chain(tier(false)), w),
    )
}

/// The area_no of the matches at positions `w` of `ranks`.
fn page_of(filter: &Filter, ranks: impl Iterator<Item = u32>, w: Window) -> Vec<i64> {
    ranks
        .skip(w.start)
        .take(w.end.saturating_sub(w.start))
        .filter_map(|r| filter.index.by_rank(i64::from(r)))
        .map(|e| i64::from(e.area_no))
        .collect()
}

/// Counts over the bitmaps of every word's matches (`anywhere`), and pages
/// tier by tier.
pub fn counted(
    filter: &Filter,
    sets: &WordSets,
    anywhere: &[&WordBits],
    w: Window,
) -> (usize, Vec<i64>) {
    let anywhere = Bitmaps::of(anywhere);
    let name_words = sets.in_name.word_bits();
    let name_bits = name_words.as_ref().map(|b| Bitmaps::of(b));
    // The name tier is counted in the same walk when it has bitmaps.
    let (total, name_count) = match &name_bits {
        Some(bits) => {
            let [total, in_name] = anywhere.count_with(bits, filter);
            (total, in_name)
        }
        None => (anywhere.count(filter), 0),
    };
    if w.start >= total {
        return (total, Vec::new());
    }
    let mut page = Vec::new();
    // The name tier, counted and paged from its own bitmaps when it has
    // them; else it is narrowed by a list (no bitmap was worth keeping),
    // short enough to read whole once for both.
    let name_total = match &name_bits {
        Some(bits) => {
            let want = Window {
                start: w.start,
                end: w.end.min(name_count),
            };
            if want.start < want.end {
                page = if name_count <= filter.collect_at_most {
                    collect(filter, bits, |_, _| true, want)
                } else {
                    walk(filter, &sets.in_name, |_| true, want)
                };
            }
            name_count
        }
        None => match sets.in_name.list_len().filter(|&n| filter.masks(n)) {
            Some(_) => {
                let held = filter.index.held(&filter.shape(), &sets.in_name.ranks());
                page = page_of(filter, held.iter().copied(), w);
                held.len()
            }
            None => {
                let mut n = 0;
                sets.in_name.each_while(|r| {
                    if let Some(i) = filter.admit_at(r) {
                        if (w.start..w.end).contains(&n) {
                            page.push(filter.area_no_at(i));
                        }
                        n += 1;
                    }
                    true
                });
                n
            }
        },
    };
    let in_name = |rank: u32, position: usize| match &name_bits {
        Some(bits) => in_all(&bits.by_position, position),
        None => sets.in_name.contains(rank),
    };
    if w.end > name_total {
        let rest_total = total - name_total;
        let want = Window {
            start: w.start.saturating_sub(name_total),
            end: (w.end - name_total).min(rest_total),
        };
        // Collecting reads the name tier's matches too: only when they are few.
        if rest_total <= filter.collect_at_most && total <= COLLECT_TOTAL * filter.collect_at_most {
            page.extend(collect(filter, &anywhere, |r, i| !in_name(r, i), want));
        } else {
            let not_a_name = |rank| !sets.in_name.contains(rank);
            page.extend(walk(filter, &sets.anywhere, not_a_name, want));
        }
    }
    (total, page)
}

/// The admitted matches of a tier at tier positions `w`, from every match
/// of `set` in the shape that `in_tier` (rank, position) takes, sorted by rank.
fn collect(
    filter: &Filter,
    set: &Bitmaps,
    in_tier: impl Fn(u32, usize) -> bool,
    w: Window,
) -> Vec<i64> {
    let index = filter.index;
    let mut ranks = Vec::new();
    set.each(filter, |i| {
        let rank = index.rank_at(i);
        if in_tier(rank, i) {
            ranks.push(rank);
        }
    });
    let end = w.end.min(ranks.len());
    if end > 0 && end < ranks.len() {
        ranks.select_nth_unstable(end - 1);
        ranks.truncate(end);
    }
    ranks.sort_unstable();
    ranks
        .iter()
        .skip(w.start)
        .filter_map(|&r| index.by_rank(i64::from(r)).map(|e| i64::from(e.area_no)))
        .collect()
}

/// The admitted matches of a set, best first, that `in_tier` takes, at tier
/// positions `w`; stops once the window is full.
fn walk(filter: &Filter, set: &RankSet, in_tier: impl Fn(u32) -> bool, w: Window) -> Vec<i64> {
    let mut page = Vec::new();
    let mut position = 0;
    if w.end == 0 {
        return page;
    }
    set.each_while(|rank| {
        if let Some(i) = filter.admit_at(rank)
            && in_tier(rank)
        {
            if position >= w.start {
                page.push(filter.area_no_at(i));
            }
            position += 1;
        }
        position < w.end
    });
    page
}
