//! The way back: what an import may not do to the served dataset unless
//! the operator says so (`--allow-shrink`), and the import that changes
//! nothing (docs/import.md, "Safeguards"). Judged on the complete new file
//! against the served one, under the write lock (`load::replace_database`).

use rusqlite::Connection;

use crate::data::identity;
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
pub fn decide(conn: &Connection, allow_shrink: bool, served_db: &str) -> Result<Swap, String> {
    let sql = |e: rusqlite::Error| format!("cannot compare with {served_db}: {e}");
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
    let served: i64 = conn
        .query_row("SELECT count(*) FROM served.areas", [], |r| r.get(0))
        .map_err(sql)?;
    let removed = changed(conn, REMOVED).map_err(sql)?;
    let moved = changed(conn, MOVED).map_err(sql)?;
    let too_many = |(n, _): &(i64, Vec<String>), share| {
        *n >= CHANGED_AREAS_MIN && *n as f64 > share * served as f64
    };
    let mut why = Vec::new();
    if too_many(&removed, REMOVED_SHARE_MAX) {
        why.push(format!(
            "remove {} of the {served} areas it serves (more than {:.0}%): {}",
            removed.0,
            REMOVED_SHARE_MAX * 100.0,
            named(&removed)
        ));
    }
    if too_many(&moved, MOVED_SHARE_MAX) {
        why.push(format!(
            "move {} of the {served} areas it serves to another province (more than {:.0}%): {}",
            moved.0,
            MOVED_SHARE_MAX * 100.0,
            named(&moved)
        ));
    }
    if why.is_empty() {
        return Ok(Swap::Replace);
    }
    Err(format!(
        "refusing to import: the file would {} in {served_db}. Nothing was written. \
         If that is what you mean, run the import again with --allow-shrink \
         (the replaced dataset is kept for rollback)",
        why.join(", and ")
    ))
}

/// The served areas the new file does not hold.
const REMOVED: &str = "SELECT s.id FROM served.areas s
     WHERE NOT EXISTS (SELECT 1 FROM main.areas n WHERE n.id = s.id) ORDER BY s.id";
/// The served areas the new file puts in another province, with both.
const MOVED: &str = "SELECT s.id || ' (' || s.province_slug || ' to ' || n.province_slug || ')'
     FROM served.areas s JOIN main.areas n ON n.id = s.id
     WHERE n.province_slug <> s.province_slug ORDER BY s.id";

/// How many rows `select` finds, and the first `NAMED_IDS` of them.
fn changed(conn: &Connection, select: &str) -> rusqlite::Result<(i64, Vec<String>)> {
    let mut stmt = conn.prepare(select)?;
    let mut rows = stmt.query([])?;
    let (mut count, mut first) = (0, Vec::new());
    while let Some(row) = rows.next()? {
        if first.len() < NAMED_IDS {
            first.push(row.get(0)?);
        }
        count += 1;
    }
    Ok((count, first))
}

fn named((count, first): &(i64, Vec<String>)) -> String {
    let more = *count - first.len() as i64;
    match more {
        0 => first.join(", "),
        _ => format!("{} and {more} more", first.join(", ")),
    }
}
