//! Text as the full-text index sees it: lower case, Latin diacritics
//! dropped, and split into words at every character that is not a letter or
//! a digit. FTS5's `unicode61 remove_diacritics 2` tokenizer does this inside
//! SQLite; the vocabulary's typo walk (search/words/vocabulary.rs) and the import's
//! check of other names need the same words outside it.

use std::ops::Range;

/// Latin letters with diacritics and the plain letter each folds to, for
/// the Latin-1 Supplement and Latin Extended-A blocks: what South African
/// place names use (Daniëlskuil). Only letters that Unicode decomposes into
/// a base letter and marks, as the tokenizer folds them: ø, ł and ß stay.
const FOLDS: [(&str, char); 19] = [
    ("àáâãäåāăą", 'a'),
    ("çćĉċč", 'c'),
    ("ď", 'd'),
    ("èéêëēĕėęě", 'e'),
    ("ĝğġģ", 'g'),
    ("ĥ", 'h'),
    ("ìíîïĩīĭį", 'i'),
    ("ĵ", 'j'),
    ("ķ", 'k'),
    ("ĺļľ", 'l'),
    ("ñńņň", 'n'),
    ("òóôõöōŏő", 'o'),
    ("ŕŗř", 'r'),
    ("śŝşš", 's'),
    ("ţť", 't'),
    ("ùúûüũūŭůűų", 'u'),
    ("ŵ", 'w'),
    ("ýÿŷ", 'y'),
    ("źżž", 'z'),
];

/// A character lower-cased with its diacritic dropped; combining marks
/// (U+0300 to U+036F) fold to nothing.
fn fold_char(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    if ('\u{300}'..='\u{36f}').contains(&c) {
        return;
    }
    for lower in c.to_lowercase() {
        match FOLDS.iter().find(|(from, _)| from.contains(lower)) {
            Some(&(_, plain)) => out.push(plain),
            None => out.push(lower),
        }
    }
}

/// Whether a character belongs to a word (letters, digits, combining marks).
fn in_word(c: char) -> bool {
    c.is_alphanumeric() || ('\u{300}'..='\u{36f}').contains(&c)
}

/// The folded words of a text, in order.
pub fn words(text: &str) -> Vec<String> {
    let mut folded = String::with_capacity(text.len());
    let mut spans = Vec::new();
    push_words(text, &mut folded, &mut spans);
    spans.into_iter().map(|r| folded[r].to_owned()).collect()
}

/// Folds the words of `text` onto the end of `out` and notes where each
/// lies: `words` without a string a word, for a page's many items. What
/// `out` holds between the spans is no word.
pub fn push_words(text: &str, out: &mut String, spans: &mut Vec<Range<usize>>) {
    if text.is_ascii() {
        return push_ascii_words(text, out, spans);
    }
    for piece in text.split(|c: char| !in_word(c)) {
        let start = out.len();
        piece.chars().for_each(|c| fold_char(c, out));
        // A piece of combining marks alone folds to nothing.
        if out.len() > start {
            spans.push(start..out.len());
        }
    }
}

/// `push_words` for a text of ASCII alone, most names: a byte is a
/// character, a word's bytes are letters and digits, and folding is
/// lower-casing. The whole text is copied, separators too, and the spans
/// pick its words out.
fn push_ascii_words(text: &str, out: &mut String, spans: &mut Vec<Range<usize>>) {
    let start = out.len();
    out.push_str(text);
    out[start..].make_ascii_lowercase();
    let mut word_start = None;
    for (i, b) in out.as_bytes().iter().enumerate().skip(start) {
        match (b.is_ascii_alphanumeric(), word_start) {
            (true, None) => word_start = Some(i),
            (false, Some(first)) => {
                spans.push(first..i);
                word_start = None;
            }
            _ => {}
        }
    }
    if let Some(first) = word_start {
        spans.push(first..out.len());
    }
}

/// One word folded (a word of `words`, or a query word).
pub fn word(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    text.chars().for_each(|c| fold_char(c, &mut out));
    out
}

/// A text's words folded and joined by one space: two names that fold to
/// the same key are the same to search.
pub fn key(text: &str) -> String {
    words(text).join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_case_diacritics_and_separators_as_the_index_does() {
        assert_eq!(words("Daniëlskuil"), ["danielskuil"]);
        assert_eq!(words("Simon's Town"), ["simon", "s", "town"]);
        assert_eq!(key("  PORT-Elizabeth "), "port elizabeth");
        assert_eq!(key("Ærø Ōuvre Straße"), "ærø ouvre straße");
        assert_eq!(word("Soweto12"), "soweto12");
        assert!(words(" - ; ").is_empty());
        // The same words whether a text is ASCII alone or not.
        assert_eq!(words("Port-ELIZABETH  12b"), ["port", "elizabeth", "12b"]);
        assert_eq!(
            words("Port-ELIZABETH  12b é"),
            ["port", "elizabeth", "12b", "e"]
        );
    }
}
