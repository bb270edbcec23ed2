//! Large generated databases for benchmarks (`init --synthetic N [--history-days D]`).
//!
//! Every generated area is a copy of a real seed place: the same province
//! and municipality, a cell of a square grid near the place as its boundary
//! and the cell's centre as its centre (`Cells`), and a name and id derived
//! from the place's ("Soweto North 12", `soweto-north-12`). Provinces
//! get shares of N by fixed weights, Gauteng the largest, so the densest part
//! of the map is where the benchmark's geo searches look. Scores and history
//! are made exactly as for the seed (`seed::scores`, `seed::history`, keyed by
//! the generated id), so the same N and D always give the same database.

use std::collections::HashMap;
use std::path::Path;

use crate::data::boundary::Boundary;
use crate::data::error::DataError;
use crate::data::identity::{SYNTHETIC_SOURCE, Source};
use crate::data::load;
use crate::data::seed::{self, Place, Rng};
use crate::dates;

/// Each province's share of the generated areas. Gauteng is the densest; the
/// shares sum to 1.
const PROVINCE_WEIGHTS: [(&str, f64); 9] = [
    ("gauteng", 0.24),
    ("kwazulu-natal", 0.14),
    ("western-cape", 0.14),
    ("eastern-cape", 0.10),
    ("free-state", 0.08),
    ("limpopo", 0.08),
    ("mpumalanga", 0.08),
    ("north-west", 0.07),
    ("northern-cape", 0.07),
];

/// Name parts that tell the copies of one place apart. Single words without
/// hyphens, so `{place id}-{suffix}-{number}` can be read back from the right
/// and two different (place, copy) pairs never make the same id.
const SUFFIXES: [&str; 8] = [
    "North",
    "South",
    "East",
    "West",
    "Central",
    "Park",
    "Extension",
    "Gardens",
];

/// Every `OTHER_NAME_EVERY`-th copy gets an other name of 3 to 5 of these
/// syllables: a million areas hold some 250,000 words, as a gazetteer would.
const SYLLABLES: &str = "babebodadidukakekolalilumamemonaninupaperarisasetatituwayazi";
const OTHER_NAME_EVERY: usize = 3;

/// How far the copies of the place with the most may spread, in
/// kilometres, where places do not crowd each other: the grid's cells are
/// sized to it (`cell_deg`).
const SPREAD_KM: f64 = 6.0;
const KM_PER_DEGREE: f64 = 111.2;
/// The grid's smallest and largest cells, in degrees (about 110 m and 2.2 km).
const CELL_DEG_MIN: f64 = 0.001;
const CELL_DEG_MAX: f64 = 0.02;

/// One generated area, before scores: its place and how it differs from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Generated {
    pub id: String,
    pub name: String,
    /// Index into the places the generator was given.
    pub place: usize,
    pub lat: f64,
    pub lng: f64,
    pub other_names: Vec<String>,
    /// The grid cell: (min lng, min lat, max lng, max lat).
    pub cell: [f64; 4],
}

/// How many areas each province gets, in `PROVINCE_WEIGHTS` order: one each
/// first (when n allows), the rest by weight with largest remainders, ties to
/// the earlier (heavier) province.
pub fn province_counts(n: usize) -> [usize; 9] {
    let mut counts = [0usize; 9];
    let base = if n >= counts.len() { 1 } else { 0 };
    counts.iter_mut().for_each(|c| *c = base);
    let rest = n - base * counts.len();
    let shares: Vec<f64> = PROVINCE_WEIGHTS
        .iter()
        .map(|(_, w)| w * rest as f64)
        .collect();
    let mut given = 0;
    for (c, s) in counts.iter_mut().zip(&shares) {
        *c += s.floor() as usize;
        given += s.floor() as usize;
    }
    let mut by_remainder: Vec<usize> = (0..counts.len()).collect();
    by_remainder.sort_by(|&a, &b| {
        let frac = |i: usize| shares[i] - shares[i].floor();
        frac(b).total_cmp(&frac(a)).then(a.cmp(&b))
    });
    for &i in by_remainder.iter().take(rest - given) {
        counts[i] += 1;
    }
    counts
}

/// The n areas, sorted by id (the order `AreaWriter` needs). Within a province
/// the places take turns, so every place gets about the same number of copies.
pub fn generate(places: &[Place], n: usize) -> Result<Vec<Generated>, DataError> {
    let order = in_id_order(places, n)?;
    let cells = Cells::place(places, &order);
    let out: Vec<Generated> = order
        .into_iter()
        .map(|(place, k)| copy_of(&places[place as usize], place as usize, k as usize, &cells))
        .collect();
    if let Some(w) = out.windows(2).find(|w| w[0].id == w[1].id) {
        return Err(DataError::SharedId(w[0].id.clone()));
    }
    Ok(out)
}

/// Each copy's cell of one square grid (in degrees), so that no two
/// copies' boundaries overlap and each holds its centre. The copies of a
/// place take the free cells nearest the place's own, ring by ring around
/// it; the places take turns, one copy each, so that crowded neighbours
/// share the ground between them. Each place keeps its place in its rings
/// (`Cursor`): a cell once found taken is never looked at again by that
/// place, so the whole walk costs about the cells taken, not their square.
pub struct Cells {
    /// The side of a cell, in degrees.
    side: f64,
    /// Each place's copies' cells as (row, col), by copy number.
    of_place: Vec<Vec<(i32, i32)>>,
}

/// Where a place's walk through the rings of cells around its own stands:
/// ring `ring` (0 is its own cell), step `step` of the ring's 8·ring.
#[derive(Clone, Copy, Default)]
struct Cursor {
    ring: i32,
    step: i32,
}

impl Cursor {
    /// The cell's offset from the place's, as (rows, cols).
    fn offset(self) -> (i32, i32) {
        let (r, i) = (self.ring, self.step);
        let side = 2 * r;
        match i {
            _ if r == 0 => (0, 0),
            i if i < side => (-r, -r + i),
            i if i < 2 * side => (-r + (i - side), r),
            i if i < 3 * side => (r, r - (i - 2 * side)),
            i => (r - (i - 3 * side), -r),
        }
    }

    fn advance(&mut self) {
        self.step += 1;
        if self.step >= (8 * self.ring).max(1) {
            self.ring += 1;
            self.step = 0;
        }
    }
}

impl Cells {
    /// The cells of every copy in `order`, which holds each place's copies
    /// numbered from 0.
    pub fn place(places: &[Place], order: &[(u32, u32)]) -> Cells {
        let mut copies = vec![0usize; places.len()];
        for &(place, _) in order {
            copies[place as usize] += 1;
        }
        let side = cell_deg(copies.iter().copied().max().unwrap_or(0));
        let mut of_place: Vec<Vec<(i32, i32)>> =
            copies.iter().map(|&c| Vec::with_capacity(c)).collect();
        let mut cursors = vec![Cursor::default(); places.len()];
        let mut taken: std::collections::HashSet<(i32, i32)> =
            std::collections::HashSet::with_capacity(order.len());
        let home: Vec<(i32, i32)> = places
            .iter()
            .map(|p| ((p.lat / side).floor() as i32, (p.lng / side).floor() as i32))
            .collect();
        let most = copies.iter().copied().max().unwrap_or(0);
        for k in 0..most {
            for p in 0..places.len() {
                if k >= copies[p] {
                    continue;
                }
                let cursor = &mut cursors[p];
                loop {
                    let (dr, dc) = cursor.offset();
                    let cell = (home[p].0 + dr, home[p].1 + dc);
                    cursor.advance();
                    if taken.insert(cell) {
                        of_place[p].push(cell);
                        break;
                    }
                }
            }
        }
        Cells { side, of_place }
    }

    /// The k-th copy of place `p`'s cell as (min lng, min lat, max lng,
    /// max lat), and its centre as (lat, lng), each to five decimals (the
    /// side is a multiple of 0.00002°, so the centre is exact too).
    fn of(&self, p: usize, k: usize) -> ([f64; 4], (f64, f64)) {
        let (row, col) = self.of_place[p][k];
        let round5 = |x: f64| (x * 1e5).round() / 1e5;
        let at = |i: i32| round5(f64::from(i) * self.side);
        let cell = [at(col), at(row), at(col + 1), at(row + 1)];
        let centre = (
            round5((f64::from(row) + 0.5) * self.side),
            round5((f64::from(col) + 0.5) * self.side),
        );
        (cell, centre)
    }
}

/// The side of a cell, in degrees, for the place with the most copies:
/// those copies then cover about a disc of SPREAD_KM, as far as crowding
/// neighbours leave room; a multiple of 0.00002° (see `Cells::of`).
fn cell_deg(most_copies: usize) -> f64 {
    let disc_km2 = std::f64::consts::PI * SPREAD_KM * SPREAD_KM;
    let side_km = (disc_km2 / most_copies.max(1) as f64).sqrt();
    let side = (side_km / KM_PER_DEGREE).clamp(CELL_DEG_MIN, CELL_DEG_MAX);
    (side / 0.00002).round() * 0.00002
}

/// The n areas as (place index, copy number), sorted by the id each makes:
/// 8 bytes an area rather than its strings, so that a million fit in 8 MB
/// (docs/import.md, "Memory"); `copy_of` makes each area when it is written.
fn in_id_order(places: &[Place], n: usize) -> Result<Vec<(u32, u32)>, DataError> {
    let mut by_province: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, p) in places.iter().enumerate() {
        by_province
            .entry(p.province_slug.as_str())
            .or_default()
            .push(i);
    }
    let mut out = Vec::with_capacity(n);
    for ((slug, _), count) in PROVINCE_WEIGHTS.iter().zip(province_counts(n)) {
        let mut members = by_province
            .get(slug)
            .cloned()
            .ok_or(DataError::NoSeedPlace(slug))?;
        // Seed order is not id order in every source; take turns in id order.
        members.sort_by(|&a, &b| places[a].id.cmp(&places[b].id));
        for j in 0..count {
            let place = members[j % members.len()];
            out.push((place as u32, (j / members.len()) as u32));
        }
    }
    let (mut a, mut b) = (IdBuf::default(), IdBuf::default());
    out.sort_unstable_by(|x, y| {
        let x = a.write(&places[x.0 as usize], x.1 as usize);
        let y = b.write(&places[y.0 as usize], y.1 as usize);
        x.cmp(y)
    });
    Ok(out)
}

/// Room for one generated id, written without allocating: a seed id of at
/// most 64 characters, a suffix and a number.
struct IdBuf([u8; 96]);

impl Default for IdBuf {
    fn default() -> IdBuf {
        IdBuf([0; 96])
    }
}

impl IdBuf {
    /// The id of the k-th copy of `p`, as `copy_of` makes it.
    fn write(&mut self, p: &Place, k: usize) -> &[u8] {
        use std::io::Write;
        let (suffix, number) = suffix_and_number(k);
        let mut rest = &mut self.0[..];
        let room = rest.len();
        write!(rest, "{}-{}-{number}", p.id, suffix.to_ascii_lowercase())
            .expect("a generated id fits in 96 bytes");
        let used = room - rest.len();
        &self.0[..used]
    }
}

fn suffix_and_number(k: usize) -> (&'static str, usize) {
    (SUFFIXES[k % SUFFIXES.len()], k / SUFFIXES.len() + 1)
}

/// A made-up one-word name, capitalised.
fn made_up_name(rng: &mut Rng) -> String {
    let word: String = (0..3 + rng.below(3))
        .map(|_| 2 * rng.below(SYLLABLES.len() / 2))
        .map(|at| &SYLLABLES[at..at + 2])
        .collect();
    word[..1].to_ascii_uppercase() + &word[1..]
}

/// The k-th copy of a place: a name and id from k, its cell and centre.
fn copy_of(p: &Place, index: usize, k: usize, cells: &Cells) -> Generated {
    let (suffix, number) = suffix_and_number(k);
    let id = format!("{}-{}-{number}", p.id, suffix.to_ascii_lowercase());
    let mut rng = Rng::from_text(&format!("{id}/place"));
    let other_names = k
        .is_multiple_of(OTHER_NAME_EVERY)
        .then(|| made_up_name(&mut rng));
    let (cell, (lat, lng)) = cells.of(index, k);
    Generated {
        name: format!("{} {suffix} {number}", p.name),
        other_names: other_names.into_iter().collect(),
        id,
        place: index,
        lat,
        lng,
        cell,
    }
}

/// `area-scoring init --synthetic N --history-days D`: writes the generated
/// areas through the same path as the seed (`load::create_database`),
/// recording no hash: the flags say what was generated.
pub fn init(path: &Path, force: bool, areas: usize, history_days: usize) -> Result<i64, DataError> {
    let places = seed::read_places(seed::SEED_CSV)?;
    let order = in_id_order(&places, areas)?;
    let cells = Cells::place(&places, &order);
    let today = dates::today();
    let source = Source {
        read_with: format!("--synthetic {areas} --history-days {history_days}"),
        ..Source::unhashed(SYNTHETIC_SOURCE)
    };
    load::create_database(path, force, &source, |writer| {
        for &(place, k) in &order {
            let p = &places[place as usize];
            let g = copy_of(p, place as usize, k as usize, &cells);
            let area = Place {
                id: g.id.clone(),
                name: g.name.clone(),
                lat: g.lat,
                lng: g.lng,
                other_names: g.other_names.clone(),
                ..p.clone()
            };
            let boundary = Boundary::rectangle(g.cell);
            writer.add_place(&area, history_days, today, Some(&boundary))?;
        }
        Ok(())
    })
}

#[cfg(test)]
#[path = "synthetic_tests.rs"]
mod tests;
