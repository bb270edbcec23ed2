//! The seed database for the handlers' unit tests: built once per test in a
//! folder of its own, removed by the caller.

use std::path::PathBuf;

/// A folder holding `seed.db`, built from the real places of seed/.
pub fn seed_file(tag: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("area-scoring-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("seed.db");
    crate::data::load::init(&path, true).unwrap();
    (dir, path)
}
