//! The keys file: API keys and plans, in an SQLite file of their own, apart
//! from the dataset. Every replica on a host points at the same one, so a key
//! is created, revoked or moved to another plan once (docs/operations.md, "Keys").
//!
//! The file is created with mode 0600 before SQLite first opens it. SQLite
//! gives the journals it creates beside a file that file's mode, so they are
//! never world-readable either. It stays in rollback-journal mode: the file's
//! change counter (bytes 24 to 27 of its header) then moves on every commit,
//! which is how the server notices a change (`key_store`).

use std::fs::OpenOptions;
use std::io::ErrorKind;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::access::AccessError;
use crate::file_error::cannot;

/// The keys file's name when no `--keys` or `AREA_KEYS` says otherwise: it
/// sits in the dataset's folder.
pub const DEFAULT_KEYS_NAME: &str = "keys.db";
/// Marks a file as a keys file (PRAGMA application_id, "KEYS").
pub const KEYS_APPLICATION_ID: i64 = 0x4B45_5953;
/// The keys file's schema version (PRAGMA user_version).
pub const KEYS_SCHEMA_VERSION: i64 = 1;
/// Mode of every file holding keys or usage.
pub const PRIVATE_MODE: u32 = 0o600;
/// How long a command waits for another writer to finish. The server's
/// read waits for none (`open_read_now`).
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Plans, ranked: a plan may use what every plan of lower rank may use.
/// requests_per_minute NULL means unlimited. The versions are set apart
/// (`mark`), as PRAGMA takes no bound values.
pub(crate) const SCHEMA: &str = "
    CREATE TABLE plans (
        name                TEXT    PRIMARY KEY,
        rank                INTEGER NOT NULL UNIQUE,
        requests_per_minute INTEGER CHECK (requests_per_minute IS NULL OR requests_per_minute > 0)
    );
    INSERT OR IGNORE INTO plans (name, rank, requests_per_minute) VALUES
        ('free', 0, 60), ('starter', 1, 600), ('growth', 2, 3000), ('enterprise', 3, NULL);
    -- Only the SHA-256 of a key is kept; id is a public handle that reveals
    -- nothing of the key.
    CREATE TABLE api_keys (
        id         TEXT PRIMARY KEY,
        key_hash   BLOB NOT NULL UNIQUE CHECK (length(key_hash) = 32),
        plan       TEXT NOT NULL REFERENCES plans (name),
        label      TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        revoked_at TEXT
    );";

/// The keys file beside a dataset, when none is named.
pub fn default_path(db: &Path) -> PathBuf {
    match db.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => dir.join(DEFAULT_KEYS_NAME),
        None => PathBuf::from(DEFAULT_KEYS_NAME),
    }
}

/// Creates an empty file with mode 0600 unless one is there. True if created.
pub fn create_private(path: &Path) -> Result<bool, AccessError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(cannot("create", dir))?;
    }
    match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(PRIVATE_MODE)
        .open(path)
    {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(cannot("create", path)(e).into()),
    }
}

/// Opens the keys file for writing, creating it with its schema when missing
/// or empty. Returns what the operator should be told: that it was made
/// (a server reads only the keys file it was pointed at), or made private.
pub fn open(path: &Path) -> Result<(Connection, Vec<String>), AccessError> {
    create_private(path)?;
    let mut notices: Vec<String> = keep_private(path)?.into_iter().collect();
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .map_err(cannot("open", path))?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let fresh = fill_if_empty(&conn).map_err(cannot("write the keys file", path))?;
    if fresh {
        notices.push(format!(
            "created the keys file {} (servers read it when given --keys or AREA_KEYS \
             with this path, or when it is beside their dataset)",
            path.display()
        ));
    }
    check(&conn, path)?;
    conn.execute_batch(crate::access::plan_history::SCHEMA)
        .map_err(cannot("write the keys file", path))?;
    // The change counter the servers watch moves only in rollback-journal
    // mode: a WAL set by hand would hide changes until a checkpoint.
    conn.pragma_update(None, "journal_mode", "DELETE")
        .map_err(cannot("write", path))?;
    Ok((conn, notices))
}

/// `open`, for the command line: the notices go to stderr.
fn open_saying(path: &Path) -> Result<Connection, AccessError> {
    let (conn, notices) = open(path)?;
    for notice in notices {
        eprintln!("area-scoring: {notice}");
    }
    Ok(conn)
}

/// Opens the keys file for writing; a missing one is an error that says how
/// to make it, for the commands that only read or change existing keys.
pub fn open_existing(path: &Path) -> Result<Connection, AccessError> {
    if !path.is_file() {
        return Err(AccessError::NoKeysFile(path.to_path_buf()));
    }
    open_saying(path)
}

/// Opens an existing keys file read-only, waiting for another writer as a
/// command does.
pub fn open_read(path: &Path) -> Result<Connection, AccessError> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(cannot("open", path))?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    check(&conn, path)?;
    Ok(conn)
}

/// Why the server could not read the keys file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unread {
    /// Another connection holds a lock that keeps readers out: the file is
    /// tried again later, as it is.
    Locked(String),
    /// Not a keys file, unreadable or gone.
    Refused(String),
}

impl Unread {
    /// The error of a statement on `path`, sorted by whether a lock caused it.
    pub fn of(path: &Path, e: rusqlite::Error) -> Unread {
        let said = format!("cannot read {}: {e}", path.display());
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
                Unread::Locked(said)
            }
            _ => Unread::Refused(said),
        }
    }
}

/// Opens an existing keys file read-only without waiting for any lock: the
/// server's read, which runs on its watcher, must never stall behind a
/// writer (a long transaction, a backup tool). A locked file is `Locked`,
/// at once, and every statement on the connection fails so too.
pub fn open_read_now(path: &Path) -> Result<Connection, Unread> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| Unread::Refused(format!("cannot open {}: {e}", path.display())))?;
    conn.busy_timeout(Duration::ZERO)
        .map_err(|e| Unread::of(path, e))?;
    let versions = crate::data::db::read_versions(&conn).map_err(|e| Unread::of(path, e))?;
    check_versions(versions, path).map_err(|e| Unread::Refused(e.to_string()))?;
    Ok(conn)
}

/// Writes the schema into a file without one: a new file, or one a crash or
/// a `touch` left empty. Checked inside the write transaction, so that two
/// commands making the same new file at once write it once.
fn fill_if_empty(conn: &Connection) -> rusqlite::Result<bool> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let filled = (|| {
        let empty: bool =
            conn.query_row("SELECT count(*) = 0 FROM sqlite_schema", [], |r| r.get(0))?;
        if empty {
            conn.execute_batch(SCHEMA)?;
            conn.pragma_update(None, "application_id", KEYS_APPLICATION_ID)?;
            conn.pragma_update(None, "user_version", KEYS_SCHEMA_VERSION)?;
        }
        Ok(empty)
    })();
    let end = if filled.is_ok() { "COMMIT" } else { "ROLLBACK" };
    conn.execute_batch(end)?;
    filled
}

/// Takes group and other permissions off a file holding keys or usage (one
/// made by `touch`, or restored with the wrong mode); returns what to say.
pub fn keep_private(path: &Path) -> Result<Option<String>, AccessError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)
        .map_err(cannot("read", path))?
        .permissions()
        .mode();
    if mode & 0o077 == 0 {
        return Ok(None);
    }
    let shown = path.display();
    Ok(Some(
        match std::fs::set_permissions(path, std::fs::Permissions::from_mode(PRIVATE_MODE)) {
            Ok(()) => format!(
                "{shown} was readable by others (mode {:o}); it is now {PRIVATE_MODE:o}",
                mode & 0o777
            ),
            // Not its owner: a group may read it, as its owner chose; anyone may not.
            Err(source) if mode & 0o007 != 0 => {
                return Err(AccessError::NotPrivate {
                    path: path.to_path_buf(),
                    mode: mode & 0o777,
                    source,
                });
            }
            Err(_) => format!(
                "{shown} is readable by its group (mode {:o}); its owner can make it {PRIVATE_MODE:o}",
                mode & 0o777
            ),
        },
    ))
}

fn check(conn: &Connection, path: &Path) -> Result<(), AccessError> {
    match crate::data::db::read_versions(conn) {
        Ok(versions) => check_versions(versions, path),
        Err(e) => Err(cannot("read", path)(e).into()),
    }
}

/// Whether a file's (application_id, user_version) are a keys file's.
fn check_versions(versions: (i64, i64), path: &Path) -> Result<(), AccessError> {
    match versions {
        (KEYS_APPLICATION_ID, KEYS_SCHEMA_VERSION) => Ok(()),
        (KEYS_APPLICATION_ID, version) => Err(AccessError::KeysSchema {
            path: path.to_path_buf(),
            version,
        }),
        _ => Err(AccessError::NotKeysFile(path.to_path_buf())),
    }
}

/// Runs `change` in one write transaction on the keys file.
pub fn change<T>(
    path: &Path,
    change: impl FnOnce(&Connection) -> Result<T, AccessError>,
) -> Result<T, AccessError> {
    let conn = open_saying(path)?;
    let fail = cannot("write to", path);
    conn.execute_batch("BEGIN IMMEDIATE").map_err(&fail)?;
    let outcome = change(&conn);
    let end = if outcome.is_ok() {
        "COMMIT"
    } else {
        "ROLLBACK"
    };
    conn.execute_batch(end).map_err(&fail)?;
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_default_sits_beside_the_dataset() {
        assert_eq!(
            default_path(Path::new("data/areas.db")),
            Path::new("data/keys.db")
        );
        assert_eq!(default_path(Path::new("areas.db")), Path::new("keys.db"));
    }

    #[test]
    fn a_new_keys_file_is_private_and_has_every_plan() {
        let dir = std::env::temp_dir().join(format!("key-file-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("keys.db");
        let (conn, created) = open(&path).unwrap();
        assert!(
            created[0].starts_with("created the keys file"),
            "{created:?}"
        );
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, PRIVATE_MODE);
        let plans: i64 = conn
            .query_row("SELECT count(*) FROM plans", [], |r| r.get(0))
            .unwrap();
        assert_eq!(plans, crate::domain::Plan::ALL.len() as i64);
        drop(conn);
        assert!(
            open(&path).unwrap().1.is_empty(),
            "opened again, nothing to say"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
