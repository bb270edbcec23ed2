//! Opening the database: the read-only pool the server uses, the writable
//! connection the command line uses, and the check that a file is ours.

use std::ops::RangeInclusive;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, OpenFlags};
use scheduled_thread_pool::ScheduledThreadPool;

use crate::data::error::DataError;
pub use crate::data::pool_size::PoolSize;
use crate::error::ApiError;
use crate::file_error::cannot;

pub type Pool = r2d2::Pool<SqliteConnectionManager>;
pub type PooledConnection = r2d2::PooledConnection<SqliteConnectionManager>;

/// Marks a file as an area-scoring database (PRAGMA application_id, "AREA").
pub const APPLICATION_ID: i64 = 0x4152_4541;
/// Bumped whenever schema.sql changes incompatibly (PRAGMA user_version).
/// 2: search ranks, contentless FTS5 with prefixes 1-12, stored Get Area bodies.
/// 3: areas only; API keys and plans live in the keys file (access/key_file.rs).
/// 4: areas' other names (area_other_names, other_names_fts).
/// 5: neighbouring words joined (joined_fts, other_joined_fts).
/// 6: each area's last year of history in one row (recent_history).
/// 7: each area's list form stored (area_list_form).
/// 8: areas' boundaries, simplified forms and boxes (area_boundaries,
///    area_boundary_simplified, area_boundary_boxes).
/// 9: statistics by group and score counts by scope (stats_groups,
///    group_stats, score_counts); province_slug in the stored detail and
///    list forms.
/// 10: boundaries' grid cells (area_boundary_cells) in place of the R*Tree
///    of their boxes.
pub const SCHEMA_VERSION: i64 = 10;
/// A version-2 file's label once its key tables are dropped (3's layout).
pub const AREAS_ONLY_VERSION: i64 = 3;
/// The first schema: `import` and `init --force` replace a file of ours from
/// this version on, since they write it anew.
pub const OLDEST_VERSION: i64 = 1;
/// The versions the server reads: the current layout alone, so that every
/// table it reads is there. An older file is rewritten by
/// `area-scoring upgrade FILE` (data/upgrade.rs), which the refusal names.
pub const READABLE_VERSIONS: RangeInclusive<i64> = SCHEMA_VERSION..=SCHEMA_VERSION;

/// How long a reader waits for a writer to finish.
const BUSY_TIMEOUT: Duration = Duration::from_secs(2);
/// Prepared statements kept per connection. rusqlite keeps 16 by default, fewer
/// than the statements the API runs, which would re-prepare on every request.
const STATEMENT_CACHE: usize = 64;

/// Opens a pool of read-only connections after checking the file.
///
/// A file of the current schema is never written while it is served (import
/// and rollback replace it by a rename; docs/operations.md, "Data: init, import, reload"),
/// so its connections open it with SQLite's `immutable=1`: a read takes no
/// file lock and looks for no journal (a lock cycle per request otherwise).
/// No memory map: a file truncated in place would
/// crash the process with SIGBUS; with reads it is an error, answered 503
/// (data/dataset.rs notices the change and stops serving the file).
pub fn open_pool(path: &Path, size: PoolSize) -> Result<Pool, DataError> {
    check(path)?;
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let manager = SqliteConnectionManager::file(immutable_uri(path)?)
        .with_flags(flags | OpenFlags::SQLITE_OPEN_URI);
    let page_cache_kib = size.page_cache_kib;
    let manager = manager.with_init(move |conn| {
        conn.pragma_update(None, "mmap_size", 0)?;
        conn.pragma_update(None, "cache_size", -page_cache_kib)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        // Keep each cached statement's query plan. Without this, SQLite
        // re-prepares statements whose plan may depend on bound values
        // (the STAT4 tables ANALYZE writes, LIMIT ?): 39% of Get Area's
        // instructions under callgrind. The data never changes while it
        // is served, so a plan chosen once stays right.
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
            true,
        )?;
        Ok(())
    });
    r2d2::Pool::builder()
        .max_size(size.most.max(size.kept))
        .min_idle(Some(size.kept))
        // A read-only local file does not go stale; checking it on every checkout
        // would cost a query per request, and recycling connections buys nothing.
        .test_on_check_out(false)
        .idle_timeout(None)
        .max_lifetime(None)
        .thread_pool(maintenance_threads())
        .connection_timeout(Duration::from_secs(5))
        .build(manager)
        .map_err(|source| DataError::Pool {
            path: path.to_path_buf(),
            source,
        })
}

/// One set of maintenance threads for every pool the process opens. r2d2
/// starts three per pool otherwise, and a pool replaced by a reload would keep
/// its threads for a while after its last connection is gone.
fn maintenance_threads() -> Arc<ScheduledThreadPool> {
    static SHARED: OnceLock<Arc<ScheduledThreadPool>> = OnceLock::new();
    SHARED
        .get_or_init(|| {
            Arc::new(
                ScheduledThreadPool::builder()
                    .num_threads(2)
                    .thread_name_pattern("db-pool-{}")
                    .build(),
            )
        })
        .clone()
}

/// Opens an existing database for writing (keys, import).
pub fn open_writable(path: &Path) -> Result<Connection, DataError> {
    must_exist(path)?;
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .map_err(cannot("open", path))?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // Checked through this connection: unlike a read-only one, its first read
    // rolls back a journal that a command killed mid-commit left behind.
    check_open(&conn, path, READABLE_VERSIONS)?;
    Ok(conn)
}

/// Refuses a path that is missing, not SQLite, or not a database of this schema,
/// with a message that says what to do.
pub fn check(path: &Path) -> Result<(), DataError> {
    check_versions(path, READABLE_VERSIONS)
}

/// `file:` URI of `path` with `immutable=1` (RFC 3986 escapes, so that a `?`
/// or `#` in the path stays part of it).
pub fn immutable_uri(path: &Path) -> Result<String, DataError> {
    use std::os::unix::ffi::OsStrExt;
    let absolute = std::path::absolute(path).map_err(|source| DataError::Path {
        path: path.to_path_buf(),
        source,
    })?;
    let mut uri = String::from("file:");
    for &b in absolute.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    Ok(uri)
}

/// Like `check`, accepting any schema version in `versions`.
pub fn check_versions(path: &Path, versions: RangeInclusive<i64>) -> Result<(), DataError> {
    must_exist(path)?;
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(cannot("open", path))?;
    check_open(&conn, path, versions)
}

fn must_exist(path: &Path) -> Result<(), DataError> {
    match path.is_file() {
        true => Ok(()),
        false => Err(DataError::Missing(path.to_path_buf())),
    }
}

fn check_open(
    conn: &Connection,
    path: &Path,
    versions: RangeInclusive<i64>,
) -> Result<(), DataError> {
    let path = path.to_path_buf();
    match read_versions(conn) {
        Ok((APPLICATION_ID, v)) if versions.contains(&v) => Ok(()),
        Ok((APPLICATION_ID, version)) if version < *READABLE_VERSIONS.start() => {
            Err(DataError::OlderLayout { path, version })
        }
        Ok((APPLICATION_ID, version)) => Err(DataError::NewerLayout { path, version }),
        Ok(_) => Err(DataError::NotOurs(path)),
        Err(e) if is_hot_journal(&e) => Err(DataError::HotJournal(path)),
        Err(source) => Err(DataError::NotDatabase { path, source }),
    }
}

/// A file's (application_id, user_version): whose file it is, and its schema.
pub fn read_versions(conn: &Connection) -> rusqlite::Result<(i64, i64)> {
    let read =
        |pragma: &str| conn.query_row(&format!("PRAGMA {pragma}"), [], |r| r.get::<_, i64>(0));
    Ok((read("application_id")?, read("user_version")?))
}

/// A read-only connection met a journal it would have to roll back.
pub fn is_hot_journal(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if f.extended_code == rusqlite::ffi::SQLITE_READONLY_ROLLBACK)
}

/// A database that is locked, corrupt, unreadable or gone is a passing outage
/// (503, retry); any other database error is a bug (500). Either way the detail
/// is logged, never sent.
impl From<rusqlite::Error> for ApiError {
    fn from(err: rusqlite::Error) -> ApiError {
        use rusqlite::ErrorCode::*;
        let outage = matches!(
            err.sqlite_error_code(),
            Some(
                DatabaseBusy
                    | DatabaseLocked
                    | DatabaseCorrupt
                    | NotADatabase
                    | CannotOpen
                    | SystemIoFailure
                    // The server reads only: it meets this when a write it
                    // cannot make is needed first (a hot journal to roll back).
                    | ReadOnly
            )
        );
        log::error!("database error: {err}");
        if is_hot_journal(&err) {
            log::error!(
                "a command writing the database stopped mid-commit and left its journal, \
                 which this read-only server cannot roll back: any area-scoring command \
                 that opens the file read-write does (area-scoring keys list --db FILE will)"
            );
        }
        if outage {
            ApiError::ServiceUnavailable
        } else {
            ApiError::Internal
        }
    }
}

/// The pool gives up after its connection timeout: every connection is busy or
/// none can be opened. Both pass.
impl From<r2d2::Error> for ApiError {
    fn from(err: r2d2::Error) -> ApiError {
        log::error!("connection pool error: {err}");
        ApiError::ServiceUnavailable
    }
}
