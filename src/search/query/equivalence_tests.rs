//! Search against brute force over every area: random searches with every
//! combination of q, lat/lng/radius, bbox, min_score and province, on areas generated
//! for it (clusters in South Africa, at both poles and astride the
//! antimeridian; ASCII names, so that FTS5's tokenizer is plain to
//! reproduce), compared on `data` (ids, and distances), `total` and order.
//! Each search runs with no word list kept, with every list kept (bitmaps
//! included), and with the bitmap path walking the lists instead of
//! collecting from the bitmaps, and with the words' matches read from the
//! sets the file stores (lists and bitmaps); lists are tested against the
//! shape's mask always, never, and when it pays; so every path meets the
//! same brute force.

use super::*;
use crate::api::params::SearchParams;
use crate::api::search::search_with;
use crate::search::index::AreaIndex;
use crate::search::index::geo::{Circle, haversine_km};
use crate::search::index::test_points::Lcg;
use crate::search::matches::match_cache::MatchCache;
use crate::search::query::filter::Masking;
use crate::search::words::vocabulary::Vocabulary;
use areas::{AREAS, Area, CENTRES, database, every_area};

#[path = "equivalence_areas.rs"]
mod areas;

/// Whether a word is a prefix of a token of the text (ASCII, case folded).
fn has_prefix(text: &str, word: &str) -> bool {
    let word = word.to_ascii_lowercase();
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|t| t.to_ascii_lowercase().starts_with(&word))
}

fn in_box(b: &BBox, lat: f64, lng: f64) -> bool {
    let lng_in = |lng: f64| {
        if b.min_lng <= b.max_lng {
            b.min_lng <= lng && lng <= b.max_lng
        } else {
            lng >= b.min_lng || lng <= b.max_lng
        }
    };
    b.min_lat <= lat && lat <= b.max_lat && (lng_in(lng) || (lng.abs() == 180.0 && lng_in(-lng)))
}

/// The whole answer by brute force: (id, distance) in order, and the total.
fn brute_force(areas: &[Area], p: &SearchParams) -> (Vec<(String, Option<f64>)>, usize) {
    let mut found: Vec<(&Area, Option<f64>, bool)> = Vec::new();
    for a in areas {
        let words_in = |cols: &[String]| {
            p.words
                .iter()
                .all(|w| cols.iter().any(|t| has_prefix(t, w)))
        };
        let distance = p.circle.map(|c| haversine_km(c.lat, c.lng, a.lat, a.lng));
        let fits = words_in(&a.text)
            && p.min_score.is_none_or(|m| a.score >= m)
            && p.circle.zip(distance).is_none_or(|(c, d)| d <= c.radius_km)
            && p.bbox.is_none_or(|b| in_box(&b, a.lat, a.lng))
            && p.province.is_none_or(|slug| a.province_slug == slug);
        if fits {
            found.push((a, distance, words_in(&a.text[..1])));
        }
    }
    if !p.words.is_empty() {
        found.sort_by_key(|&(a, _, in_name)| (!in_name, a.rank));
    } else if p.circle.is_some() {
        found.sort_by(|x, y| {
            x.1.unwrap()
                .total_cmp(&y.1.unwrap())
                .then(x.0.no.cmp(&y.0.no))
        });
    } else {
        found.sort_by(|x, y| y.0.score.total_cmp(&x.0.score).then(x.0.no.cmp(&y.0.no)));
    }
    let total = found.len();
    let page = found
        .iter()
        .skip(p.offset as usize)
        .take(p.limit as usize)
        .map(|(a, d, _)| (a.id.clone(), *d))
        .collect();
    (page, total)
}

fn random_search(rng: &mut Lcg, areas: &[Area], combination: usize) -> SearchParams {
    let mut pick = |n: usize| (rng.unit() * n as f64) as usize % n;
    let words = [
        "west", "w", "we", "north", "park", "cape", "ezulwini", "1", "ext", "zz", "c", "West",
        "NORTH", "Ca",
    ];
    let (lat, lng) = CENTRES[pick(CENTRES.len())];
    let floor = areas[pick(areas.len())].score; // a score some area has exactly
    let mut p = SearchParams {
        words: Vec::new(),
        circle: None,
        min_score: None,
        bbox: None,
        province: None,
        limit: [1, 5, 20, 100][pick(4)],
        offset: [0, 0, 3, 40, 400, 5000][pick(6)],
        format: None,
        geometry: Default::default(),
        matching: crate::search::query::tier::Matching::Exact,
    };
    if combination & 1 != 0 {
        p.words = (0..1 + pick(2))
            .map(|_| words[pick(words.len())].to_string())
            .collect();
        p.words.dedup();
    }
    if combination & 2 != 0 {
        let radius_km = [0.5, 5.0, 30.0, 80.0, 400.0][pick(5)];
        p.circle = Some(Circle {
            lat,
            lng,
            radius_km,
        });
    }
    if combination & 4 != 0 {
        let (half_lat, half_lng) = ([0.05, 0.3, 2.0][pick(3)], [0.05, 0.3, 2.0][pick(3)]);
        let west = (lng - half_lng + 540.0).rem_euclid(360.0) - 180.0;
        let east = (lng + half_lng + 540.0).rem_euclid(360.0) - 180.0;
        p.bbox = Some(BBox {
            min_lng: west,
            min_lat: (lat - half_lat).max(-90.0),
            max_lng: east,
            max_lat: (lat + half_lat).min(90.0),
        });
    }
    if combination & 8 != 0 || combination == 0 {
        p.min_score = Some([0.0, floor, floor, 5.0, 6.5, 9.99, 10.0][pick(7)]);
    }
    if combination & 16 != 0 {
        // Limpopo has no area here: a province that matches nothing.
        let slugs = [
            "gauteng",
            "western-cape",
            "north-west",
            "kwazulu-natal",
            "limpopo",
        ];
        p.province = Some(slugs[pick(slugs.len())]);
    }
    p
}

#[test]
fn every_search_equals_brute_force_over_every_area() {
    let (dir, conn) = database();
    let areas = every_area(&conn);
    assert_eq!(areas.len(), AREAS);
    let index = AreaIndex::load(&conn).unwrap();
    let none_kept = MatchCache::keeping_nothing();
    let all_kept = MatchCache::new(1);
    assert!(crate::search::matches::word_store::has_stored_sets(
        &conn, &index
    ));
    let stored = MatchCache::new(1).with_stored_sets(true);
    let stored_walked = MatchCache::new(1).with_stored_sets(true);
    let vocabulary = Vocabulary::read(&conn).unwrap();
    let mut rng = Lcg(7);
    let (mut non_empty, mut full_pages, mut in_a_province) = (0, 0, 0);
    // Words in a province, no circle or viewport: counted over the
    // province's stretch of the grid or the score order (search/index/provinces.rs).
    let mut words_in_a_province = 0;
    for i in 0..SEARCHES {
        let p = random_search(&mut rng, &areas, i % 32);
        let (want, total) = brute_force(&areas, &p);
        for (way, matches, tuning) in [
            ("no list kept", &none_kept, (COLLECT, Masking::ByCost)),
            (
                "no list kept, masked",
                &none_kept,
                (COLLECT, Masking::Always),
            ),
            (
                "lists kept, bitmaps collected",
                &all_kept,
                (COLLECT, Masking::Never),
            ),
            (
                "lists kept, bitmap tiers walked",
                &all_kept,
                (0, Masking::ByCost),
            ),
            (
                "stored sets, then kept",
                &stored,
                (COLLECT, Masking::Always),
            ),
            (
                "stored sets, bitmap tiers walked",
                &stored_walked,
                (0, Masking::Never),
            ),
        ] {
            let data = Searchable {
                index: &index,
                matches,
                vocabulary: &vocabulary,
            };
            let got = search_with(&conn, &data, &p, tuning).unwrap();
            let ids: Vec<(String, Option<f64>)> = got
                .data
                .iter()
                .map(|a| (a.id.clone(), a.distance_km))
                .collect();
            assert_eq!(got.total as usize, total, "{way}: total of {p:?}");
            assert_eq!(ids.len(), want.len(), "{way}: page of {p:?}");
            for ((id, d), (want_id, want_d)) in ids.iter().zip(&want) {
                assert_eq!(id, want_id, "{way}: order of {p:?}");
                assert_eq!(d.is_some(), want_d.is_some(), "{way}: {p:?}");
                if let (Some(d), Some(w)) = (d, want_d) {
                    assert!((d - w).abs() < 0.006, "{way}: distance {d} vs {w} in {p:?}");
                }
            }
        }
        non_empty += usize::from(total > 0);
        full_pages += usize::from(total > (p.offset + p.limit) as usize);
        in_a_province += usize::from(p.province.is_some() && total > 0);
        words_in_a_province += usize::from(
            p.province.is_some()
                && !p.words.is_empty()
                && p.circle.is_none()
                && p.bbox.is_none()
                && total > 0,
        );
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(non_empty > 1400, "only {non_empty} searches found anything");
    assert!(
        in_a_province > 600,
        "only {in_a_province} searches in a province found anything"
    );
    assert!(
        words_in_a_province > 80,
        "only {words_in_a_province} searches for words in a province found anything"
    );
    assert!(
        full_pages > 600,
        "only {full_pages} searches had more than their page"
    );
}

/// Random searches: 100 of each combination of criteria.
const SEARCHES: usize = 3200;

/// As in production: tiers of up to this many matches are collected.
const COLLECT: usize = crate::search::query::text::COLLECT_AT_MOST;
