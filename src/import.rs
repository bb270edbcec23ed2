//! `area-scoring import`: the operator's own areas from CSV or JSON Lines.
//! Not built yet: see issue 5.

use std::path::Path;

pub fn run(_db: &Path, _file: &Path) -> Result<String, String> {
    Err("import is not built yet".into())
}
