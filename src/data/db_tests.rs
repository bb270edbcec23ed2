//! How SQLite is built.

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
