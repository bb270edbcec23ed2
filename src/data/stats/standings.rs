//! Where an area's score stands nationally and in its province (include=rank):
//! the score counts the build wrote (schema.sql, score_counts), read whole
//! when a dataset opens. At most 10 scopes × 8 measures × 1001 scores, six
//! bytes each: an area's standing is then a binary search, not a query.

use rusqlite::{Connection, OpenFlags};

use crate::data::error::DataError;

use super::summary::Standing;
use crate::domain::{MEASURES, PROVINCES};

/// The scores one scope holds of one measure, ascending, each with the
/// number of scores below it; and how many have the measure.
#[derive(Debug, Default)]
struct Counts {
    scores: Vec<u16>,
    lower: Vec<u32>,
    total: u32,
}

/// Every scope's counts: the nation's, then each province's in `PROVINCES`
/// order, each by measure in `MEASURES` order.
#[derive(Debug)]
pub struct Standings(Vec<Counts>);

/// The nation, or a province by its place in `PROVINCES`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Nation,
    Province(usize),
}

impl Scope {
    /// A province by slug; None for one outside the nine.
    pub fn province(slug: &str) -> Option<Scope> {
        PROVINCES
            .iter()
            .position(|(s, _)| *s == slug)
            .map(Scope::Province)
    }

    fn index(self) -> usize {
        match self {
            Scope::Nation => 0,
            Scope::Province(p) => 1 + p,
        }
    }

    fn of_slug(slug: &str) -> Option<Scope> {
        if slug.is_empty() {
            Some(Scope::Nation)
        } else {
            Scope::province(slug)
        }
    }
}

impl Standings {
    /// Reads the counts of the file at `path` on a connection of its own,
    /// closed after: the pages read go with it, rather than staying in the
    /// page cache of a pooled connection for as long as the file is served.
    pub fn read_file(path: &std::path::Path) -> Result<Standings, DataError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(crate::data::db::immutable_uri(path)?, flags)?;
        Ok(Standings::read(&conn)?)
    }

    fn read(conn: &Connection) -> rusqlite::Result<Standings> {
        let mut all: Vec<Counts> = (0..(1 + PROVINCES.len()) * MEASURES.len())
            .map(|_| Counts::default())
            .collect();
        let mut stmt = conn.prepare(
            "SELECT scope, measure, score, lower, total FROM score_counts ORDER BY scope, measure, score",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let (scope, measure): (String, String) = (r.get(0)?, r.get(1)?);
            let (Some(scope), Some(m)) = (
                Scope::of_slug(&scope),
                MEASURES.iter().position(|n| *n == measure),
            ) else {
                continue;
            };
            let counts = &mut all[scope.index() * MEASURES.len() + m];
            counts.scores.push(r.get(2)?);
            counts.lower.push(r.get(3)?);
            counts.total = r.get(4)?;
        }
        all.iter_mut().for_each(|c| {
            c.scores.shrink_to_fit();
            c.lower.shrink_to_fit();
        });
        Ok(Standings(all))
    }

    /// Where `score` (hundredths) of measure `measure` (its place in
    /// `MEASURES`) stands in `scope`; None when no area of it holds that score.
    pub fn of(&self, scope: Scope, measure: usize, score: u16) -> Option<Standing> {
        let counts = self.0.get(scope.index() * MEASURES.len() + measure)?;
        let at = counts.scores.binary_search(&score).ok()?;
        let lower = counts.lower[at];
        let next = counts.lower.get(at + 1).copied().unwrap_or(counts.total);
        Some(Standing {
            lower: u64::from(lower),
            equal: u64::from(next - lower),
            of: u64::from(counts.total),
        })
    }

    /// The bytes held, for the log.
    pub fn heap_bytes(&self) -> usize {
        self.0
            .iter()
            .map(|c| c.scores.capacity() * 2 + c.lower.capacity() * 4)
            .sum()
    }
}
