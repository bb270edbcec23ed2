//! The areas the equivalence test (equivalence_tests.rs) searches:
//! generated places in clusters in South Africa, at both poles and astride
//! the antimeridian, in four provinces (none in Limpopo), written to a
//! database with stored word sets, and read back with what brute force needs.

use rusqlite::{Connection, OpenFlags};

use crate::data::seed::Place;
use crate::search::index::test_points::Lcg;

const BASES: [&str; 8] = [
    "West",
    "Westbury",
    "North",
    "Parkhurst",
    "Ezulwini",
    "Cape",
    "Eastwood",
    "Central",
];
const SUFFIXES: [&str; 6] = ["Park", "Extension", "West", "Gardens", "North", ""];
/// Municipality, province slug, province.
const MUNICIPALITIES: [(&str, &str, &str); 4] = [
    ("City of West Rand", "gauteng", "Gauteng"),
    (
        "Cape Coast District Municipality",
        "western-cape",
        "Western Cape",
    ),
    ("North Park Municipality", "north-west", "North West"),
    ("Ezulwini Municipality", "kwazulu-natal", "KwaZulu-Natal"),
];
pub const CENTRES: [(f64, f64); 7] = [
    (-26.2, 28.05),
    (-33.9, 18.4),
    (0.0, 179.95),
    (-16.5, -179.9),
    (-89.9, 10.0),
    (89.95, -40.0),
    (45.0, 0.0),
];
pub const AREAS: usize = 2100;

pub struct Area {
    pub no: i64,
    pub id: String,
    pub text: [String; 3],
    pub lat: f64,
    pub lng: f64,
    pub score: f64,
    pub rank: i64,
    pub province_slug: String,
}

/// The generated places, ids in order (the writer takes them sorted).
fn places() -> Vec<Place> {
    let mut rng = Lcg(20261123);
    (0..AREAS)
        .map(|i| {
            let (clat, clng) = CENTRES[i % CENTRES.len()];
            let (m, slug, province) = MUNICIPALITIES[(rng.unit() * 4.0) as usize % 4];
            let base = BASES[(rng.unit() * 8.0) as usize % 8];
            let suffix = SUFFIXES[(rng.unit() * 6.0) as usize % 6];
            let name = format!("{base} {suffix} {}", 1 + (rng.unit() * 30.0) as usize);
            // A few exactly on a pole or the antimeridian.
            let (lat, lng) = match i % 97 {
                0 => (90.0, 0.0),
                1 => (-90.0, 0.0),
                2 => (0.0, 180.0),
                3 => (0.0, -180.0),
                _ => {
                    let lat = (clat + (rng.unit() - 0.5) * 1.2).clamp(-90.0, 90.0);
                    let lng = clng + (rng.unit() - 0.5) * 1.2;
                    (lat, (lng + 540.0).rem_euclid(360.0) - 180.0)
                }
            };
            Place {
                id: format!("a{i:05}"),
                name: name.split_whitespace().collect::<Vec<_>>().join(" "),
                province_slug: slug.into(),
                province: province.into(),
                municipality: m.into(),
                lat: (lat * 1e5).round() / 1e5,
                lng: (lng * 1e5).round() / 1e5,
                other_names: Vec::new(),
            }
        })
        .collect()
}

/// A database of the generated places, in a folder the caller removes.
pub fn database() -> (std::path::PathBuf, Connection) {
    let dir = std::env::temp_dir().join(format!("area-scoring-equiv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("equiv.db");
    let places = places();
    crate::data::load::of_places(&path, &places);
    // Stored sets from 8 matches up, so that lists are stored beside bitmaps.
    crate::search::matches::word_store::rewrite(&Connection::open(&path).unwrap(), 8).unwrap();
    let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    (dir, conn)
}

pub fn every_area(conn: &Connection) -> Vec<Area> {
    let sql = "SELECT a.area_no, a.id, a.name, a.municipality, a.province, a.lat, a.lng,
                      a.truth_score, r.rank, a.province_slug
               FROM areas a JOIN search_rank r ON r.area_no = a.area_no";
    let mut stmt = conn.prepare(sql).unwrap();
    stmt.query_map([], |r| {
        Ok(Area {
            no: r.get(0)?,
            id: r.get(1)?,
            text: [r.get(2)?, r.get(3)?, r.get(4)?],
            lat: r.get(5)?,
            lng: r.get(6)?,
            score: r.get(7)?,
            rank: r.get(8)?,
            province_slug: r.get(9)?,
        })
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}
