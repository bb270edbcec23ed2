//! Forgiving search by brute force (docs/api.md, "Search Areas"): the tier at
//! which a query's words match an area, computed directly from the area's
//! texts with the edit distance worked out in full, word against word. The
//! reference that both the end-to-end tests (tests/search_forgiving.rs) and
//! the unit equivalence test (src/search/query/forgiving_tests.rs) compare
//! search with; it shares no code with the server. Texts are ASCII but for
//! the seed's one diacritic (ë) and its typographic apostrophe.

use std::cell::RefCell;
use std::collections::HashMap;

/// The words of a text as the full-text index sees them: lower case, ë
/// folded, split at every character that is not a letter or a digit.
pub fn fold_words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace('ë', "e")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Optimal string alignment distance: insert, delete, substitute, or swap
/// two neighbouring letters, each one edit.
pub fn osa(a: &[u8], b: &[u8]) -> usize {
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

/// The edits between a query word and a word, or with `last` its nearest
/// prefix; remembered, as the same words recur across thousands of areas.
fn distance(q: &str, w: &str, last: bool) -> usize {
    type Seen = HashMap<String, HashMap<String, [Option<usize>; 2]>>;
    thread_local! {
        static SEEN: RefCell<Seen> = RefCell::new(HashMap::new());
    }
    let known = SEEN.with(|s| {
        s.borrow()
            .get(q)
            .and_then(|by_word| by_word.get(w))
            .and_then(|d| d[usize::from(last)])
    });
    if let Some(d) = known {
        return d;
    }
    let d = if last {
        (0..=w.len())
            .filter(|&n| w.is_char_boundary(n))
            .map(|n| osa(q.as_bytes(), &w.as_bytes()[..n]))
            .min()
            .unwrap_or(usize::MAX)
    } else {
        osa(q.as_bytes(), w.as_bytes())
    };
    SEEN.with(|s| {
        let mut s = s.borrow_mut();
        let by_word = s.entry(q.to_string()).or_default();
        by_word.entry(w.to_string()).or_default()[usize::from(last)] = Some(d);
    });
    d
}

/// Typos a query word of `letters` letters may have: none below 5, one
/// from 5, two from 9.
fn allowed(letters: usize) -> usize {
    if letters >= 9 {
        2
    } else if letters >= 5 {
        1
    } else {
        0
    }
}

/// One text of an area as words; `other` marks an other name.
pub struct Field {
    pub words: Vec<String>,
    pub other: bool,
}

/// An area's fields: name, municipality, province, then each other name.
pub fn fields(main: [&str; 3], others: &[String]) -> Vec<Field> {
    let mut f: Vec<Field> = main
        .iter()
        .map(|t| Field {
            words: fold_words(t),
            other: false,
        })
        .collect();
    f.extend(others.iter().map(|t| Field {
        words: fold_words(t),
        other: true,
    }));
    f
}

const NONE: u8 = u8::MAX;

/// How one query word matches a field's words: 1 exactly or as a prefix
/// (2 in an other name), 2 + d with d typos, 3 split over two words.
fn word_grade(fields: &[&Field], q: &str, last: bool) -> u8 {
    let mut best = NONE;
    let letters = q.chars().count();
    for f in fields {
        for (k, w) in f.words.iter().enumerate() {
            if w.starts_with(q) {
                best = best.min(if f.other { 2 } else { 1 });
            }
            let d = distance(q, w, last);
            if d >= 1 && d <= allowed(letters) {
                best = best.min(2 + d as u8);
            }
            if let Some(next) = f.words.get(k + 1) {
                let split = q.strip_prefix(w.as_str()).is_some_and(|rest| {
                    w.chars().count() >= 2
                        && rest.chars().count() >= 2
                        && if last {
                            next.starts_with(rest)
                        } else {
                            next == rest
                        }
                });
                if split {
                    best = best.min(3);
                }
            }
        }
    }
    best
}

/// Two query words joined: 3 when a word of a field is both (or starts
/// with both, when the second is the last word).
fn joined_grade(fields: &[&Field], a: &str, b: &str, last: bool) -> u8 {
    if a.chars().count() < 2 || b.chars().count() < 2 {
        return NONE;
    }
    let joined = format!("{a}{b}");
    let hit = fields.iter().any(|f| {
        f.words.iter().any(|w| {
            if last {
                w.starts_with(&joined)
            } else {
                *w == joined
            }
        })
    });
    if hit { 3 } else { NONE }
}

/// The tier (1 exact, 2 other name, 3 one typo, 4 two typos) at which
/// every query word matches, taking the best way of reading neighbours
/// joined; with `in_name`, counting only the name and the other names.
/// None when some word matches nowhere.
pub fn tier(all: &[Field], query: &[String], in_name: bool) -> Option<u8> {
    let fields: Vec<&Field> = all
        .iter()
        .enumerate()
        .filter(|(i, f)| !in_name || *i == 0 || f.other)
        .map(|(_, f)| f)
        .collect();
    let q: Vec<String> = query
        .iter()
        .map(|w| w.to_lowercase().replace('ë', "e"))
        .collect();
    let n = q.len();
    let mut best = vec![NONE; n + 1];
    best[0] = 1;
    for i in 1..=n {
        let last = i == n;
        best[i] = best[i - 1].max(word_grade(&fields, &q[i - 1], last));
        if i >= 2 {
            let joined = joined_grade(&fields, &q[i - 2], &q[i - 1], last);
            best[i] = best[i].min(best[i - 2].max(joined));
        }
    }
    (best[n] != NONE).then_some(best[n])
}

/// An area's place in a text search's order, or None when it is no match:
/// (tier, whether the name leaves out a word at that tier).
pub fn order_key(all: &[Field], query: &[String]) -> Option<(u8, bool)> {
    let t = tier(all, query, false)?;
    let in_name = tier(all, query, true).is_some_and(|n| n <= t);
    Some((t, !in_name))
}
