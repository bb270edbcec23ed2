//! An area found in a circle search (`Hit`, which circles/ hands out), and
//! the k nearest found so far, kept in the order clients see them: by
//! distance, then by area_no.

use std::collections::BinaryHeap;

use crate::search::index::geo::{Disc, chord2_to32, surely_greater};
use crate::search::index::grid::Entry;

/// An area inside a circle: its area_no and exact distance from the centre.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub area_no: i64,
    pub distance_km: f64,
}

/// The k nearest so far: a max-heap on (distance, area_no), the order clients
/// see. A candidate whose chord is surely longer than the farthest kept one's
/// is refused without computing its haversine distance.
pub struct Kept {
    k: usize,
    heap: BinaryHeap<Candidate>,
}

#[derive(Debug, Clone, Copy)]
struct Candidate {
    distance_km: f64,
    area_no: u32,
    chord2: f64,
}

/// Candidates room is made for at once: a page's worth and more.
const PREALLOCATED: usize = 1024;

impl Kept {
    pub fn new(k: usize) -> Kept {
        Kept {
            k,
            // A deep page asks for k up to the number of areas; the heap
            // grows only with the areas a circle really holds.
            heap: BinaryHeap::with_capacity(k.min(PREALLOCATED) + 1),
        }
    }

    /// The chord² of the farthest kept area, once k are kept.
    pub fn farthest(&self) -> Option<f64> {
        (self.heap.len() == self.k)
            .then(|| self.heap.peek().map(|c| c.chord2))
            .flatten()
    }

    pub fn offer(&mut self, disc: &Disc, e: &Entry) {
        if self.k == 0 {
            return;
        }
        // The chord from a single-precision vector is off by up to `err`:
        // an area is passed over only when surely farther than the farthest
        // kept, which keeps the highest squared chord it may have.
        let (c2, err) = chord2_to32(&disc.centre, &e.unit);
        if self
            .farthest()
            .is_some_and(|far| surely_greater(c2 - err, far))
        {
            return;
        }
        let candidate = Candidate {
            distance_km: disc.distance_km(e.lat, e.lng),
            area_no: e.area_no,
            chord2: c2 + err,
        };
        if self.heap.len() < self.k {
            self.heap.push(candidate);
        } else if let Some(mut far) = self.heap.peek_mut()
            && candidate < *far
        {
            *far = candidate;
        }
    }

    pub fn into_hits(self) -> Vec<Hit> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|c| Hit {
                area_no: i64::from(c.area_no),
                distance_km: c.distance_km,
            })
            .collect()
    }
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.distance_km
            .total_cmp(&other.distance_km)
            .then(self.area_no.cmp(&other.area_no))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Candidate {}
