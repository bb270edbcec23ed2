//! Large generated databases for benchmarks (`init --synthetic N`).
//! Not built yet: see issue 3.

use std::path::Path;

pub fn init(
    _path: &Path,
    _force: bool,
    _areas: usize,
    _history_days: usize,
) -> Result<i64, String> {
    Err("init --synthetic is not built yet".into())
}
