//! Moving API keys out of dataset files into the keys file.
//!
//! Dataset files of schema version 2 and older held the keys and plan limits
//! themselves. The first command that opens such a file (`serve` too, the
//! first command after an upgrade) merges its keys into the keys file, then
//! removes them from the dataset, which becomes schema version 3: areas only.
//! `keys migrate FILE...` merges further copies without changing them, such
//! as the copies of replicas that each had revocations of their own.
//!
//! A merge is a union by key id. A key revoked in any copy stays revoked, at
//! its earliest revocation. A key already in the keys file keeps its plan and
//! label there, and its plan history (a key new to the keys file brings the
//! history its file recorded). Plan limits are taken from the first file merged into a
//! keys file that holds no keys yet; later merges leave them, and say where
//! they differ.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::access::AccessError;
use crate::access::key_file;
use crate::data::db;
use crate::file_error::cannot;

/// How long a migration waits for another writer of either file.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// What one merge did.
#[derive(Debug, Default, PartialEq)]
pub struct Merged {
    /// Keys in the file merged.
    pub keys: usize,
    /// Of those, keys the keys file did not have.
    pub added: usize,
    /// Keys the merge revoked (or gave an earlier revocation).
    pub revoked: usize,
    /// Plans whose limit in the merged file differs from the keys file's.
    pub other_limits: Vec<String>,
    /// Whether the plan limits were taken (into a keys file without keys).
    pub took_limits: bool,
}

/// What moving a dataset's keys out did: said on stderr (or logged), and a
/// warning when they could not be dropped from the dataset.
pub struct Moved {
    pub said: String,
    pub left_in_dataset: Option<String>,
}

const ADD_KEYS: &str = "
    INSERT OR IGNORE INTO main.api_keys (id, key_hash, plan, label, created_at, revoked_at)
    SELECT id, key_hash, plan, label, created_at, revoked_at FROM old.api_keys
    WHERE id NOT IN (SELECT id FROM main.api_keys)";

/// Run only where the file merged has a plan history (access/plan_history.rs).
const ADD_HISTORY: &str = "
    INSERT INTO main.plan_history (key_id, plan, since)
    SELECT key_id, plan, since FROM old.plan_history
    WHERE key_id NOT IN (SELECT key_id FROM main.plan_history)
    ORDER BY key_id, since, rowid";

const REVOKE_KEYS: &str = "
    UPDATE main.api_keys
    SET revoked_at = (SELECT o.revoked_at FROM old.api_keys o WHERE o.id = api_keys.id)
    WHERE id IN (
        SELECT o.id FROM old.api_keys o
        WHERE o.revoked_at IS NOT NULL AND o.id = api_keys.id
          AND (api_keys.revoked_at IS NULL OR o.revoked_at < api_keys.revoked_at))";

const TAKE_LIMITS: &str = "
    UPDATE main.plans
    SET requests_per_minute = (SELECT o.requests_per_minute FROM old.plans o WHERE o.name = plans.name)
    WHERE name IN (SELECT name FROM old.plans)";

const OTHER_LIMITS: &str = "
    SELECT p.name FROM main.plans p JOIN old.plans o ON o.name = p.name
    WHERE o.requests_per_minute IS NOT p.requests_per_minute ORDER BY p.rank";

/// Whether `conn`'s file has the old key tables.
fn holds_keys(conn: &Connection, schema: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        &format!(
            "SELECT count(*) = 2 FROM {schema}.sqlite_schema WHERE name IN ('api_keys', 'plans')"
        ),
        [],
        |r| r.get(0),
    )
}

/// Merges the keys and limits of `from` (an old dataset file, or another
/// keys file) into the keys file at `keys`. None when `from` holds no keys:
/// a dataset whose keys were moved out already.
pub fn merge(from: &Path, keys: &Path) -> Result<Option<Merged>, AccessError> {
    if !from.is_file() {
        return Err(AccessError::Missing(from.to_path_buf()));
    }
    // What opening says (made, made private) is said again by the command's
    // own open of the keys file; the move itself names the file.
    let (conn, _) = key_file::open(keys)?;
    let from_text = from.to_str().ok_or(AccessError::NotUtf8)?;
    conn.execute("ATTACH DATABASE ?1 AS old", [from_text])
        .map_err(cannot("open", from))?;
    let merged = merge_attached(&conn, from);
    let _ = conn.execute("DETACH DATABASE old", []);
    merged
}

fn merge_attached(conn: &Connection, from: &Path) -> Result<Option<Merged>, AccessError> {
    let fail = cannot("merge the keys of", from);
    if !holds_keys(conn, "old").map_err(&fail)? {
        return Ok(None);
    }
    conn.execute_batch("BEGIN IMMEDIATE").map_err(&fail)?;
    let done = (|| {
        // A keys file without keys takes the limits of the first file merged.
        let keyless: bool =
            conn.query_row("SELECT count(*) = 0 FROM main.api_keys", [], |r| r.get(0))?;
        let keys: i64 = conn.query_row("SELECT count(*) FROM old.api_keys", [], |r| r.get(0))?;
        let added = conn.execute(ADD_KEYS, [])?;
        let has_history: bool = conn.query_row(
            "SELECT count(*) > 0 FROM old.sqlite_schema WHERE name = 'plan_history'",
            [],
            |r| r.get(0),
        )?;
        if has_history {
            conn.execute(ADD_HISTORY, [])?;
        }
        let revoked = conn.execute(REVOKE_KEYS, [])?;
        let other_limits = match keyless {
            true => {
                conn.execute(TAKE_LIMITS, [])?;
                Vec::new()
            }
            false => {
                let mut stmt = conn.prepare(OTHER_LIMITS)?;
                stmt.query_map([], |r| r.get(0))?
                    .collect::<rusqlite::Result<Vec<String>>>()?
            }
        };
        Ok(Merged {
            keys: keys as usize,
            added,
            revoked,
            other_limits,
            took_limits: keyless,
        })
    })();
    let end = if done.is_ok() { "COMMIT" } else { "ROLLBACK" };
    conn.execute_batch(end).map_err(&fail)?;
    Ok(done.map(Some).map_err(&fail)?)
}

/// Moves the keys of the dataset at `db`, if it still holds any, into the
/// keys file: a merge, then the key tables dropped from the dataset. None
/// when there was nothing to move. Where the dataset cannot be written, its
/// keys are merged and left in it, unread, with a warning.
pub fn out_of_dataset(db: &Path, keys: &Path) -> Result<Option<Moved>, AccessError> {
    if !db.is_file() || !dataset_holds_keys(db)? {
        return Ok(None);
    }
    let Some(merged) = merge(db, keys)? else {
        return Ok(None);
    };
    let mut said = format!(
        "moved {} API keys ({} new){} from {} into {}",
        merged.keys,
        merged.added,
        if merged.took_limits {
            " and the plan limits"
        } else {
            ""
        },
        db.display(),
        keys.display()
    );
    if !merged.other_limits.is_empty() {
        said += &format!(
            "; the keys file's limits were kept for {}, which differ (see: area-scoring plans list)",
            merged.other_limits.join(", ")
        );
    }
    let left_in_dataset = drop_keys(db).err().map(|e| {
        format!(
            "the key hashes stay in {} too, unread by this build, as it cannot be written ({e}): \
             run this command again as a user who may write it, so that they are removed",
            db.display()
        )
    });
    Ok(Some(Moved {
        said,
        left_in_dataset,
    }))
}

/// Whether `db` is a dataset of ours with the old key tables. A file that is
/// not SQLite holds none (the command's own check says what it is); a file
/// that cannot be read now is an error, not a file without keys.
fn dataset_holds_keys(db: &Path) -> Result<bool, AccessError> {
    // Read-write where it may, so that a journal a killed writer left is
    // rolled back first (a read-only connection cannot).
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .or_else(|_| Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY))
        .map_err(cannot("open", db))?;
    let holds = conn
        .busy_timeout(BUSY_TIMEOUT)
        .and_then(|()| db::read_versions(&conn))
        .and_then(|(id, _)| Ok(id == db::APPLICATION_ID && holds_keys(&conn, "main")?));
    match holds {
        Ok(holds) => Ok(holds),
        Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::NotADatabase) => Ok(false),
        Err(source) => Err(AccessError::KeysNotMoved {
            path: db.to_path_buf(),
            source,
        }),
    }
}

/// Drops the key tables, zeroing the pages the hashes were on (secure_delete).
fn drop_keys(db: &Path) -> rusqlite::Result<()> {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.execute_batch(&format!(
        "PRAGMA secure_delete = ON;
         BEGIN IMMEDIATE;
         DROP TABLE api_keys;
         DROP TABLE plans;
         PRAGMA user_version = {};
         COMMIT;",
        db::AREAS_ONLY_VERSION
    ))
}
