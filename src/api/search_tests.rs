//! Text search over the seed data: the words' FTS5 form, and kept match lists
//! (src/match_cache.rs) answering exactly as reading FTS5 does.

use rusqlite::{Connection, OpenFlags};

use super::*;
use crate::area_index::AreaIndex;
use crate::match_cache::MatchCache;
use crate::params::Circle;

#[test]
fn words_become_quoted_prefix_terms() {
    assert_eq!(
        fts_words(&["cape".into(), "town".into()]),
        "\"cape\"* \"town\"*"
    );
}

/// Filtered text searches: common and rare words, circles in three cities,
/// with and without a minimum score, pages short and long.
fn filtered_searches() -> Vec<SearchParams> {
    let circles = [
        None,
        Some((-33.92584, 18.42322, 50.0)), // Cape Town
        Some((-26.20227, 28.04363, 50.0)), // Johannesburg
        Some((-29.8579, 31.0292, 30.0)),   // Durban
    ];
    let mut all = Vec::new();
    for words in ["k", "s", "port", "cape", "west", "north", "ext", "wes kaap"] {
        for circle in circles {
            for min_score in [None, Some(5.0), Some(7.5)] {
                if circle.is_none() && min_score.is_none() {
                    continue; // unfiltered: no match list is read whole
                }
                for limit in [3, 25] {
                    all.push(SearchParams {
                        words: words.split(' ').map(String::from).collect(),
                        circle: circle.map(|(lat, lng, radius_km)| Circle {
                            lat,
                            lng,
                            radius_km,
                        }),
                        min_score,
                        limit,
                    });
                }
            }
        }
    }
    all
}

#[test]
fn kept_match_lists_answer_as_fts5_does() {
    let dir = std::env::temp_dir().join(format!("area-scoring-kept-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("seed.db");
    crate::load::init(&path, true).unwrap();
    let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut index = AreaIndex::load(&conn).unwrap();
    let searches = filtered_searches();
    let answers = |index: &AreaIndex| -> Vec<String> {
        let page = |p| serde_json::to_string(&search(&conn, index, p).unwrap()).unwrap();
        searches.iter().map(page).collect()
    };
    // Nothing kept: every list comes from FTS5, the name tier read only
    // until the page is full.
    index.matches = MatchCache::new(usize::MAX);
    let from_fts5 = answers(&index);
    assert_eq!(index.matches.kept_ranks(), 0);
    // Every word heavy: the first pass reads and keeps, the second walks
    // only kept lists.
    index.matches = MatchCache::new(1);
    let first = answers(&index);
    assert!(index.matches.kept_ranks() > 0);
    let kept = answers(&index);
    std::fs::remove_dir_all(&dir).ok();
    for (i, p) in searches.iter().enumerate() {
        assert_eq!(from_fts5[i], first[i], "first keeping pass, {p:?}");
        assert_eq!(from_fts5[i], kept[i], "kept lists, {p:?}");
    }
    // The comparison covers pages that are full and totals beyond them.
    let beyond = from_fts5
        .iter()
        .zip(&searches)
        .filter(|(body, p)| {
            let v: serde_json::Value = serde_json::from_str(body).unwrap();
            v["data"].as_array().unwrap().len() == p.limit as usize
                && v["total"].as_i64().unwrap() > p.limit
        })
        .count();
    assert!(
        beyond > 20,
        "only {beyond} searches had more matches than a page"
    );
}
