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
/// A dataset that stores its heavy words' matches (search/matches/word_store/) is
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
            // Every heavy prefix is stored (search/matches/word_store/), and an
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

/// Other names' and joined words' matches of at least this many areas are
/// kept with the words' (search/matches/match_cache.rs): a seed place's former
/// name is copied to every synthetic copy of it, a thousand rows at a million
/// areas, and the prefix a person types first ("port") matches several.
pub const RANKS_KEPT_FROM: usize = 256;

/// A full-text table read as search ranks beside `areas_fts`: the other
/// names, and the joined words of each (search/matches/joined_words.rs).
#[derive(Clone, Copy)]
pub enum RankTable {
    OtherNames,
    Joined,
    OtherJoined,
}

impl RankTable {
    pub const fn name(self) -> &'static str {
        match self {
            RankTable::OtherNames => "other_names_fts",
            RankTable::Joined => "joined_fts",
            RankTable::OtherJoined => "other_joined_fts",
        }
    }

    /// Rowids per rank: an other name's rowid is its area's rank times
    /// `OTHER_NAME_SLOTS`, plus its place among the area's other names.
    const fn slots(self) -> i64 {
        match self {
            RankTable::Joined => 1,
            _ => OTHER_NAME_SLOTS,
        }
    }

    /// Its matches by rowid. The name is one of the three above, never a
    /// user's value.
    fn matching(self) -> String {
        let table = self.name();
        format!("SELECT rowid FROM {table} WHERE {table} MATCH ?1 ORDER BY rowid")
    }
}

/// The search ranks of the areas an other name of which matches an FTS5
/// query, best first, each once.
pub fn other_name_ranks(
    conn: &Connection,
    cache: &MatchCache,
    fts_query: &str,
) -> ApiResult<Arc<[u32]>> {
    ranks_in(conn, cache, RankTable::OtherNames, fts_query)
}

/// The search ranks of the areas a row of `table` of which matches an FTS5
/// query, best first, each once: kept when many, or slow to read.
pub fn ranks_in(
    conn: &Connection,
    cache: &MatchCache,
    table: RankTable,
    fts_query: &str,
) -> ApiResult<Arc<[u32]>> {
    // FTS5 queries start with a quote or a column name, never with a
    // table's name and a space.
    let key = format!("{} {fts_query}", table.name());
    if let Some(Matches::List(ranks)) = cache.get(&key) {
        return Ok(ranks);
    }
    let started = Instant::now();
    let mut stmt = conn.prepare_cached(&table.matching())?;
    let mut rows = stmt.query([fts_query])?;
    let mut ranks: Vec<u32> = Vec::new();
    while let Some(row) = rows.next()? {
        let rowid: i64 = row.get(0)?;
        let rank = u32::try_from(rowid / table.slots()).unwrap_or(u32::MAX);
        if ranks.last() != Some(&rank) {
            ranks.push(rank);
        }
    }
    let ranks: Arc<[u32]> = ranks.into();
    if ranks.len() >= RANKS_KEPT_FROM || cache.worth_keeping(ranks.len(), started.elapsed()) {
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

/// The kept matches of an FTS5 query, or else its stored ones, then kept
/// under their set's key, which the queries sharing the set share.
fn kept_or_stored(
    conn: &Connection,
    index: &AreaIndex,
    cache: &MatchCache,
    fts_query: &str,
) -> ApiResult<Option<(Matches, usize)>> {
    if let Some(found) = kept(cache, fts_query) {
        return Ok(Some(found));
    }
    let set_no = match cache.set_of(fts_query) {
        Some(set_no) => set_no,
        None => {
            let Some(set_no) = word_store::set_of(conn, fts_query)? else {
                return Ok(None);
            };
            cache.note_set(fts_query, set_no);
            set_no
        }
    };
    // FTS5 queries start with a quote or a column name, never with this.
    let key = format!("stored set {set_no}");
    if let Some(found) = kept(cache, &key) {
        return Ok(Some(found));
    }
    let stored = word_store::read_set(conn, index, set_no)?;
    if let Some((matches, _)) = &stored {
        cache.keep(&key, matches.clone());
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
