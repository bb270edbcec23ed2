//! The stored sets against FTS5 itself: every prefix of every term, stored
//! or not, and the edges of the file (another layout, a set of the wrong
//! size, a dataset without areas).

use rusqlite::Connection;

use super::write::candidates;
use super::*;
use crate::data::seed::Place;

fn place(id: &str, name: &str, municipality: &str, lat: f64) -> Place {
    Place {
        id: id.to_string(),
        name: name.to_string(),
        province_slug: "gauteng".to_string(),
        province: "Gauteng".to_string(),
        municipality: municipality.to_string(),
        lat,
        lng: 28.0,
        other_names: Vec::new(),
    }
}

/// A database of `places` in a fresh folder, its stored sets written from
/// `heavy` matches up.
fn database(name: &str, places: &[Place], heavy: usize) -> (std::path::PathBuf, Connection) {
    let dir =
        std::env::temp_dir().join(format!("area-scoring-words-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("words.db");
    crate::data::load::of_places(&path, places);
    let conn = Connection::open(&path).unwrap();
    rewrite(&conn, heavy).unwrap();
    (dir, conn)
}

/// Sixty places: "West 1".."West 20" in one municipality, "Westbury N" and
/// "Wes Nord N" in others, so that prefixes nest ("w", "we", "wes", "west",
/// "westb"...) and some hold the same areas as their shorter prefix.
fn places() -> Vec<Place> {
    let mut places = Vec::new();
    for i in 1..=20 {
        let lat = -26.0 - i as f64 / 100.0;
        places.push(place(
            &format!("west-{i}"),
            &format!("West {i}"),
            "City of Tshwane",
            lat,
        ));
        places.push(place(
            &format!("westbury-{i}"),
            &format!("Westbury {i}"),
            "Westonaria Local",
            lat,
        ));
        places.push(place(
            &format!("wes-nord-{i}"),
            &format!("Wes Nord {i}"),
            "Emfuleni",
            lat,
        ));
    }
    places.sort_by(|a, b| a.id.cmp(&b.id));
    places
}

fn ranks(m: &Matches) -> Vec<u32> {
    match m {
        Matches::List(r) => r.to_vec(),
        Matches::Bits(b) => (0..=60).filter(|&r| b.by_rank.get(r as usize)).collect(),
    }
}

/// Stored from this many matches. A set is a bitmap only from this many
/// and one area in `BITMAP_SHARE` up (match_cache.rs): the name sets of
/// words found only elsewhere ("gauteng", "city") are lists.
const HEAVY: usize = 2;

/// Every prefix of every word of the data, anywhere and in the name: stored
/// exactly when FTS5 finds at least `HEAVY` matches, and then equal to
/// them, as a list or as bitmaps agreeing with one another.
#[test]
fn every_stored_set_is_what_fts5_finds() {
    let (dir, conn) = database("equal", &places(), HEAVY);
    let index = AreaIndex::load(&conn).unwrap();
    assert!(has_stored_sets(&conn, &index));
    let words = [
        "w", "we", "wes", "west", "westb", "westbury", "westo", "n", "nord", "1", "2", "20",
        "emfuleni", "e", "city", "t", "g", "gauteng", "zz", "x",
    ];
    let (mut lists, mut bits) = (0, 0);
    for word in words {
        let term = fts_term(word);
        let name = in_name_query(&term);
        for query in [&term, &name] {
            let want = ranks_of(&conn, query).unwrap();
            let heavy_anywhere = ranks_of(&conn, &term).unwrap().len() >= HEAVY;
            match read(&conn, &index, query).unwrap() {
                Some((m, count)) => {
                    assert!(heavy_anywhere, "{query} stored though light");
                    assert_eq!(count, want.len(), "{query}");
                    assert_eq!(ranks(&m), want, "{query}");
                    if let Matches::Bits(b) = &m {
                        let by_position = index.bits_of_ranks(&want);
                        assert_eq!(b.by_position, by_position, "{query}");
                        assert_eq!(b.by_score, index.in_score_order(&by_position), "{query}");
                        bits += 1;
                    } else {
                        lists += 1;
                    }
                }
                None => assert!(!heavy_anywhere, "{query} heavy but not stored"),
            }
        }
    }
    assert!(lists > 0 && bits > 0, "{lists} lists, {bits} bitmaps");
    // "westbu" to "westbury" match the same 20 areas: one stored set.
    let set_of = |q: &str| -> i64 {
        conn.query_row(
            "SELECT set_no FROM word_queries WHERE query = ?1",
            [q],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(set_of(&fts_term("westbu")), set_of(&fts_term("westbury")));
    assert_ne!(set_of(&fts_term("west")), set_of(&fts_term("westb")));
    // A word found in names alone ("nord", every number) matches as many
    // in the name as anywhere: one set for both. "e" is in a municipality
    // too (Emfuleni): a set of its own in the name.
    for word in ["nord", "1", "20"] {
        let term = fts_term(word);
        assert_eq!(set_of(&term), set_of(&in_name_query(&term)), "{word}");
    }
    let e = fts_term("e");
    assert_ne!(set_of(&e), set_of(&in_name_query(&e)));
    std::fs::remove_dir_all(&dir).ok();
}

/// Every area matching a word, and a word matching none.
#[test]
fn every_area_and_none() {
    let (dir, conn) = database("all", &places(), 1);
    let index = AreaIndex::load(&conn).unwrap();
    let (all, count) = read(&conn, &index, &fts_term("gauteng")).unwrap().unwrap();
    assert_eq!(count, 60);
    assert_eq!(ranks(&all), (1..=60).collect::<Vec<u32>>());
    assert!(read(&conn, &index, &fts_term("zz")).unwrap().is_none());
    // In the name, "gauteng" matches nothing: stored, and empty.
    let (none, count) = read(&conn, &index, &in_name_query(&fts_term("gauteng")))
        .unwrap()
        .unwrap();
    assert_eq!((count, ranks(&none)), (0, vec![]));
    std::fs::remove_dir_all(&dir).ok();
}

/// A file written under another layout, or for other areas, or with a set
/// cut short, is read from FTS5, not from its sets.
#[test]
fn a_file_that_does_not_fit_is_not_read() {
    let (dir, conn) = database("layout", &places(), 5);
    let index = AreaIndex::load(&conn).unwrap();
    conn.execute("UPDATE word_store SET layout = layout + 1", [])
        .unwrap();
    assert!(!has_stored_sets(&conn, &index));
    conn.execute("UPDATE word_store SET layout = ?1, areas = 61", [LAYOUT])
        .unwrap();
    assert!(!has_stored_sets(&conn, &index));
    conn.execute("UPDATE word_store SET areas = 60", [])
        .unwrap();
    assert!(has_stored_sets(&conn, &index));
    conn.execute("UPDATE word_sets SET by_rank = substr(by_rank, 2), by_position = substr(by_position, 2) WHERE matches > 0", [])
        .unwrap();
    assert!(read(&conn, &index, &fts_term("w")).unwrap().is_none());
    assert!(
        read(&conn, &index, &fts_term("westbury"))
            .unwrap()
            .is_none()
    );
    conn.execute_batch("DROP TABLE word_store").unwrap();
    assert!(!has_stored_sets(&conn, &index));
    std::fs::remove_dir_all(&dir).ok();
}

/// No areas: nothing stored, and the file still says its layout.
#[test]
fn a_dataset_without_areas_stores_nothing() {
    let (dir, conn) = database("empty", &[], 1);
    let index = AreaIndex::load(&conn).unwrap();
    assert!(has_stored_sets(&conn, &index));
    let sets: i64 = conn
        .query_row("SELECT count(*) FROM word_sets", [], |r| r.get(0))
        .unwrap();
    assert_eq!(sets, 0);
    std::fs::remove_dir_all(&dir).ok();
}

/// The prefixes that can be heavy, against a count over every prefix.
#[test]
fn candidates_are_the_prefixes_with_enough_rows() {
    let terms = [
        ("west", 5),
        ("westbury", 3),
        ("wes", 1),
        ("north", 2),
        ("nord", 2),
        ("é", 4),
        ("éa", 1),
    ];
    let terms: Vec<(String, i64)> = terms.iter().map(|(t, n)| (t.to_string(), *n)).collect();
    for heavy in [1, 2, 4, 5, 9, 10] {
        let mut want: Vec<String> = Vec::new();
        for (t, _) in &terms {
            for (i, c) in t.char_indices() {
                let p = &t[..i + c.len_utf8()];
                let rows: i64 = terms
                    .iter()
                    .filter(|(u, _)| u.starts_with(p))
                    .map(|(_, n)| n)
                    .sum();
                if rows as usize >= heavy && !want.iter().any(|w| w == p) {
                    want.push(p.to_string());
                }
            }
        }
        want.sort();
        assert_eq!(
            candidates(terms.clone(), |n| n >= heavy),
            want,
            "heavy {heavy}"
        );
    }
    assert!(candidates(Vec::new(), |_| true).is_empty());
}
