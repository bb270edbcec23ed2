//! A set of search ranks as forgiving search reads a word's matches
//! (search/query/forgiving_read.rs): the lists and bitmaps of all its terms
//! (search/matches/match_cache.rs), taken into one compressed bitmap as
//! they are read, for the set algebra of the tiers (search/query/forgiving.rs).

use roaring::RoaringBitmap;

use crate::search::matches::match_cache::Matches;

/// A set of search ranks.
#[derive(Default)]
pub struct Members(RoaringBitmap);

impl Members {
    pub fn add(&mut self, m: Matches) {
        self.0 |= matches_bitmap(&m);
    }

    pub fn add_ranks(&mut self, ranks: &[u32]) {
        self.0 |= ranks_bitmap(ranks);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn bitmap(&self) -> &RoaringBitmap {
        &self.0
    }
}

/// Kept matches as a bitmap: a word kept as bitmaps is copied a machine
/// word at a time, not bit by bit.
pub fn matches_bitmap(m: &Matches) -> RoaringBitmap {
    match m {
        Matches::List(ranks) => ranks_bitmap(ranks),
        Matches::Bits(b) => RoaringBitmap::from_lsb0_bytes(0, &b.by_rank.to_bytes()),
    }
}

/// Ranks as a bitmap; sorted ranks (as every list of matches is) are
/// appended, others inserted one by one.
pub fn ranks_bitmap(ranks: &[u32]) -> RoaringBitmap {
    RoaringBitmap::from_sorted_iter(ranks.iter().copied())
        .unwrap_or_else(|_| ranks.iter().copied().collect())
}
