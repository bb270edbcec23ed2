//! The area index's score order (mod.rs), built at start: each
//! distinct score with how many areas score at least it, for counting above
//! a floor by binary search, and every area's position in order of score,
//! for word bitmaps in that order (search/shape/region.rs); and a search's score floor,
//! placed among the distinct scores once, which tells how many of a cell's
//! areas (best first) score enough. Tested through mod.rs and
//! search/shape/region.rs.

use std::sync::{Arc, Mutex};

use roaring::RoaringBitmap;

use std::collections::HashMap;

use crate::search::index::AreaIndex;

use crate::search::index::grid::{Cell, Entry, NO_SLOT};

/// Each distinct score, best first, with how many areas score at least it.
/// Counted by distinct score first: scores of two decimals take a thousand
/// values, and a million areas sorted one by one took 50 ms of start.
pub fn floors_of(entries: &[Entry]) -> Vec<(f64, u32)> {
    let mut counts: HashMap<u64, u32> = HashMap::new();
    for e in entries {
        *counts.entry(e.truth_score.to_bits()).or_default() += 1;
    }
    let mut distinct: Vec<(u64, u32)> = counts.into_iter().collect();
    distinct.sort_unstable_by(|a, b| f64::from_bits(b.0).total_cmp(&f64::from_bits(a.0)));
    let mut at_least = 0;
    distinct
        .into_iter()
        .map(|(bits, n)| {
            at_least += n;
            (f64::from_bits(bits), at_least)
        })
        .collect()
}

/// Positions in score order (score descending, then area_no): a bucket per
/// distinct score (`floors`), filled in area_no order, so no sort of a million. Each area's bucket is found
/// in one pass along the entries and kept in 4 bytes, so that the pass in
/// area_no order reads that instead of the entries (150 ms less at start).
pub fn score_order(entries: &[Entry], slot: &[u32], floors: &[(f64, u32)]) -> Vec<u32> {
    let bucket_of = |score: f64| floors.partition_point(|f| f.0.total_cmp(&score).is_gt());
    let buckets: Vec<u32> = entries
        .iter()
        .map(|e| bucket_of(e.truth_score) as u32)
        .collect();
    // Where each bucket starts in score order.
    let mut next: Vec<u32> = std::iter::once(0)
        .chain(floors.iter().map(|f| f.1))
        .take(floors.len())
        .collect();
    let mut by_score = vec![0; entries.len()];
    for &i in slot.iter().filter(|&&i| i != NO_SLOT) {
        let b = buckets[i as usize] as usize;
        by_score[next[b] as usize] = i;
        next[b] += 1;
    }
    by_score
}

/// How many floors' ranks `AreaIndex::ranks_scoring` keeps (an eighth of a
/// byte an area each, at most).
const FLOORS_KEPT: usize = 8;

/// The ranks scoring at least each of the floors last asked for, by their
/// places, oldest first.
pub type KeptFloors = Mutex<Vec<(u16, Arc<RoaringBitmap>)>>;

/// A minimum score, and which areas meet it by their score's place among
/// the distinct scores (`AreaIndex::floor`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Floor {
    pub min: f64,
    places: Places,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Places {
    /// No floor, or one at or below every score: every area.
    Every,
    /// The areas of the first this many places.
    First(u16),
    /// Past what 2 bytes hold: read the scores themselves.
    Past,
}

impl Floor {
    /// Whether every area scores at least the floor (none, or one at or
    /// below every score).
    pub fn admits_every(&self) -> bool {
        self.places == Places::Every
    }
}

/// Each area's score's place in `floors` (saturating at what 2 bytes hold).
pub fn score_places(entries: &[Entry], floors: &[(f64, u32)]) -> Vec<u16> {
    entries
        .iter()
        .map(|e| {
            let place = floors.partition_point(|f| f.0.total_cmp(&e.truth_score).is_gt());
            u16::try_from(place).unwrap_or(u16::MAX)
        })
        .collect()
}

impl AreaIndex {
    /// The positions of a cell's areas scoring at least the floor: a prefix
    /// of the cell, as its areas are sorted best first.
    pub fn scoring_run(&self, cell: &Cell, floor: &Floor) -> (usize, usize) {
        let start = cell.start as usize;
        (start, start + self.scoring_in_cell(cell, floor))
    }

    /// How many of a cell's areas score at least the floor: they come first.
    pub fn scoring_in_cell(&self, cell: &Cell, floor: &Floor) -> usize {
        match floor.places {
            Places::Every => (cell.end - cell.start) as usize,
            Places::First(places) => {
                let cell_places = &self.score_place[cell.start as usize..cell.end as usize];
                cell_places.partition_point(|&p| p < places)
            }
            Places::Past => self
                .areas_of(cell)
                .partition_point(|e| e.truth_score >= floor.min),
        }
    }

    /// A score floor, placed among the distinct scores once for a search
    /// rather than once for each cell it reads.
    pub fn floor(&self, min: f64) -> Floor {
        // The areas scoring at least `min` are those of the first `places`
        // distinct scores.
        let places = self.floors.partition_point(|&(score, _)| score >= min);
        let places = if places == self.floors.len() {
            Places::Every
        } else {
            match u16::try_from(places) {
                Ok(places) if places < u16::MAX => Places::First(places),
                _ => Places::Past,
            }
        };
        Floor { min, places }
    }

    /// Whether the area at a position scores at least the floor: 2 bytes
    /// read, where the area's entry is 40.
    pub fn scores_at_least(&self, position: usize, floor: &Floor) -> bool {
        match floor.places {
            Places::Every => true,
            Places::First(places) => self.score_place[position] < places,
            Places::Past => self.entries[position].truth_score >= floor.min,
        }
    }

    /// Whether the area with a search rank scores at least the floor (false
    /// for no such area).
    pub fn rank_scores_at_least(&self, rank: u32, floor: &Floor) -> bool {
        let Some(r) = (rank as usize)
            .checked_sub(1)
            .filter(|&r| r < self.by_rank.len())
        else {
            return false;
        };
        match floor.places {
            Places::Every => true,
            Places::First(places) => self.rank_score_place[r] < places,
            Places::Past => self.entries[self.by_rank[r] as usize].truth_score >= floor.min,
        }
    }

    /// The search ranks of the areas scoring at least the floor; None when
    /// every area does. Made over every rank once per floor, and kept for
    /// the `FLOORS_KEPT` floors last made: clients ask with a few floors.
    pub fn ranks_scoring(&self, floor: &Floor) -> Option<Arc<RoaringBitmap>> {
        let key = match floor.places {
            Places::Every => return None,
            Places::First(places) => Some(places),
            Places::Past => None,
        };
        let kept = || self.kept_floors.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = key.and_then(|k| kept().iter().find(|f| f.0 == k).map(|f| f.1.clone()))
        {
            return Some(found);
        }
        let ranks = 1..=self.by_rank.len() as u32;
        let scoring = ranks.filter(|&r| self.rank_scores_at_least(r, floor));
        let made = Arc::new(RoaringBitmap::from_sorted_iter(scoring).unwrap_or_default());
        if let Some(k) = key {
            let mut kept = kept();
            if kept.len() >= FLOORS_KEPT {
                kept.remove(0);
            }
            kept.push((k, made.clone()));
        }
        Some(made)
    }

    /// How many areas score at least `min`: a binary search over the distinct scores.
    pub fn count_scoring(&self, min: f64) -> i64 {
        let above = self.floors.partition_point(|&(score, _)| score >= min);
        above
            .checked_sub(1)
            .map_or(0, |i| i64::from(self.floors[i].1))
    }
}
