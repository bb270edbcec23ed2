//! How SQLite is built, and the versions a new file carries.

/// .cargo/config.toml builds SQLite without its shared page-cache LRU;
/// if that setting stops reaching the C build, this says so.
#[test]
fn sqlite_is_built_without_memory_management() {
    let conn = rusqlite::Connection::open_in_memory().unwrap();
    let mut stmt = conn.prepare("PRAGMA compile_options").unwrap();
    let options: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(options.iter().any(|o| o.starts_with("ENABLE_FTS5")));
    assert!(
        !options.iter().any(|o| o == "ENABLE_MEMORY_MANAGEMENT"),
        "SQLite was built with ENABLE_MEMORY_MANAGEMENT: {options:?}"
    );
}

/// A file written by this build carries this build's schema version, which
/// tells the server what the file holds (schema.sql sets it, db.rs names it):
/// a file that said less would be read without its newer tables.
#[test]
fn a_new_file_carries_this_builds_schema_version() {
    let conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.execute_batch(crate::data::load::SCHEMA).unwrap();
    assert_eq!(
        super::read_versions(&conn).unwrap(),
        (super::APPLICATION_ID, super::SCHEMA_VERSION)
    );
}
