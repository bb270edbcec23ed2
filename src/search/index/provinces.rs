//! Which areas lie in each province, for Search's `province` (docs/api.md,
//! "Search Areas"): per province, a bitmap over the area index's positions
//! (grid order), one in score order and one by search rank, built once
//! when a dataset is opened.
//!
//! Why bitmaps over positions, rather than a province byte in each entry
//! and counts per cell and province: the byte would grow each entry from
//! 40 bytes to 48 (8 MB at a million areas), and a grid cell wholly inside
//! a circle or a viewport is counted as the run of its areas scoring at
//! least the floor (search/shape/region.rs), a prefix of the cell that changes with
//! every floor. Counts
//! per cell and province would be exact only without a floor; a popcount of
//! the province's bitmap over the run is exact with any floor, and a run is
//! mostly one or two machine words. The same bitmap ANDs with a word's
//! bitmaps (search/matches/match_cache.rs), so text with a province counts in the
//! same passes, and testing an area in an edge cell is one bit. In score
//! order, the areas above a floor are a prefix: province with min_score is
//! one popcount of that prefix, and a page is found by counting set bits
//! up to its offset, never a scan of areas. A third bitmap, by search
//! rank, tells a word's match in a list (search/matches/match_cache.rs) whether it
//! is in the province without a look at its position and entry (4 MB and
//! 40 MB read at random at a million areas). The nine provinces take nine
//! bits an area in each of the three orders: 3.4 MB at a million areas.

use roaring::RoaringBitmap;

use crate::domain::PROVINCES;
use crate::search::index::AreaIndex;
use crate::search::index::Floor;
use crate::search::index::bitmap::{Bits, count_all, each_in_all};
use crate::search::index::grid::NO_SLOT;

/// The areas of one province.
#[derive(Debug)]
pub struct ProvinceAreas {
    pub by_position: Bits,
    pub by_score: Bits,
    /// By search rank, from 1.
    by_rank: Bits,
    /// Where in grid order the province's areas lie (`Bits::spans`): a
    /// province is a band of grid rows, and in each row a stretch of
    /// cells, so these are about one range a row it spans.
    spans: Vec<(usize, usize)>,
    /// The machine words the spans cover.
    span_words: usize,
}

/// Clear words between two of a province's spans that are counted through
/// rather than starting another span: a span costs a few words' work.
const SPAN_GAP: usize = 4;

/// With a floor that cuts some areas, counting over a province's spans
/// tests each match's score (2 bytes read), so it is chosen over the score
/// order's prefix only when it reads this many times fewer words.
const FLOOR_TEST_COST: usize = 2;

/// A position in no province of `PROVINCES`.
pub(super) const NONE: u8 = u8::MAX;

impl AreaIndex {
    /// The index with the areas of each province of `PROVINCES`, from the
    /// area_no and slug of each area. An area whose slug is not among
    /// them, or whose area_no is not indexed, is in none.
    pub fn with_provinces<S: AsRef<str>>(self, areas: &[(u32, S)]) -> AreaIndex {
        let mut province_at = vec![NONE; self.area_count()];
        for (area_no, slug) in areas {
            self.note_province(&mut province_at, *area_no, slug.as_ref().as_bytes());
        }
        self.with_province_at(&province_at)
    }

    /// Notes the province of an area at its position, when both are known.
    fn note_province(&self, province_at: &mut [u8], area_no: u32, slug: &[u8]) {
        let p = PROVINCES.iter().position(|(s, _)| s.as_bytes() == slug);
        if let (Some(p), Some(i)) = (p, self.position_of(i64::from(area_no))) {
            province_at[i] = p as u8;
        }
    }

    /// The bitmaps of each province, from each position's province (or
    /// `NONE`): one pass in each order.
    pub(super) fn with_province_at(mut self, province_at: &[u8]) -> AreaIndex {
        let n = self.area_count();
        let mut provinces: Vec<ProvinceAreas> = PROVINCES
            .iter()
            .map(|_| ProvinceAreas {
                by_position: Bits::new(n),
                by_score: Bits::new(n),
                by_rank: Bits::new(n + 1),
                spans: Vec::new(),
                span_words: 0,
            })
            .collect();
        for (i, &p) in province_at.iter().enumerate() {
            if let Some(province) = provinces.get_mut(usize::from(p)) {
                province.by_position.set(i);
                // Rank 0 is an area without one (mod.rs).
                match self.rank_at(i) {
                    0 => {}
                    rank => province.by_rank.set(rank as usize),
                }
            }
        }
        for province in &mut provinces {
            province.spans = province.by_position.spans(SPAN_GAP);
            province.span_words = province.spans.iter().map(|(a, b)| (b - a) / 64).sum();
        }
        for j in 0..n {
            let p = province_at[self.by_score(j)];
            if let Some(province) = provinces.get_mut(usize::from(p)) {
                province.by_score.set(j);
            }
        }
        self.provinces = provinces;
        self
    }

    /// The areas of a province named by its slug.
    pub fn province(&self, slug: &str) -> Option<&ProvinceAreas> {
        let p = PROVINCES.iter().position(|(s, _)| *s == slug)?;
        self.provinces.get(p)
    }

    /// The grid position of an area, by area_no.
    pub fn position_of(&self, area_no: i64) -> Option<usize> {
        let i = *usize::try_from(area_no)
            .ok()
            .and_then(|i| self.slot.get(i))?;
        (i != NO_SLOT).then_some(i as usize)
    }
}

impl ProvinceAreas {
    /// Whether the area at a grid position is in the province.
    pub fn holds(&self, position: usize) -> bool {
        self.by_position.get(position)
    }

    /// Whether the area with a search rank is in the province.
    /// The province's search ranks as a compressed bitmap.
    pub fn ranks(&self) -> RoaringBitmap {
        RoaringBitmap::from_lsb0_bytes(0, &self.by_rank.to_bytes())
    }

    pub fn holds_rank(&self, rank: u32) -> bool {
        self.by_rank.get(rank as usize)
    }
}

impl AreaIndex {
    /// Whether the areas of a province scoring at least `floor` that are
    /// set in some bitmaps are counted faster over the province's spans in
    /// grid order (`count_in_province`) than over the prefix of the score
    /// order above the floor: always without a floor, as the prefix is
    /// then every area, and the province's areas are 7 to 24% of them in
    /// the bench's data.
    pub fn counts_by_province(&self, province: &ProvinceAreas, floor: &Floor) -> bool {
        let prefix_words = (self.count_scoring(floor.min) as usize).div_ceil(64);
        let cost = if floor.admits_every() {
            1
        } else {
            FLOOR_TEST_COST
        };
        province.span_words * cost <= prefix_words
    }

    /// How many areas of a province scoring at least `floor` are set in
    /// every one of `sets` (bitmaps in grid order).
    pub fn count_in_province(
        &self,
        province: &ProvinceAreas,
        floor: &Floor,
        sets: &[&Bits],
    ) -> usize {
        let sets = &with(sets, &province.by_position)[..];
        let mut total = 0;
        for &(a, b) in &province.spans {
            if floor.admits_every() {
                total += count_all(sets, a, b);
            } else {
                each_in_all(sets, a, b, |i| {
                    total += usize::from(self.scores_at_least(i, floor))
                });
            }
        }
        total
    }

    /// Calls `each` on the position of every area of a province scoring at
    /// least `floor` set in all of `sets` (bitmaps in grid order), in grid
    /// order.
    pub fn each_in_province(
        &self,
        province: &ProvinceAreas,
        floor: &Floor,
        sets: &[&Bits],
        mut each: impl FnMut(usize),
    ) {
        let sets = &with(sets, &province.by_position)[..];
        for &(a, b) in &province.spans {
            each_in_all(sets, a, b, |i| {
                if self.scores_at_least(i, floor) {
                    each(i)
                }
            });
        }
    }
}

/// `sets` and one more.
fn with<'a>(sets: &[&'a Bits], more: &'a Bits) -> Vec<&'a Bits> {
    sets.iter().copied().chain([more]).collect()
}

#[cfg(test)]
#[path = "provinces_tests.rs"]
mod tests;
