//! The walk against the distance computed directly, over every word.

use super::*;
use crate::search::forgiving_reference::osa;
use crate::search::index::test_points::Lcg;
use crate::search::words::vocabulary::IN_AREAS;

/// The fewest edits between the query and the word (whole) or any of its
/// prefixes (prefix mode).
fn distance(query: &[u8], word: &[u8], mode: Mode) -> usize {
    match mode {
        Mode::Whole => osa(query, word),
        Mode::Prefix => (0..=word.len())
            .map(|n| osa(query, &word[..n]))
            .min()
            .unwrap(),
    }
}

/// The fewest edits the walk's terms give each word they cover.
fn covered(v: &Vocabulary, terms: &[Near]) -> Vec<Option<u8>> {
    let mut best = vec![None; v.len()];
    for t in terms {
        let range = if t.prefix {
            v.with_prefix(t.text.as_bytes())
        } else {
            let r = v.with_prefix(t.text.as_bytes());
            r.start..r.start + 1
        };
        for i in range {
            best[i] = Some(best[i].map_or(t.edits, |b: u8| b.min(t.edits)));
        }
    }
    best
}

fn random_word(rng: &mut Lcg, letters: &[u8]) -> Vec<u8> {
    let len = 1 + (rng.unit() * 9.0) as usize;
    (0..len)
        .map(|_| letters[(rng.unit() * letters.len() as f64) as usize % letters.len()])
        .collect()
}

#[test]
fn finds_exactly_the_words_within_the_bound_with_their_fewest_edits() {
    let mut rng = Lcg(7);
    // Few letters, so that words crowd together and many are near.
    let letters = b"abcde";
    let mut words: Vec<(String, u8)> = (0..3000)
        .map(|_| {
            (
                String::from_utf8(random_word(&mut rng, letters)).unwrap(),
                IN_AREAS,
            )
        })
        .collect();
    words.sort();
    words.dedup();
    let v = Vocabulary::from_sorted(words);
    let mut checked = 0;
    for _ in 0..300 {
        let query = random_word(&mut rng, letters);
        for mode in [Mode::Whole, Mode::Prefix] {
            for most in 1..=2u8 {
                let got = covered(&v, &near(&v, &query, most, mode));
                for (i, &grade) in got.iter().enumerate() {
                    let w = v.word(i);
                    let d = distance(&query, w, mode);
                    let expected =
                        (d <= most as usize && !w.starts_with(&query)).then_some(d as u8);
                    // Words the query is a prefix of are left to the exact tier,
                    // whether or not a term covers them.
                    if w.starts_with(&query) {
                        continue;
                    }
                    assert_eq!(
                        grade,
                        expected,
                        "{:?} against {:?}, {mode:?}, at most {most}",
                        String::from_utf8_lossy(&query),
                        String::from_utf8_lossy(w)
                    );
                    checked += usize::from(expected.is_some());
                }
            }
        }
    }
    assert!(
        checked > 10_000,
        "the walk was tested on enough near words: {checked}"
    );
}

#[test]
fn a_swap_is_one_edit_and_the_query_itself_is_no_typo() {
    let v = Vocabulary::from_sorted(
        ["johannesburg", "soweto", "stellenbosch"]
            .iter()
            .map(|w| (w.to_string(), IN_AREAS))
            .collect(),
    );
    let one = |q: &str, mode| near(&v, q.as_bytes(), 1, mode);
    assert_eq!(one("sowteo", Mode::Whole)[0].text, "soweto");
    assert_eq!(one("sowteo", Mode::Whole)[0].edits, 1);
    assert!(one("soweto", Mode::Whole).is_empty());
    assert_eq!(one("stellenbosh", Mode::Whole)[0].text, "stellenbosch");
    let typed = one("johanes", Mode::Prefix);
    assert_eq!(
        (typed[0].text.as_str(), typed[0].prefix, typed[0].edits),
        ("johannes", true, 1)
    );
    assert!(
        near(&v, b"johanesburg", 1, Mode::Whole)
            .iter()
            .any(|n| n.text == "johannesburg")
    );
}

#[test]
fn the_distance_of_one_pair_is_the_textbook_one() {
    let mut rng = Lcg(11);
    for _ in 0..5000 {
        let (a, b) = (random_word(&mut rng, b"abc"), random_word(&mut rng, b"abc"));
        for mode in [Mode::Whole, Mode::Prefix] {
            assert_eq!(
                super::distance(&a, &b, mode),
                distance(&a, &b, mode),
                "{a:?} {b:?} {mode:?}"
            );
        }
    }
}

#[test]
fn the_bounded_distance_of_one_pair_agrees_with_the_textbook_one() {
    let mut rng = Lcg(13);
    for _ in 0..5000 {
        let (a, b) = (random_word(&mut rng, b"abc"), random_word(&mut rng, b"abc"));
        let rows = Query::new(&a).unwrap();
        for (mode, prefix) in [(Mode::Whole, false), (Mode::Prefix, true)] {
            let textbook = distance(&a, &b, mode);
            for most in 0..=MOST as u8 {
                let expected = (textbook <= usize::from(most)).then_some(textbook as u8);
                assert_eq!(
                    rows.edits_within(&b, prefix, most),
                    expected,
                    "{a:?} {b:?} {mode:?} within {most}"
                );
            }
        }
    }
}

#[test]
fn a_query_longer_than_the_rows_hold_is_walked_word_by_word() {
    let long = "ab".repeat(70);
    let typo = format!("{}x{}", &long[..60], &long[61..]);
    let v = Vocabulary::from_sorted(
        [long.as_str(), "abab", &format!("{long}c")]
            .iter()
            .map(|w| (w.to_string(), IN_AREAS))
            .collect(),
    );
    let whole = near(&v, typo.as_bytes(), 2, Mode::Whole);
    let found: Vec<(&str, u8)> = whole.iter().map(|n| (n.text.as_str(), n.edits)).collect();
    assert_eq!(
        found,
        [(long.as_str(), 1), (format!("{long}c").as_str(), 2)]
    );
    // As the last word, the longer word's prefix is one edit away.
    let typed = near(&v, typo.as_bytes(), 2, Mode::Prefix);
    assert!(typed.iter().all(|n| n.edits == 1), "{typed:?}");
    assert_eq!(typed.len(), 2);
}

/// One random edit as the judge's cases make them (forgiving_tests.rs): a
/// letter added, dropped, changed, or two neighbours swapped.
fn edited(rng: &mut Lcg, word: &str) -> String {
    let mut b = word.as_bytes().to_vec();
    let pick = |rng: &mut Lcg, n: usize| (rng.unit() * n as f64) as usize % n.max(1);
    let i = pick(rng, b.len());
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

/// Before typo matching may be handed to levenshtein_automata, its distance
/// with transpositions must be the judge's (tests/common/forgiving.rs): on
/// the words of the seed's names, municipalities, provinces and other names
/// as the judge folds them, each query word one of them with one or two of
/// the judge's edits or cut short, against every word, whole and as a
/// prefix, within one and two edits. A prefix's distance is the least the
/// whole-word automaton gives along the word: the crate's own prefix
/// automaton loses a prefix at the bound once the word goes on ("moaul"
/// against "molema", two edits by "mol"), which the judge counts.
#[test]
fn levenshtein_automata_with_transpositions_measures_as_the_judge_does() {
    use crate::search::forgiving_reference::fold_words;
    use levenshtein_automata::{DFA, Distance, LevenshteinAutomatonBuilder};
    let exact = |d: Distance| match d {
        Distance::Exact(d) => Some(d),
        Distance::AtLeast(_) => None,
    };
    let along = |dfa: &DFA, w: &str| {
        let mut state = dfa.initial_state();
        let mut least = exact(dfa.distance(state));
        for &b in w.as_bytes() {
            state = dfa.transition(state, b);
            least = least.into_iter().chain(exact(dfa.distance(state))).min();
        }
        least
    };
    let mut words: Vec<String> = Vec::new();
    for p in crate::data::seed::seed_places().unwrap() {
        let texts = [&p.name, &p.municipality, &p.province];
        for text in texts.into_iter().chain(&p.other_names) {
            words.extend(fold_words(text));
        }
    }
    words.sort();
    words.dedup();
    assert!(
        words.iter().all(|w| w.is_ascii()),
        "the judge's words are ASCII"
    );
    let mut rng = Lcg(29);
    let builders = [1u8, 2].map(|most| (most, LevenshteinAutomatonBuilder::new(most, true)));
    let (mut near, mut compared) = (0, 0);
    for k in 0..120 {
        let mut query = words[(rng.unit() * words.len() as f64) as usize % words.len()].clone();
        for _ in 0..=k % 2 {
            query = edited(&mut rng, &query);
        }
        if k % 5 == 0 && query.len() > 2 {
            query.truncate(query.len() - 1);
        }
        for (most, builder) in &builders {
            let dfa = builder.build_dfa(&query);
            for w in &words {
                for mode in [Mode::Whole, Mode::Prefix] {
                    let judge = distance(query.as_bytes(), w.as_bytes(), mode);
                    let want = (judge <= usize::from(*most)).then_some(judge as u8);
                    let got = match mode {
                        Mode::Whole => exact(dfa.eval(w)),
                        Mode::Prefix => along(&dfa, w),
                    };
                    assert_eq!(got, want, "{query:?} against {w:?}, {mode:?}, {most}");
                    near += usize::from(want.is_some());
                    compared += 1;
                }
            }
        }
    }
    assert!(
        near > 1000,
        "enough near pairs were compared: {near} of {compared}"
    );
}
