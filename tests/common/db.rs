//! The one way to make a fresh database in a temporary directory: a copy of
//! one made by `init` from seed/ once per test binary, then keys issued in the
//! keys file beside it and SQL run against either, as an operator would.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use area_scoring::access::{key_file, keys, plans};
use area_scoring::domain::Plan;
use area_scoring::{data::db, data::load, data::seed};

pub use super::scratch::scratch_dir;

/// A fresh database from seed/ in its own directory: a copy of one made by
/// `init` once per test binary (a debug-build init takes seconds).
pub fn fresh_db(name: &str) -> PathBuf {
    static TEMPLATE: OnceLock<PathBuf> = OnceLock::new();
    let template = TEMPLATE.get_or_init(|| {
        let path = scratch_dir("template").join("areas.db");
        load::init(&path, false).expect("init from seed/");
        path
    });
    let path = scratch_dir(name).join("areas.db");
    fs::copy(template, &path).expect("copy the template database");
    path
}

/// The keys file a server over `db_path` reads when not told otherwise.
pub fn keys_path(db_path: &Path) -> PathBuf {
    key_file::default_path(db_path)
}

/// Issues a key on `plan` in the keys file beside the database: (id, key).
pub fn new_key(db_path: &Path, plan: Plan) -> (String, String) {
    key_file::change(&keys_path(db_path), |conn| keys::create(conn, plan, "test"))
        .expect("create a key")
}

/// Sets a plan's requests a minute (None: unlimited) in the keys file beside
/// the database, as `plans set` does.
pub fn set_plan_limit(db_path: &Path, plan: Plan, per_minute: Option<u32>) {
    key_file::change(&keys_path(db_path), |conn| {
        plans::set_limit(conn, plan, per_minute)
    })
    .expect("set a plan limit")
}

/// Lifts every plan's limit.
pub fn unlimited_plans(db_path: &Path) {
    for plan in Plan::ALL {
        set_plan_limit(db_path, plan, None);
    }
}

/// Runs SQL against the database file, as an operator would.
pub fn sql(db_path: &Path, statements: &str) {
    db::open_writable(db_path)
        .expect("open writable")
        .execute_batch(statements)
        .expect("run SQL");
}

/// Writes a valid database with only the first `count` seed places at `path`.
pub fn small_db(path: &Path, count: usize) {
    let mut places = seed::read_places(seed::SEED_CSV).expect("seed");
    places.sort_by(|a, b| a.id.cmp(&b.id));
    let source = area_scoring::data::identity::Source::unhashed("small test dataset");
    load::create_database(path, true, &source, |w| {
        for p in &places[..count] {
            w.add_with_synthetic_scores(p, 30, area_scoring::dates::today())?;
        }
        Ok(())
    })
    .expect("create a small database");
}

/// Leaves beside the database the rollback journal of a writer killed
/// mid-commit (a hot journal), which only a read-write connection can roll
/// back. The file itself is unchanged.
pub fn leave_hot_journal(db_path: &Path) {
    let journal = db_path.with_file_name(format!(
        "{}-journal",
        db_path.file_name().unwrap().to_str().unwrap()
    ));
    let saved = db_path.with_file_name("saved-journal");
    let writer = rusqlite::Connection::open(db_path).expect("open");
    // Unsynced, SQLite writes the journal's header whole at once (synced,
    // only at commit), so the copy is the journal of a crash.
    writer
        .execute_batch("PRAGMA synchronous = OFF; BEGIN; CREATE TABLE half_written (x);")
        .expect("begin a write");
    fs::copy(&journal, &saved).expect("a journal while the write is open");
    writer.execute_batch("ROLLBACK").expect("roll back");
    drop(writer);
    fs::rename(&saved, &journal).expect("put the journal back");
    let read_only =
        rusqlite::Connection::open_with_flags(db_path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("open read-only");
    assert!(
        read_only
            .query_row("PRAGMA application_id", [], |r| r.get::<_, i64>(0))
            .is_err(),
        "the journal is hot: a read-only connection cannot read the file"
    );
}
