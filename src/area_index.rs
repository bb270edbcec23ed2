//! What the server keeps in memory about every area: position, truth_score and
//! name length, read once when a dataset is opened (the data never changes
//! while it is served).
//!
//! Geo search narrows by bounding box, by binary search on a latitude-sorted
//! array and a longitude check, then keeps the areas within the radius by the
//! haversine rule (decided by a chord test, see geo::Disc) and the k nearest
//! in a bounded heap. Measured at 100,000 areas, the same search through
//! SQLite's R*Tree (one row fetched per candidate) took 75-107 ms for a 50 km
//! circle around Johannesburg; here it touches only the latitude band, and
//! pays for trigonometry only near the edge and for the few nearest.
//! Text search uses the index to filter and rank FTS5 matches without reading
//! their rows.

use std::collections::BinaryHeap;

use rusqlite::Connection;

use crate::geo::{Disc, bounding_box, surely_greater, unit_vector};

/// What search reads of one area.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entry {
    /// The position on the unit sphere, for chord tests without trigonometry.
    pub unit: [f64; 3],
    pub lat: f64,
    pub lng: f64,
    pub truth_score: f64,
    pub area_no: u32,
    /// Characters in the name: shorter names rank first among text matches.
    pub name_chars: u32,
}

/// An area inside a circle: its area_no and exact distance from the centre.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub area_no: i64,
    pub distance_km: f64,
}

/// The areas in a circle: how many, and the nearest few.
#[derive(Debug, PartialEq)]
pub struct Nearest {
    pub total: usize,
    /// By distance, then area_no.
    pub hits: Vec<Hit>,
}

pub struct AreaIndex {
    /// Every area in latitude order: a circle search reads one latitude band
    /// sequentially, not a random lookup per candidate.
    by_lat: Vec<Entry>,
    /// For each area_no, its place in `by_lat` (u32::MAX for a gap).
    slot: Vec<u32>,
    /// The area_no of each search rank (the full-text index's rowid), from 1.
    by_rank: Vec<u32>,
}

/// In latitude order, read off the covering index areas_by_position (schema.sql).
const EVERY_AREA: &str = "SELECT area_no, lat, lng, truth_score, length(name) FROM areas ORDER BY lat, lng, truth_score, length(name)";

/// Search ranks in order; rank is dense from 1 (load.rs derive).
const RANKS: &str = "SELECT area_no FROM search_rank ORDER BY rank";

const NO_SLOT: u32 = u32::MAX;

impl AreaIndex {
    pub fn load(conn: &Connection) -> rusqlite::Result<AreaIndex> {
        let mut stmt = conn.prepare(EVERY_AREA)?;
        let mut rows = stmt.query([])?;
        let mut areas = Vec::new();
        while let Some(r) = rows.next()? {
            areas.push((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?));
        }
        let by_rank = conn
            .prepare(RANKS)?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(AreaIndex::new(areas, by_rank))
    }

    /// From (area_no, lat, lng, truth_score, name_chars), in any order, and
    /// the area_no of each search rank from 1.
    pub fn new(areas: Vec<(u32, f64, f64, f64, u32)>, by_rank: Vec<u32>) -> AreaIndex {
        let mut by_lat: Vec<Entry> = areas
            .into_iter()
            .map(|(area_no, lat, lng, truth_score, name_chars)| Entry {
                unit: unit_vector(lat, lng),
                lat,
                lng,
                truth_score,
                area_no,
                name_chars,
            })
            .collect();
        by_lat.sort_by(|a, b| a.lat.total_cmp(&b.lat));
        let top = by_lat.iter().map(|e| e.area_no as usize).max().unwrap_or(0);
        let mut slot = vec![NO_SLOT; top + 1];
        for (i, e) in by_lat.iter().enumerate() {
            slot[e.area_no as usize] = i as u32;
        }
        AreaIndex {
            by_lat,
            slot,
            by_rank,
        }
    }

    /// The area_no with a search rank, if there is one.
    pub fn area_of_rank(&self, rank: i64) -> Option<i64> {
        let i = usize::try_from(rank).ok()?.checked_sub(1)?;
        self.by_rank.get(i).map(|&no| no as i64)
    }

    pub fn get(&self, area_no: i64) -> Option<&Entry> {
        let i = *usize::try_from(area_no)
            .ok()
            .and_then(|i| self.slot.get(i))?;
        self.by_lat.get(i as usize)
    }

    /// How many areas score at least `min`.
    pub fn count_scoring(&self, min: f64) -> i64 {
        self.by_lat.iter().filter(|e| e.truth_score >= min).count() as i64
    }

    /// Counts the areas within the disc scoring at least `min_score` (all but
    /// `skip`), and keeps the `k` nearest. A candidate pays for the haversine
    /// only when the chord cannot settle it: near the edge, or when it may
    /// enter the bounded heap of the k nearest so far.
    pub fn nearest(&self, disc: &Disc, min_score: f64, k: usize, skip: Option<i64>) -> Nearest {
        let b = bounding_box(&disc.circle);
        let start = self.by_lat.partition_point(|e| e.lat < b.min_lat);
        let end = self.by_lat.partition_point(|e| e.lat <= b.max_lat);
        let mut total = 0;
        // Max-heap on (distance, area_no): its top is the farthest kept.
        let mut kept: BinaryHeap<Kept> = BinaryHeap::with_capacity(k + 1);
        for e in &self.by_lat[start..end.max(start)] {
            if e.lng < b.min_lng
                || e.lng > b.max_lng
                || e.truth_score < min_score
                || skip == Some(e.area_no as i64)
                || !disc.contains(&e.unit, e.lat, e.lng)
            {
                continue;
            }
            total += 1;
            let c2 = crate::geo::chord2(&disc.centre, &e.unit);
            if kept.len() == k {
                match kept.peek() {
                    Some(far) if !surely_greater(c2, far.chord2) => {}
                    _ => continue,
                }
            }
            let candidate = Kept {
                distance_km: disc.distance_km(e.lat, e.lng),
                area_no: e.area_no,
                chord2: c2,
            };
            if kept.len() < k {
                kept.push(candidate);
            } else if let Some(mut far) = kept.peek_mut()
                && candidate < *far
            {
                *far = candidate;
            }
        }
        let hits = kept
            .into_sorted_vec()
            .into_iter()
            .map(|h| Hit {
                area_no: h.area_no as i64,
                distance_km: h.distance_km,
            })
            .collect();
        Nearest { total, hits }
    }
}

/// A hit in the bounded heap, ordered by exact distance then area_no (the
/// order clients see); its chord lets later candidates skip the haversine.
#[derive(Debug, Clone, Copy)]
struct Kept {
    distance_km: f64,
    area_no: u32,
    chord2: f64,
}

impl Ord for Kept {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.distance_km
            .total_cmp(&other.distance_km)
            .then(self.area_no.cmp(&other.area_no))
    }
}

impl PartialOrd for Kept {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Kept {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Kept {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geo::haversine_km;
    use crate::params::Circle;

    fn grid() -> Vec<(f64, f64, f64)> {
        let mut points = Vec::new();
        for i in 0..40 {
            for j in 0..40 {
                points.push((
                    -27.0 + i as f64 * 0.05,
                    27.5 + j as f64 * 0.05,
                    (i + j) as f64 % 10.0,
                ));
            }
        }
        points
    }

    fn index(points: &[(f64, f64, f64)]) -> AreaIndex {
        AreaIndex::new(
            points
                .iter()
                .enumerate()
                .map(|(i, &(lat, lng, s))| (i as u32 + 1, lat, lng, s, 5))
                .collect(),
            vec![3, 1, 2],
        )
    }

    /// The brute-force answer: every point within the circle by haversine,
    /// nearest first, ties by area_no.
    fn brute(points: &[(f64, f64, f64)], c: &Circle, min: f64, skip: Option<i64>) -> Vec<Hit> {
        let mut hits: Vec<Hit> = points
            .iter()
            .enumerate()
            .map(|(i, p)| (i as i64 + 1, p))
            .filter(|(no, p)| p.2 >= min && Some(*no) != skip)
            .map(|(no, p)| Hit {
                area_no: no,
                distance_km: haversine_km(c.lat, c.lng, p.0, p.1),
            })
            .filter(|h| h.distance_km <= c.radius_km)
            .collect();
        hits.sort_by(|a, b| {
            a.distance_km
                .total_cmp(&b.distance_km)
                .then(a.area_no.cmp(&b.area_no))
        });
        hits
    }

    #[test]
    fn nearest_matches_brute_force_haversine() {
        let points = grid();
        let idx = index(&points);
        for (c, min, k, skip) in [
            (
                Circle {
                    lat: -26.2,
                    lng: 28.0,
                    radius_km: 30.0,
                },
                3.0,
                10,
                None,
            ),
            // A centre on a grid point: equal distances, decided by area_no.
            (
                Circle {
                    lat: -26.5,
                    lng: 28.5,
                    radius_km: 50.0,
                },
                0.0,
                25,
                Some(421),
            ),
            (
                Circle {
                    lat: -26.5,
                    lng: 28.5,
                    radius_km: 5.56,
                },
                0.0,
                1000,
                None,
            ),
            (
                Circle {
                    lat: -26.2,
                    lng: 28.0,
                    radius_km: 30.0,
                },
                0.0,
                0,
                None,
            ),
        ] {
            let want = brute(&points, &c, min, skip);
            let got = idx.nearest(&Disc::new(c), min, k, skip);
            assert!(!want.is_empty());
            assert_eq!(got.total, want.len(), "{c:?}");
            assert_eq!(got.hits, want[..k.min(want.len())], "{c:?}");
        }
        assert_eq!(
            idx.count_scoring(9.0),
            points.iter().filter(|p| p.2 >= 9.0).count() as i64
        );
        assert_eq!(idx.get(7).map(|e| e.lat), Some(points[6].0));
        assert!(idx.get(0).is_none() && idx.get(1601).is_none() && idx.get(-1).is_none());
        assert_eq!(idx.area_of_rank(1), Some(3));
        assert_eq!(idx.area_of_rank(3), Some(2));
        assert_eq!((idx.area_of_rank(0), idx.area_of_rank(4)), (None, None));
    }
}
