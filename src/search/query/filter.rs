//! Every criterion of a search but the words, as the filter an area must
//! pass: a province, a score floor, a circle and a viewport; as a shape
//! over the grid (search/shape/region.rs), admitted rank by rank, or
//! tested through the shape's mask (search/shape/shape_mask.rs).

use crate::search::index::AreaIndex;
use crate::search::index::geo::Disc;
use crate::search::index::provinces::ProvinceAreas;
use crate::search::shape::bbox::BBox;
use crate::search::shape::region::Shape;

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
}

/// When a text search whose words are a list tests its matches against the
/// shape's mask rather than each match's entry.
#[derive(Clone, Copy)]
pub enum Masking {
    /// When the list holds at least as many matches as the shape spans grid
    /// cells: the mask costs about one look at each cell, as a match's entry
    /// costs a look.
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
        }
    }

    /// Whether anything but the words narrows the search.
    pub fn narrows(&self) -> bool {
        self.min_score > 0.0
            || self.disc.is_some()
            || self.bbox.is_some()
            || self.province.is_some()
    }

    /// The area_no of the area with a search rank, if it is a match. A
    /// province's bitmap by rank turns most matches away before a look at
    /// their position and entry.
    pub fn admit(&self, rank: u32) -> Option<i64> {
        if self.province.is_some_and(|p| !p.holds_rank(rank)) {
            return None;
        }
        let i = self.index.position_of_rank(i64::from(rank))?;
        let area_no = i64::from(self.index.at(i).area_no);
        self.shape().holds(self.index, i).then_some(area_no)
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
