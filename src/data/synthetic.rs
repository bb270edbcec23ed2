//! Large generated databases for benchmarks (`init --synthetic N [--history-days D]`).
//!
//! Every generated area is a jittered copy of a real seed place: the same
//! province and municipality, a point a few kilometres away, and a name and id
//! derived from the place's ("Soweto North 12", `soweto-north-12`). Provinces
//! get shares of N by fixed weights, Gauteng the largest, so the densest part
//! of the map is where the benchmark's geo searches look. Scores and history
//! are made exactly as for the seed (`seed::scores`, `seed::history`, keyed by
//! the generated id), so the same N and D always give the same database.

use std::collections::HashMap;
use std::path::Path;

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

/// How far a copy may sit from its place, in kilometres.
const JITTER_KM: f64 = 6.0;
const KM_PER_DEGREE: f64 = 111.2;

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
    let out: Vec<Generated> = in_id_order(places, n)?
        .into_iter()
        .map(|(place, k)| copy_of(&places[place as usize], place as usize, k as usize))
        .collect();
    if let Some(w) = out.windows(2).find(|w| w[0].id == w[1].id) {
        return Err(DataError::SharedId(w[0].id.clone()));
    }
    Ok(out)
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

/// The k-th copy of a place: a name and id from k, a point within JITTER_KM.
fn copy_of(p: &Place, index: usize, k: usize) -> Generated {
    let (suffix, number) = suffix_and_number(k);
    let id = format!("{}-{}-{number}", p.id, suffix.to_ascii_lowercase());
    let mut rng = Rng::from_text(&format!("{id}/place"));
    // sqrt spreads the points evenly over the disc rather than bunching them at its centre.
    let distance = JITTER_KM * rng.unit().sqrt();
    let angle = rng.unit() * std::f64::consts::TAU;
    let dlat = distance * angle.cos() / KM_PER_DEGREE;
    let dlng = distance * angle.sin() / (KM_PER_DEGREE * p.lat.to_radians().cos());
    // Five decimals, like the seed's coordinates.
    let round5 = |x: f64| (x * 1e5).round() / 1e5;
    let other_names = k
        .is_multiple_of(OTHER_NAME_EVERY)
        .then(|| made_up_name(&mut rng));
    Generated {
        name: format!("{} {suffix} {number}", p.name),
        other_names: other_names.into_iter().collect(),
        id,
        place: index,
        lat: round5((p.lat + dlat).clamp(-90.0, 90.0)),
        lng: round5((p.lng + dlng).clamp(-180.0, 180.0)),
    }
}

/// `area-scoring init --synthetic N --history-days D`: writes the generated
/// areas through the same path as the seed (`load::create_database`),
/// recording no hash: the flags say what was generated.
pub fn init(path: &Path, force: bool, areas: usize, history_days: usize) -> Result<i64, DataError> {
    let places = seed::read_places(seed::SEED_CSV)?;
    let order = in_id_order(&places, areas)?;
    let today = dates::today();
    let source = Source {
        read_with: format!("--synthetic {areas} --history-days {history_days}"),
        ..Source::unhashed(SYNTHETIC_SOURCE)
    };
    load::create_database(path, force, &source, |writer| {
        for &(place, k) in &order {
            let p = &places[place as usize];
            let g = copy_of(p, place as usize, k as usize);
            let area = Place {
                id: g.id.clone(),
                name: g.name.clone(),
                lat: g.lat,
                lng: g.lng,
                other_names: g.other_names.clone(),
                ..p.clone()
            };
            writer.add_with_synthetic_scores(&area, history_days, today)?;
        }
        Ok(())
    })
}

#[cfg(test)]
#[path = "synthetic_tests.rs"]
mod tests;
