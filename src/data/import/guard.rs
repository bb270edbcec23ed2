//! The way back: what an import may not do to the served dataset unless
//! the operator says so (`--allow-shrink`), and the import that changes
//! nothing (docs/import.md, "Safeguards"). Judged on the complete new file
//! against the served one, under the write lock (`load::replace_database`).

use rusqlite::Connection;

use crate::data::identity;
use crate::data::import::ImportError;
use crate::data::load::Swap;
use crate::data::previous;

/// The share of the served areas an import may remove without
/// `--allow-shrink`: a file with fewer areas than this leaves is more
/// likely the wrong sheet than the new data.
pub const REMOVED_SHARE_MAX: f64 = 0.20;
/// The share of the served areas an import may move to another province
/// without `--allow-shrink`: so many moved is more likely a column mixed up.
pub const MOVED_SHARE_MAX: f64 = 0.20;
/// Fewer areas than this removed or moved is never refused, whatever their
/// share: a dataset so small is rebuilt in a minute, and kept for rollback.
pub const CHANGED_AREAS_MIN: i64 = 10;
/// The ids a refusal names, of those removed or moved.
pub const NAMED_IDS: usize = 5;

/// Decides what the new file (`main`) does to the served one (`served`,
/// attached when there is one): kept out when it holds the same areas or
/// was made from the same bytes,
/// refused when it removes or moves too many (unless `allow_shrink`).
pub fn decide(conn: &Connection, allow_shrink: bool, served_db: &str) -> Result<Swap, ImportError> {
    let sql = |source| ImportError::Compare {
        db: served_db.to_string(),
        source,
    };
    let attached: bool = conn
        .query_row(
            "SELECT count(*) > 0 FROM pragma_database_list WHERE name = 'served'",
            [],
            |r| r.get(0),
        )
        .map_err(sql)?;
    if !attached {
        return Ok(Swap::Replace);
    }
    // The same bytes read the same way make the same areas, but for the
    // dates an import fills in (a row without updated_at is dated today).
    if identity::same_source(conn, "main", "served")
        || previous::same_areas(conn, "main", "served").map_err(sql)?
    {
        return Ok(Swap::KeepServed);
    }
    if allow_shrink {
        return Ok(Swap::Replace);
    }
    let why = too_many(&Changes::read(conn, "main.areas").map_err(sql)?);
    if why.is_empty() {
        return Ok(Swap::Replace);
    }
    Err(ImportError::TooManyChanged {
        why,
        db: served_db.to_string(),
    })
}

/// Rows found by a query: how many, and the first `NAMED_IDS`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Found {
    pub count: i64,
    pub first: Vec<String>,
}

/// What the new areas do to the served ones (attached as `served`) that the guard judges.
#[derive(Debug, Clone, PartialEq)]
pub struct Changes {
    pub served: i64,
    pub removed: Found,
    pub moved: Found,
}

impl Changes {
    /// `new` is the table of the new areas, with their id and province_slug
    /// (`main.areas` of a new file, or an import's staged rows).
    pub fn read(conn: &Connection, new: &str) -> rusqlite::Result<Changes> {
        let served = conn.query_row("SELECT count(*) FROM served.areas", [], |r| r.get(0))?;
        let removed = format!(
            "SELECT s.id FROM served.areas s
             WHERE NOT EXISTS (SELECT 1 FROM {new} n WHERE n.id = s.id) ORDER BY s.id"
        );
        let moved = format!(
            "SELECT s.id || ' (' || s.province_slug || ' to ' || n.province_slug || ')'
             FROM served.areas s JOIN {new} n ON n.id = s.id
             WHERE n.province_slug <> s.province_slug ORDER BY s.id"
        );
        Ok(Changes {
            served,
            removed: found(conn, &removed)?,
            moved: found(conn, &moved)?,
        })
    }
}

/// Why the changes need `--allow-shrink`, one reason each; empty when they do not.
pub fn too_many(c: &Changes) -> Vec<String> {
    let served = c.served;
    let over = |f: &Found, share: f64| {
        f.count >= CHANGED_AREAS_MIN && f.count as f64 > share * served as f64
    };
    let mut why = Vec::new();
    if over(&c.removed, REMOVED_SHARE_MAX) {
        why.push(format!(
            "remove {} of the {served} areas it serves (more than {:.0}%): {}",
            c.removed.count,
            REMOVED_SHARE_MAX * 100.0,
            named(&c.removed)
        ));
    }
    if over(&c.moved, MOVED_SHARE_MAX) {
        why.push(format!(
            "move {} of the {served} areas it serves to another province (more than {:.0}%): {}",
            c.moved.count,
            MOVED_SHARE_MAX * 100.0,
            named(&c.moved)
        ));
    }
    why
}

/// How many rows `select` finds, and the first `NAMED_IDS` of them.
pub fn found(conn: &Connection, select: &str) -> rusqlite::Result<Found> {
    let mut stmt = conn.prepare(select)?;
    let mut rows = stmt.query([])?;
    let mut out = Found::default();
    while let Some(row) = rows.next()? {
        if out.first.len() < NAMED_IDS {
            out.first.push(row.get(0)?);
        }
        out.count += 1;
    }
    Ok(out)
}

/// The first ids found, and how many more.
pub fn named(f: &Found) -> String {
    let more = f.count - f.first.len() as i64;
    match more {
        0 => f.first.join(", "),
        _ => format!("{} and {more} more", f.first.join(", ")),
    }
}
