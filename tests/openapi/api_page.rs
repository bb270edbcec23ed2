//! docs/api.md against the contract: its parameter tables ("List Areas",
//! "Search Areas", "Compare Areas", "Get Area History") and its account of
//! forgiving search name the same bounds, defaults and words.

use area_scoring::api::contract::*;

use super::doc::words;

/// docs/api.md's account of forgiving search ("Search Areas") names
/// the contract's word lengths and tiers; its lines are read joined, as
/// Markdown wraps them anywhere.
#[test]
fn api_page_forgiving_search_names_the_contracts_bounds() {
    let readme = include_str!("../../docs/api.md");
    let text = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let tiers: Vec<String> = MATCH_TIERS
        .iter()
        .map(|t| format!("`{}`", t.name()))
        .collect();
    let said = [
        format!("a word of {TYPO_ONE_FROM} letters or more may be one edit"),
        format!("each part at least {SPLIT_PART_MIN} letters"),
        format!("for words of {TYPO_TWO_FROM} letters or more"),
        format!("A word of under {TYPO_ONE_FROM} letters gets no typo of its own"),
        format!("a `q` of more than {FORGIVING_WORDS_MAX} words matches exactly"),
        format!("`tier` ({})", tiers.join(", ")),
    ];
    let missing: Vec<&String> = said.iter().filter(|s| !text.contains(s.as_str())).collect();
    assert!(missing.is_empty(), "docs/api.md does not say: {missing:#?}");
}

/// docs/api.md's parameter tables ("List Areas", "Search Areas",
/// "Compare Areas", "Get Area History") name the same bounds and defaults.
#[test]
fn api_page_parameter_tables_name_the_contracts_bounds() {
    let readme = include_str!("../../docs/api.md");
    let ticked = |words: &[&str]| -> String {
        let quoted: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
        quoted.join(", ")
    };
    let (lat, lng, radius, score) = (LAT, LNG, RADIUS_KM, MIN_SCORE);
    let rows = [
        format!("| `limit` | {LIST_LIMIT_MIN} to {LIST_LIMIT_MAX} | {LIST_LIMIT_DEFAULT} |"),
        format!("| `offset` | {OFFSET_MIN} or more | {OFFSET_DEFAULT} |"),
        format!(
            "| `sort` | {} | `{}` |",
            ticked(&words(&SORTS)),
            word_of(&SORTS, SORT_DEFAULT)
        ),
        format!(
            "| `order` | {} | `{}` |",
            ticked(&words(&ORDERS)),
            word_of(&ORDERS, ORDER_DEFAULT)
        ),
        format!("| `q` | {Q_CHARS_MIN} to {Q_CHARS_MAX} characters (not bytes)"),
        format!(
            "| `lat`, `lng` | {} to {}, {} to {}; always together | none |",
            lat.min, lat.max, lng.min, lng.max
        ),
        format!(
            "greater than {} and at most {}; needs `lat` and `lng` | {RADIUS_KM_DEFAULT} |",
            radius.min, radius.max
        ),
        format!("| `min_score` | {} to {} | none |", score.min, score.max),
        format!("| `limit` | {SEARCH_LIMIT_MIN} to {SEARCH_LIMIT_MAX} | {SEARCH_LIMIT_DEFAULT} |"),
        format!("`ids`: {COMPARE_IDS_MIN} to {COMPARE_IDS_MAX} distinct area ids"),
        format!("| `period` | {} (", ticked(&words(&PERIODS))),
        format!(
            "| `granularity` | {} | `{}` |",
            ticked(&words(&GRANULARITIES)),
            word_of(&GRANULARITIES, GRANULARITY_DEFAULT)
        ),
    ];
    let missing: Vec<&String> = rows.iter().filter(|r| !readme.contains(*r)).collect();
    assert!(missing.is_empty(), "docs/api.md does not say: {missing:#?}");
    let province_row = readme
        .lines()
        .find(|l| l.starts_with("| `province` |"))
        .expect("docs/api.md lists the provinces");
    for (slug, _) in PROVINCES {
        assert!(province_row.contains(&format!("`{slug}`")), "{slug}");
    }
    assert_eq!(province_row.matches('`').count(), 2 * (PROVINCES.len() + 1));
    let match_row = readme
        .lines()
        .find(|l| l.starts_with("| `match` |"))
        .expect("docs/api.md's Search Areas table has match");
    let quoted: Vec<String> = words(&MATCHINGS).iter().map(|w| format!("`{w}`")).collect();
    let values = format!("| `match` | {}: ", quoted.join(" or "));
    let default = format!(" | `{}` |", word_of(&MATCHINGS, MATCHING_DEFAULT));
    assert!(
        match_row.starts_with(&values) && match_row.ends_with(&default),
        "{match_row} starts with {values} and ends with {default}"
    );
}
