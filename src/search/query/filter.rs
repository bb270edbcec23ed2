//! Every criterion of a search but the words, as the filter an area must
//! pass: a province, a score floor, a circle and a viewport; as a shape
//! over the grid (search/shape/region.rs), admitted rank by rank, or
//! tested through the shape's mask (search/shape/shape_mask.rs).

use roaring::RoaringBitmap;

use std::cell::{Cell, OnceCell};

use crate::search::index::AreaIndex;
use crate::search::index::Floor;
use crate::search::index::geo::Disc;
use crate::search::index::provinces::ProvinceAreas;
use crate::search::shape::bbox::BBox;
use crate::search::shape::region::{KeptRuns, Shape};
use crate::search::shape::shape_mask::ShapeMask;

/// Every criterion but the words: what an area must meet to be a match.
pub struct Filter<'a> {
    pub index: &'a AreaIndex,
    pub province: Option<&'a ProvinceAreas>,
    pub min_score: f64,
    pub disc: Option<Disc>,
    pub bbox: Option<BBox>,
    /// A text tier's page is collected from the bitmaps when it holds at
    /// most this many matches (text.rs, `COLLECT_AT_MOST`; tests try
    /// every way on small data).
    pub collect_at_most: usize,
    /// When to test word matches against the shape's mask (search/shape/shape_mask.rs).
    pub masking: Masking,
    /// What the search keeps of its shape as it goes.
    pub kept: Kept,
}

/// A search's shape, made into runs and a mask once, when first needed.
#[derive(Default)]
pub struct Kept {
    /// The runs over the grid, made by the first walk of the shape.
    runs: KeptRuns,
    /// Matches admitted one by one so far, up to `ADMITS_BEFORE_MASK`.
    admits: Cell<usize>,
    /// The mask of a circle or a viewport, made of the runs once that many
    /// were.
    mask: OnceCell<ShapeMask>,
    /// The score floor as places in the score order, found once.
    floor: OnceCell<Floor>,
}

/// A search that has admitted this many matches one by one, and has walked
/// its shape's runs, admits the rest through a mask made of those runs
/// (search/shape/shape_mask.rs): a bit set for each run, where an admission
/// reads the match's entry. A heavy word's walk in a 50 km circle admits
/// some hundreds at a million areas, almost all far outside, and reading
/// their entries (40 MB of them, out of the cache) was a fifth of it.
/// Placing the shape's cells anew for the mask cost more than it spared at
/// 100,000 areas, so a search that has no runs reads the entries.
const ADMITS_BEFORE_MASK: usize = 64;

/// When a text search tests its matches against the shape's mask rather
/// than each match's entry: a list of matches tested at once, or matches
/// admitted one by one.
#[derive(Clone, Copy)]
pub enum Masking {
    /// When the list holds at least as many matches as the shape spans grid
    /// cells: the mask costs about one look at each cell, as a match's entry
    /// costs a look. One by one, after `ADMITS_BEFORE_MASK`.
    ByCost,
    /// Always, or never, when there is a circle or a viewport (tests).
    Always,
    Never,
}

impl Filter<'_> {
    /// The criteria as a shape over the grid (search/shape/region.rs).
    pub fn shape(&self) -> Shape<'_> {
        Shape {
            min_score: self.min_score,
            disc: self.disc.as_ref(),
            bbox: self.bbox.as_ref(),
            province: self.province,
            kept: Some(&self.kept.runs),
        }
    }

    /// Whether anything but the words narrows the search.
    pub fn narrows(&self) -> bool {
        self.min_score > 0.0
            || self.disc.is_some()
            || self.bbox.is_some()
            || self.province.is_some()
    }

    /// The area_no of the area with a search rank, if it is a match.
    pub fn admit(&self, rank: u32) -> Option<i64> {
        self.admit_at(rank).map(|i| self.area_no_at(i))
    }

    /// The grid position of the area with a search rank, if it is a match:
    /// for a match that is only counted, whose entry a mask spares reading.
    /// A province's bitmap by rank turns most matches away before a look at
    /// their position.
    pub fn admit_at(&self, rank: u32) -> Option<usize> {
        if self.province.is_some_and(|p| !p.holds_rank(rank)) {
            return None;
        }
        // A floor alone is met by the score's place in rank order, two bytes
        // an area read in turn, where the area's entry is 40 out of the cache.
        let floor_alone = self.by_rank_alone();
        if floor_alone && !self.index.rank_scores_at_least(rank, self.floor()) {
            return None;
        }
        let i = self.index.position_of_rank(i64::from(rank))?;
        let held = floor_alone
            || match self.mask() {
                Some(mask) => mask.holds(self.index, &self.shape(), i),
                None => self.shape().holds(self.index, i),
            };
        held.then_some(i)
    }

    /// Whether the filter is met by search rank alone: no circle, no viewport.
    pub fn by_rank_alone(&self) -> bool {
        self.disc.is_none() && self.bbox.is_none()
    }

    /// Narrows a set of search ranks to the areas in the province and
    /// scoring at least the floor, by set algebra: only when `by_rank_alone`.
    pub fn narrow_by_rank(&self, ranks: &mut RoaringBitmap) {
        if let Some(scoring) = self.index.ranks_scoring(self.floor()) {
            *ranks &= &*scoring;
        }
        if let Some(p) = self.province {
            *ranks &= &p.ranks();
        }
    }

    /// The score floor as places in the score order, found once.
    fn floor(&self) -> &Floor {
        self.kept
            .floor
            .get_or_init(|| self.index.floor(self.min_score))
    }

    /// The area_no of the area at a grid position.
    pub fn area_no_at(&self, position: usize) -> i64 {
        i64::from(self.index.at(position).area_no)
    }

    /// The shape's mask, once `admitting` made it, or once this search has
    /// admitted enough matches one by one for it to pay and has its runs;
    /// only a circle or a viewport has one.
    fn mask(&self) -> Option<&ShapeMask> {
        if self.disc.is_none() && self.bbox.is_none() {
            return None;
        }
        if let Some(mask) = self.kept.mask.get() {
            return Some(mask);
        }
        let admits = self.kept.admits.get();
        let wanted = match self.masking {
            Masking::ByCost => admits >= ADMITS_BEFORE_MASK,
            Masking::Always => true,
            Masking::Never => false,
        };
        if !wanted {
            self.kept.admits.set(admits + 1);
            return None;
        }
        let runs = self.kept.runs.get()?;
        Some(self.mask_of(runs))
    }

    /// The mask made of the shape's runs, kept for the rest of the search.
    fn mask_of(&self, runs: &[((usize, usize), bool)]) -> &ShapeMask {
        self.kept
            .mask
            .get_or_init(|| self.index.mask_of_runs(&self.shape(), runs))
    }

    /// Makes ready to admit `matches` more, one by one: when they are many
    /// for the shape's cells (`masks`), its runs and mask are made now, and
    /// each is admitted by its bit rather than its entry. A town's name
    /// typed with a typo matches thousands of areas across the country at a
    /// million areas, and reading each one's entry was nearly half of such
    /// a search in a circle (bench/PROFILE.md).
    pub fn admitting(&self, matches: usize) {
        if !self.masks(matches) {
            return;
        }
        if let Some(runs) = self.index.kept_runs(&self.shape()) {
            self.mask_of(runs);
        }
    }

    /// The province, when it is the only criterion besides the words (no
    /// floor that cuts an area, no circle or viewport): a match is then
    /// admitted by its bit by rank alone.
    pub fn province_alone(&self) -> Option<&ProvinceAreas> {
        self.province.filter(|_| {
            self.disc.is_none()
                && self.bbox.is_none()
                && self.index.floor(self.min_score).admits_every()
        })
    }

    /// Whether a list of `matches` is tested against the shape's mask
    /// (search/shape/shape_mask.rs): with a circle or a viewport, when `masking`
    /// says it pays.
    pub fn masks(&self, matches: usize) -> bool {
        if self.disc.is_none() && self.bbox.is_none() {
            return false;
        }
        match self.masking {
            Masking::ByCost => matches >= self.shape().cells_spanned(),
            Masking::Always => true,
            Masking::Never => false,
        }
    }

    /// A page entry, with the distance from the centre when there is one.
    pub fn entry(&self, area_no: i64) -> (i64, Option<f64>) {
        let distance = self
            .disc
            .zip(self.index.get(area_no))
            .map(|(d, e)| d.distance_km(e.lat, e.lng));
        (area_no, distance)
    }
}
