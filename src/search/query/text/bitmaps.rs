//! The bitmaps of a text search's words (search/matches/match_cache.rs) and the
//! order they are counted in for a filter (search/query/text/, `counted`):
//! over a circle's or a viewport's grid cells, a province's stretch of the
//! grid, or the score order above a floor.

use crate::search::index::Floor;
use crate::search::index::bitmap::Bits;
use crate::search::index::provinces::ProvinceAreas;
use crate::search::matches::match_cache::WordBits;
use crate::search::query::filter::Filter;

/// The bitmaps of every word of a set, in grid order and in score order.
pub struct Bitmaps<'a> {
    pub by_position: Vec<&'a Bits>,
    pub by_score: Vec<&'a Bits>,
}

impl<'a> Bitmaps<'a> {
    pub fn of(words: &[&'a WordBits]) -> Bitmaps<'a> {
        Bitmaps {
            by_position: words.iter().map(|w| &w.by_position).collect(),
            by_score: words.iter().map(|w| &w.by_score).collect(),
        }
    }

    /// How many areas of the set meet the filter (see `Order`).
    pub fn count(&self, filter: &Filter) -> usize {
        let index = filter.index;
        match Order::of(filter) {
            Order::Grid => index.count_in(&filter.shape(), &self.by_position),
            Order::Province(p, floor) => index.count_in_province(p, &floor, &self.by_position),
            Order::Score => index.count_scoring_in(&filter.shape(), &self.by_score),
        }
    }

    /// `count` of this set and of `other`, the grid's cells walked once
    /// for both.
    pub fn count_with(&self, other: &Bitmaps, filter: &Filter) -> [usize; 2] {
        match Order::of(filter) {
            Order::Grid => filter
                .index
                .count_in_each(&filter.shape(), [&self.by_position, &other.by_position]),
            _ => [self.count(filter), other.count(filter)],
        }
    }

    /// Calls `each` on the position of every area of the set meeting the
    /// filter, in no order a caller may rely on.
    pub fn each(&self, filter: &Filter, mut each: impl FnMut(usize)) {
        let index = filter.index;
        match Order::of(filter) {
            Order::Grid => index.each_in(&filter.shape(), &self.by_position, |i, _| each(i)),
            Order::Province(p, floor) => index.each_in_province(p, &floor, &self.by_position, each),
            Order::Score => index.each_scoring_in(&filter.shape(), &self.by_score, |i, _| each(i)),
        }
    }
}

/// Which bitmaps a filter's areas are counted over: with a province and
/// no circle or viewport, its stretch of the grid (search/index/provinces.rs)
/// when that is shorter than the score order's prefix above the floor.
enum Order<'a> {
    /// The cells of a circle or a viewport.
    Grid,
    /// The stretch of the grid a province spans, scoring at least a floor.
    Province(&'a ProvinceAreas, Floor),
    /// The prefix of the score order above the floor, narrowed by the
    /// province's bitmap in that order when there is one.
    Score,
}

impl<'a> Order<'a> {
    pub fn of(filter: &Filter<'a>) -> Order<'a> {
        if filter.disc.is_some() || filter.bbox.is_some() {
            return Order::Grid;
        }
        let floor = filter.index.floor(filter.min_score);
        match filter.province {
            Some(p) if filter.index.counts_by_province(p, &floor) => Order::Province(p, floor),
            _ => Order::Score,
        }
    }
}
