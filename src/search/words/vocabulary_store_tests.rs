//! The vocabulary the seed's file stores against the one read off its
//! full-text tables, and stored parts that do not fit together, or of
//! another layout, refused so that the words are read off FTS5.

use super::*;

/// The seed's file, built as `init` builds it, in a folder the caller removes.
fn seed_file(tag: &str) -> (std::path::PathBuf, Connection) {
    let dir = std::env::temp_dir().join(format!("area-scoring-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("seed.db");
    crate::data::load::init(&path, true).unwrap();
    let conn = Connection::open(&path).unwrap();
    (dir, conn)
}

#[test]
fn the_stored_vocabulary_is_the_one_read_off_the_full_text_tables() {
    let (dir, conn) = seed_file("vocabulary-store");
    let stored = read(&conn)
        .unwrap()
        .expect("a new file stores its vocabulary");
    let read_off = Vocabulary::read(&conn).unwrap();
    assert!(stored.len() > 1_000, "{} words", stored.len());
    assert_eq!(stored.parts(), read_off.parts());
    assert_eq!(stored.other_ranks.parts(), read_off.other_ranks.parts());
    // Port Elizabeth is Gqeberha's former name (seed/other-names.csv).
    let elizabeth = stored.find(b"elizabeth").expect("an other name's word");
    assert!(!stored.other_ranks.of_word(elizabeth).is_empty());
    // The trie's first levels are made again from the stored words.
    let near = |v: &Vocabulary| {
        v.runs_at(v.with_prefix(b"jo"), 2)
            .map(|r| r.collect::<Vec<_>>())
    };
    assert_eq!(near(&stored), near(&read_off));
    drop(conn);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn stored_parts_that_do_not_fit_or_of_another_layout_are_not_read() {
    let (dir, conn) = seed_file("vocabulary-refused");
    let refused = |change: &str| {
        conn.execute_batch(&format!("SAVEPOINT s; {change}"))
            .unwrap();
        let stored = read(&conn).unwrap();
        conn.execute_batch("ROLLBACK TO s; RELEASE s;").unwrap();
        stored.is_none()
    };
    assert!(!refused("SELECT 1"), "the file as written is read");
    assert!(refused(&format!(
        "UPDATE search_words SET layout = {}",
        LAYOUT + 1
    )));
    assert!(refused("DROP TABLE search_words"));
    assert!(refused("DELETE FROM search_words"));
    // A start cut short, a word's kind missing, a start past the bytes.
    assert!(refused(
        "UPDATE search_words SET starts = substr(starts, 1, length(starts) - 1)"
    ));
    assert!(refused("UPDATE search_words SET kinds = substr(kinds, 2)"));
    assert!(refused("UPDATE search_words SET words = substr(words, 2)"));
    // The first word's bytes changed to sort after the second's.
    assert!(refused(
        "UPDATE search_words SET words = CAST(x'7a' || substr(words, 2) AS BLOB)"
    ));
    // An entry for each word, and lists within their bounds.
    assert!(refused(
        "UPDATE search_words SET other_entries = substr(other_entries, 5)"
    ));
    assert!(refused(
        "UPDATE search_words SET other_lists = substr(other_lists, 1, 4)"
    ));
    assert!(refused("UPDATE search_words SET starts = 'text'"));
    drop(conn);
    std::fs::remove_dir_all(dir).unwrap();
}
