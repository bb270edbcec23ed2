//! Text search over the seed data: the words' FTS5 form, and kept match lists
//! (search/matches/match_cache.rs) answering exactly as reading FTS5 does.

use rusqlite::{Connection, OpenFlags};

use super::*;
use crate::api::params::SearchParams;
use crate::api::search::search;
use crate::search::index::AreaIndex;
use crate::search::index::geo::Circle;
use crate::search::matches::match_cache::{MatchCache, Matches};
use crate::search::matches::rank_set::{Ranks, intersection};
use crate::search::matches::word_sets::all_matches;
use crate::search::matches::word_store::{each_rank, fts_term, in_name_query};
use crate::search::words::vocabulary::Vocabulary;

#[test]
fn words_become_quoted_prefix_terms() {
    assert_eq!(fts_term("cape"), "\"cape\"*");
    assert_eq!(fts_term("a\"b"), "\"a\"\"b\"*");
}

/// A read-only connection to a new seed database in its own folder, which
/// the caller removes.
fn seed_database(tag: &str) -> (std::path::PathBuf, Connection) {
    let (dir, path) = crate::api::test_seed::seed_file(tag);
    let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    (dir, conn)
}

/// Text searches: common and rare words, one or two of them, alone or within
/// circles in three cities, with and without a minimum score, pages short and long.
fn filtered_searches() -> Vec<SearchParams> {
    let circles = [
        None,
        Some((-33.92584, 18.42322, 50.0)), // Cape Town
        Some((-26.20227, 28.04363, 50.0)), // Johannesburg
        Some((-29.8579, 31.0292, 30.0)),   // Durban
    ];
    let mut all = Vec::new();
    for words in [
        "k",
        "s",
        "port",
        "cape",
        "west",
        "north",
        "ext",
        "wes kaap",
        "cape town",
        "port eliz",
        "n w",
        "kwa",
    ] {
        for circle in circles {
            for min_score in [None, Some(5.0), Some(7.5)] {
                for (limit, offset) in [(3, 0), (25, 0), (10, 7)] {
                    all.push(SearchParams {
                        words: words.split(' ').map(String::from).collect(),
                        circle: circle.map(|(lat, lng, radius_km)| Circle {
                            lat,
                            lng,
                            radius_km,
                        }),
                        min_score,
                        bbox: None,
                        province: None,
                        limit,
                        offset,
                        format: None,
                        geometry: Default::default(),
                        matching: crate::search::query::tier::Matching::Exact,
                    });
                }
            }
        }
    }
    all
}

#[test]
fn kept_match_lists_answer_as_fts5_does() {
    let (dir, conn) = seed_database("kept");
    let index = AreaIndex::load(&conn).unwrap();
    let searches = filtered_searches();
    let answers = |matches: &MatchCache| -> Vec<String> {
        let vocabulary = Vocabulary::read(&conn).unwrap();
        let data = Searchable {
            index: &index,
            matches,
            vocabulary: &vocabulary,
        };
        let page = |p| serde_json::to_string(&search(&conn, &data, p).unwrap()).unwrap();
        searches.iter().map(page).collect()
    };
    // Nothing kept: every list comes from FTS5. Every word repeats across
    // the searches, so all but a word's first search read it together with
    // the other words known to be light.
    let none_kept = MatchCache::keeping_nothing();
    let from_fts5 = answers(&none_kept);
    assert_eq!(none_kept.kept_bytes(), 0);
    assert!(none_kept.is_light(&fts_term("cape")));
    // Every word heavy: the first pass reads and keeps, the second walks
    // only kept lists.
    let all_kept = MatchCache::new(1);
    let first = answers(&all_kept);
    assert!(all_kept.kept_bytes() > 0);
    let kept = answers(&all_kept);
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

/// The intersection of each word's matches is FTS5's own AND of the words,
/// anywhere and in the name, for one to four words, common and rare.
#[test]
fn intersected_word_lists_are_fts5s_and() {
    let (dir, conn) = seed_database("and");
    let index = AreaIndex::load(&conn).unwrap();
    let none_kept = MatchCache::keeping_nothing();
    let read = |query: &str| {
        let mut all = Vec::new();
        each_rank(&conn, query, |r| {
            all.push(r as u32);
            true
        })
        .unwrap();
        all
    };
    let queries = [
        "cape",
        "cape town",
        "port elizabeth",
        "n w",
        "s s",
        "kwa ma",
        "a b c",
        "west cape north",
        "e e e e",
        "zzz cape",
    ];
    let mut non_empty = 0;
    for words in queries {
        let words: Vec<&str> = words.split(' ').collect();
        for scope in ["", "name : "] {
            let lists = words
                .iter()
                .map(|w| {
                    // The very queries word_matches reads.
                    let query = match scope {
                        "" => fts_term(w),
                        _ => in_name_query(&fts_term(w)),
                    };
                    all_matches(&conn, &index, &none_kept, &query, |_| (false, false)).map(|m| {
                        match m.0 {
                            Matches::List(ranks) => ranks,
                            Matches::Bits(_) => unreachable!("nothing is kept as bitmaps here"),
                        }
                    })
                })
                .collect::<ApiResult<Vec<_>>>()
                .unwrap();
            let terms: Vec<String> = words.iter().map(|w| fts_term(w)).collect();
            let want = read(&format!("{scope}({})", terms.join(" ")));
            assert_eq!(&intersection(lists)[..], &want[..], "{scope}{words:?}");
            non_empty += usize::from(!want.is_empty());
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        non_empty >= 12,
        "only {non_empty} of the intersections found anything"
    );
}

/// Intersections of lists of every density against a set test: the short
/// list's next rank far ahead in a long one, at its end, and beyond it.
#[test]
fn intersection_of_lists_far_apart_in_density() {
    let list =
        |step: u32, from: u32, to: u32| -> Ranks { (from..to).step_by(step as usize).collect() };
    let cases = [
        vec![list(1, 1, 5000), list(997, 3, 5000)],
        vec![list(2, 0, 4000), list(3, 0, 9000), list(1000, 0, 20000)],
        vec![list(7, 100, 200), list(1, 0, 150)],
        vec![list(1, 0, 10), list(1, 10, 20)],
        vec![list(5, 0, 1), list(1, 0, 100)],
        vec![list(1, 0, 100), list(1, 0, 0)],
    ];
    for lists in cases {
        let want: Vec<u32> = lists[0]
            .iter()
            .copied()
            .filter(|r| lists.iter().all(|l| l.contains(r)))
            .collect();
        assert_eq!(
            &intersection(lists.clone())[..],
            &want[..],
            "{:?}",
            lists.iter().map(|l| l.len()).collect::<Vec<_>>()
        );
    }
}
