//! Forgiving search against brute force over every area
//! (tests/common/forgiving.rs): 20,000 areas named after the seed's places,
//! with their other names and made-up ones, searched with words taken from
//! an area and then misspelt, joined, split or cut short, alone and with a
//! province, a score floor or a circle. Every tier's members, their order
//! and `total` must agree, with nothing kept, with every list kept, and
//! with the stored sets.

use super::*;
use crate::api::area_no;
use crate::api::params::SearchParams;
use crate::api::search::search_with;
use crate::data::seed::{self, Place};
use crate::search::forgiving_reference::{Field, fields, order_key};
use crate::search::index::AreaIndex;
use crate::search::index::geo::{Circle, haversine_km};
use crate::search::index::test_points::Lcg;
use crate::search::matches::match_cache::MatchCache;
use crate::search::query::filter::Masking;
use crate::search::query::text as search_text;
use crate::search::query::tier::Matching;
use crate::search::words::vocabulary::Vocabulary;

const AREAS: usize = 20_000;
const SEARCHES: usize = 160;
const SUFFIXES: [&str; 5] = ["North", "South", "Park", "Extension", "Gardens"];
const SYLLABLES: [&str; 12] = [
    "ka", "lo", "ma", "bi", "tse", "ni", "ra", "vu", "de", "po", "shi", "we",
];

/// A made-up one-word other name.
fn made_up(rng: &mut Lcg) -> String {
    let n = 3 + (rng.unit() * 2.0) as usize;
    let word: String = (0..n)
        .map(|_| SYLLABLES[pick(rng, SYLLABLES.len())])
        .collect();
    let mut c = word.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

fn pick(rng: &mut Lcg, n: usize) -> usize {
    (rng.unit() * n as f64) as usize % n
}

fn places() -> Vec<Place> {
    let seed = seed::seed_places().unwrap();
    let mut rng = Lcg(3);
    (0..AREAS)
        .map(|i| {
            let p = &seed[i % seed.len()];
            let copy = i / seed.len();
            let (name, mut other_names) = if copy == 0 {
                (p.name.clone(), p.other_names.clone())
            } else {
                (
                    format!("{} {} {copy}", p.name, SUFFIXES[copy % SUFFIXES.len()]),
                    Vec::new(),
                )
            };
            if i % 3 == 1 {
                other_names.push(made_up(&mut rng));
            }
            Place {
                id: format!("a{i:05}"),
                name,
                lat: p.lat + (rng.unit() - 0.5) * 0.1,
                lng: p.lng + (rng.unit() - 0.5) * 0.1,
                other_names,
                ..p.clone()
            }
        })
        .collect()
}

struct Area {
    no: i64,
    rank: i64,
    province_slug: String,
    score: f64,
    lat: f64,
    lng: f64,
    fields: Vec<Field>,
}

fn every_area(conn: &Connection) -> Vec<Area> {
    let sql = "SELECT a.area_no, r.rank, a.province_slug, a.truth_score, a.lat, a.lng,
                      a.name, a.municipality, a.province,
                      (SELECT group_concat(name, char(10)) FROM
                         (SELECT name FROM area_other_names o WHERE o.area_no = a.area_no ORDER BY position))
               FROM areas a JOIN search_rank r ON r.area_no = a.area_no";
    let mut stmt = conn.prepare(sql).unwrap();
    stmt.query_map([], |r| {
        let others: Option<String> = r.get(9)?;
        let others: Vec<String> = others
            .map(|o| o.lines().map(String::from).collect())
            .unwrap_or_default();
        let main: [String; 3] = [r.get(6)?, r.get(7)?, r.get(8)?];
        Ok(Area {
            no: r.get(0)?,
            rank: r.get(1)?,
            province_slug: r.get(2)?,
            score: r.get(3)?,
            lat: r.get(4)?,
            lng: r.get(5)?,
            fields: fields([&main[0], &main[1], &main[2]], &others),
        })
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// Words as someone might type them for `a`: some of its words (from its
/// name, an other name or its municipality), then misspelt, joined, split
/// or cut short.
fn typed(rng: &mut Lcg, a: &Area) -> Vec<String> {
    let from: Vec<&Field> = a.fields.iter().filter(|f| !f.words.is_empty()).collect();
    // The name most often, an other name when there is one, else any text.
    let other = from.iter().position(|f| f.other);
    let f = match (rng.unit(), other) {
        (u, _) if u < 0.4 => from[0],
        (u, Some(o)) if u < 0.8 => from[o],
        _ => from[pick(rng, from.len())],
    };
    let start = pick(rng, f.words.len());
    let len = 1 + pick(rng, 2.min(f.words.len() - start));
    let mut words: Vec<String> = f.words[start..start + len].to_vec();
    for _ in 0..pick(rng, 3) {
        let i = pick(rng, words.len());
        words[i] = misspelt(rng, &words[i]);
    }
    match pick(rng, 6) {
        0 if words.len() >= 2 => {
            let second = words.remove(1);
            words[0].push_str(&second);
        }
        1 if words[0].len() >= 4 => {
            let at = 2 + pick(rng, words[0].len() - 3);
            let right = words[0].split_off(at);
            words.insert(1, right);
        }
        2 => {
            let last = words.last_mut().unwrap();
            let keep = 1 + pick(rng, last.len());
            last.truncate(keep);
        }
        _ => {}
    }
    words.retain(|w| !w.is_empty());
    if words.is_empty() {
        vec!["x".into()]
    } else {
        words
    }
}

/// One random edit: a letter added, dropped, changed, or two swapped.
fn misspelt(rng: &mut Lcg, word: &str) -> String {
    let mut b = word.as_bytes().to_vec();
    let i = pick(rng, b.len().max(1));
    let letter = b"aeinorstuw"[pick(rng, 10)];
    match pick(rng, 4) {
        0 => b.insert(i, letter),
        1 if b.len() > 1 => {
            b.remove(i);
        }
        2 if i + 1 < b.len() => b.swap(i, i + 1),
        _ if !b.is_empty() => b[i] = letter,
        _ => {}
    }
    String::from_utf8(b).unwrap_or_else(|_| word.to_string())
}

fn params(rng: &mut Lcg, areas: &[Area], a: &Area, words: Vec<String>) -> SearchParams {
    let mut p = SearchParams {
        words,
        circle: None,
        min_score: None,
        bbox: None,
        province: None,
        limit: [3, 10, 50][pick(rng, 3)],
        offset: [0, 0, 2, 7][pick(rng, 4)],
        format: None,
        geometry: Default::default(),
        matching: Matching::Forgiving,
    };
    match pick(rng, 5) {
        0 => {
            p.province = crate::domain::PROVINCES
                .iter()
                .map(|(s, _)| *s)
                .find(|s| *s == a.province_slug)
        }
        1 => p.min_score = Some(areas[pick(rng, areas.len())].score),
        2 => {
            p.circle = Some(Circle {
                lat: a.lat,
                lng: a.lng,
                radius_km: 20.0,
            })
        }
        _ => {}
    }
    p
}

/// The whole answer by brute force: the area_no in order, and the total.
fn brute_force(areas: &[Area], p: &SearchParams) -> (Vec<i64>, usize) {
    let mut found: Vec<((u8, bool), i64, i64)> = areas
        .iter()
        .filter(|a| p.province.is_none_or(|s| s == a.province_slug))
        .filter(|a| p.min_score.is_none_or(|m| a.score >= m))
        .filter(|a| {
            p.circle
                .is_none_or(|c| haversine_km(c.lat, c.lng, a.lat, a.lng) <= c.radius_km)
        })
        .filter_map(|a| order_key(&a.fields, &p.words).map(|k| (k, a.rank, a.no)))
        .collect();
    found.sort();
    let page = found
        .iter()
        .skip(p.offset as usize)
        .take(p.limit as usize)
        .map(|f| f.2)
        .collect();
    (page, found.len())
}

#[test]
fn every_forgiving_search_equals_brute_force_over_every_area() {
    let dir = std::env::temp_dir().join(format!("area-scoring-forgiving-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("forgiving.db");
    let places = places();
    crate::data::load::of_places(&path, &places);
    let conn =
        Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let areas = every_area(&conn);
    let index = AreaIndex::load(&conn).unwrap();
    let vocabulary = Vocabulary::read(&conn).unwrap();
    let caches = [
        MatchCache::keeping_nothing(),
        MatchCache::new(1),
        MatchCache::for_areas(AREAS).with_stored_sets(true),
    ];
    let mut rng = Lcg(17);
    let mut tiers_seen = [0usize; 5];
    for i in 0..SEARCHES {
        let a = &areas[pick(&mut rng, areas.len())];
        let words = typed(&mut rng, a);
        let p = params(&mut rng, &areas, a, words);
        let (want, total) = brute_force(&areas, &p);
        // Matches admitted one by one, or through the shape's mask.
        let masking = [Masking::ByCost, Masking::Always, Masking::Never][(i / 3) % 3];
        for matches in &caches[i % 2..] {
            let data = Searchable {
                index: &index,
                matches,
                vocabulary: &vocabulary,
            };
            let got =
                search_with(&conn, &data, &p, (search_text::COLLECT_AT_MOST, masking)).unwrap();
            let ids: Vec<i64> = got
                .data
                .iter()
                .map(|s| area_no(&conn, &s.id).unwrap().unwrap())
                .collect();
            assert_eq!((ids, got.total as usize), (want.clone(), total), "{p:?}");
        }
        if let Some((t, _)) = order_key(&a.fields, &p.words) {
            tiers_seen[t as usize] += 1;
        }
    }
    // The searches reached every tier, so each was compared.
    assert!(tiers_seen[1..].iter().all(|&n| n >= 3), "{tiers_seen:?}");
    std::fs::remove_dir_all(dir).unwrap();
}
