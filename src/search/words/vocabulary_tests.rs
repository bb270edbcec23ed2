//! The vocabulary's lookups, and its words read from both full-text tables.

use super::*;

fn vocabulary(words: &[(&str, u8)]) -> Vocabulary {
    let mut w: Vec<(String, u8)> = words.iter().map(|&(s, k)| (s.to_string(), k)).collect();
    w.sort();
    Vocabulary::from_sorted(w)
}

#[test]
fn finds_words_prefixes_and_their_kinds() {
    let v = vocabulary(&[
        ("cape", IN_AREAS),
        ("capetown", IN_OTHER_NAMES),
        ("town", IN_AREAS),
        ("cape", IN_OTHER_NAMES),
        ("port", IN_OTHER_NAMES),
    ]);
    assert_eq!(v.len(), 4, "cape is one word with both kinds");
    assert_eq!(v.word_kinds(b"cape"), Some(IN_AREAS | IN_OTHER_NAMES));
    assert_eq!(v.word_kinds(b"cap"), None, "a prefix is not a word");
    assert_eq!(v.with_prefix(b"cap").len(), 2);
    assert_eq!(v.prefix_kinds(b"capet"), IN_OTHER_NAMES);
    assert_eq!(v.prefix_kinds(b"x"), 0);
    assert!(v.extends(b"cape") && !v.extends(b"capetown") && !v.extends(b"town"));
    assert_eq!(v.with_prefix(b"").len(), 4);
}

#[test]
fn reads_the_terms_of_both_full_text_tables() {
    let conn = Connection::open_in_memory().unwrap();
    conn.execute_batch(
        "CREATE VIRTUAL TABLE areas_fts USING fts5 (name, municipality, province,
             content = '', tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2');
         CREATE VIRTUAL TABLE other_names_fts USING fts5 (name,
             content = '', tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2');
         INSERT INTO areas_fts (rowid, name, municipality, province)
             VALUES (1, 'Daniëlskuil', 'Kgatelopele', 'Northern Cape');
         INSERT INTO other_names_fts (rowid, name) VALUES (33, 'Port Elizabeth');",
    )
    .unwrap();
    let v = Vocabulary::read(&conn).unwrap();
    let words: Vec<&[u8]> = (0..v.len()).map(|i| v.word(i)).collect();
    assert_eq!(
        words,
        [
            &b"cape"[..],
            b"danielskuil",
            b"elizabeth",
            b"kgatelopele",
            b"northern",
            b"port"
        ]
    );
    assert_eq!(v.word_kinds(b"port"), Some(IN_OTHER_NAMES));
}
