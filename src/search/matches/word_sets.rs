//! The matches of a search's words, read from the full-text index (FTS5) as
//! search ranks, best first: anywhere (name, municipality, province) and in
//! the name alone. The lists of common words are kept (search/matches/match_cache.rs).

use std::sync::Arc;
use std::time::Instant;

use rusqlite::Connection;

use crate::error::ApiResult;
use crate::search::index::AreaIndex;
use crate::search::matches::match_cache::{MatchCache, Matches};
use crate::search::matches::rank_set::RankSet;
use crate::search::matches::word_store::{self, fts_term, in_name_query};
use crate::search::words::vocabulary::OTHER_NAME_SLOTS;

/// What a search's words match, anywhere (name, municipality, province)
/// and in the name alone.
pub struct WordSets {
    pub anywhere: RankSet,
    pub in_name: RankSet,
}

impl WordSets {
    /// The sets of words whose matches anywhere and in the name were read
    /// one by one already (forgiving search reads them so, to grade areas).
    pub fn of_words<'a>(words: impl Iterator<Item = &'a (Matches, Matches)>, areas: usize) -> Self {
        let (anywhere, in_name) = words.map(|(a, n)| (a.clone(), n.clone())).unzip();
        WordSets {
            anywhere: RankSet::new(anywhere, areas),
            in_name: RankSet::new(in_name, areas),
        }
    }
}

/// The matches of a search's words (see `WordSets`).
///
/// Each word's matches are read on their own, anywhere and in the name, and
/// intersected here: the matches of common words ("west", "central", "6") are
/// kept (search/matches/match_cache.rs), so a full name costs the reading of its rare
/// words only, where FTS5's own AND walked every common word's list each time.
/// A dataset that stores its heavy words' matches (search/matches/word_store.rs) is
/// read from there. Words known to be light are read together, two queries
/// in all: FTS5's own AND is cheap over short lists.
pub fn word_matches(
    conn: &Connection,
    index: &AreaIndex,
    cache: &MatchCache,
    words: &[String],
) -> ApiResult<WordSets> {
    let mut anywhere = Vec::new();
    let mut in_name = Vec::new();
    let mut light = Vec::new();
    let areas = index.area_count();
    for word in words {
        // FTS5 folds case, so "North" and "north" are one query, kept once.
        let term = fts_term(&word.to_ascii_lowercase());
        if cache.is_light(&term) {
            light.push(term);
            continue;
        }
        if cache.has_stored_sets() && word.is_ascii() {
            // Every heavy prefix is stored (search/matches/word_store.rs), and an
            // ASCII word is stored as typed: one not stored is light.
            let any = kept_or_stored(conn, index, cache, &term)?;
            let name = kept_or_stored(conn, index, cache, &in_name_query(&term))?;
            if let (Some(any), Some(name)) = (any, name) {
                anywhere.push(any.0);
                in_name.push(name.0);
            } else {
                cache.note_light(&term);
                light.push(term);
            }
            continue;
        }
        let (any, count) = all_matches(conn, index, cache, &term, |n| {
            (cache.is_heavy(n), cache.wants_bits(n, areas))
        })?;
        // Reading where a word is in the name costs as much as reading all
        // its matches (FTS5 looks at each to tell the column), so the name
        // list of a heavy word is kept however short it is.
        let heavy = cache.is_heavy(count);
        if !heavy {
            cache.note_light(&term);
        }
        let name = all_matches(conn, index, cache, &in_name_query(&term), |n| {
            (heavy, heavy && cache.wants_bits(n, areas))
        })?;
        in_name.push(name.0);
        anywhere.push(any);
    }
    if !light.is_empty() {
        let together = light.join(" ");
        let never = |_| (false, false);
        anywhere.push(all_matches(conn, index, cache, &together, never)?.0);
        in_name.push(all_matches(conn, index, cache, &in_name_query(&together), never)?.0);
    }
    Ok(WordSets {
        anywhere: RankSet::new(anywhere, areas),
        in_name: RankSet::new(in_name, areas),
    })
}

/// The matches of one FTS5 query of forgiving search (a word, a prefix or
/// a phrase): kept, stored as a heavy prefix, or read and kept when heavy.
pub fn term_matches(
    conn: &Connection,
    index: &AreaIndex,
    cache: &MatchCache,
    fts_query: &str,
) -> ApiResult<Matches> {
    if cache.is_light(fts_query) {
        return Ok(all_matches(conn, index, cache, fts_query, |_| (false, false))?.0);
    }
    if cache.has_stored_sets()
        && let Some((matches, _)) = kept_or_stored(conn, index, cache, fts_query)?
    {
        return Ok(matches);
    }
    // Kept as the strict search keeps it, since the two share the cache.
    let areas = index.area_count();
    let (matches, count) = all_matches(conn, index, cache, fts_query, |n| {
        (cache.is_heavy(n), cache.wants_bits(n, areas))
    })?;
    if !cache.is_heavy(count) {
        cache.note_light(fts_query);
    }
    Ok(matches)
}

/// Other names' matches of at least this many areas are kept with the
/// words' (search/matches/match_cache.rs): a seed place's former name is copied to
/// every synthetic copy of it, a thousand rows at a million areas, and the
/// prefix a person types first ("port") matches several.
const OTHER_NAMES_KEPT_FROM: usize = 256;

/// The search ranks of the areas an other name of which matches an FTS5
/// query, best first, each once.
pub fn other_name_ranks(
    conn: &Connection,
    cache: &MatchCache,
    fts_query: &str,
) -> ApiResult<Arc<[u32]>> {
    // FTS5 queries start with a quote or a column name, never with this.
    let key = format!("other_names_fts {fts_query}");
    if let Some(Matches::List(ranks)) = cache.get(&key) {
        return Ok(ranks);
    }
    let mut stmt = conn.prepare_cached(
        "SELECT rowid FROM other_names_fts WHERE other_names_fts MATCH ?1 ORDER BY rowid",
    )?;
    let mut rows = stmt.query([fts_query])?;
    let mut ranks: Vec<u32> = Vec::new();
    while let Some(row) = rows.next()? {
        let rowid: i64 = row.get(0)?;
        let rank = u32::try_from(rowid / OTHER_NAME_SLOTS).unwrap_or(u32::MAX);
        if ranks.last() != Some(&rank) {
            ranks.push(rank);
        }
    }
    let ranks: Arc<[u32]> = ranks.into();
    if ranks.len() >= OTHER_NAMES_KEPT_FROM {
        cache.keep(&key, Matches::List(ranks.clone()));
    }
    Ok(ranks)
}

/// The kept matches of an FTS5 query and their number.
fn kept(cache: &MatchCache, fts_query: &str) -> Option<(Matches, usize)> {
    let matches = cache.get(fts_query)?;
    let count = match &matches {
        Matches::List(ranks) => ranks.len(),
        Matches::Bits(b) => b.matches,
    };
    Some((matches, count))
}

/// The kept matches of an FTS5 query, or else its stored ones, then kept.
fn kept_or_stored(
    conn: &Connection,
    index: &AreaIndex,
    cache: &MatchCache,
    fts_query: &str,
) -> ApiResult<Option<(Matches, usize)>> {
    if let Some(found) = kept(cache, fts_query) {
        return Ok(Some(found));
    }
    let stored = word_store::read(conn, index, fts_query)?;
    if let Some((matches, _)) = &stored {
        cache.keep(fts_query, matches.clone());
    }
    Ok(stored)
}

/// Every match, and how many: the kept matches (search/matches/match_cache.rs), or
/// else read from FTS5 and kept when `keeping` says so of their number (as
/// bitmaps when it says that too), or when the read was slow.
pub fn all_matches(
    conn: &Connection,
    index: &AreaIndex,
    cache: &MatchCache,
    fts_query: &str,
    keeping: impl Fn(usize) -> (bool, bool),
) -> ApiResult<(Matches, usize)> {
    if let Some(found) = kept(cache, fts_query) {
        return Ok(found);
    }
    let started = Instant::now();
    let read = word_store::ranks_of(conn, fts_query)?;
    let count = read.len();
    let (keep, as_bits) = keeping(count);
    let matches = word_store::kept_form(index, read, as_bits);
    if keep || cache.worth_keeping(count, started.elapsed()) {
        cache.keep(fts_query, matches.clone());
    }
    Ok((matches, count))
}
