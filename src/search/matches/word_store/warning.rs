//! The warning a server logs each time it opens a dataset whose stored sets
//! (word_store/) it cannot read: its answers are the same, read from
//! FTS5, but slow at a million areas, and the operator is told how to store
//! them. The dataset's opener decides when to say it: at start, after the
//! line naming the address, which docs/operations.md promises is the first
//! ("Configuration").

use std::path::Path;

use rusqlite::Connection;

use super::{LAYOUT, StoredWords, stored_words};
use crate::search::index::AreaIndex;

/// Whether the dataset at `path` has stored sets it can read, and if not,
/// the warning that says so and names the remedy.
pub fn stored_sets(conn: &Connection, index: &AreaIndex, path: &Path) -> (bool, Option<String>) {
    let found = stored_words(conn, index);
    let warning = unusable_words_warning(found, index.area_count(), path);
    (found == StoredWords::Usable, warning)
}

/// What the log says of a file whose stored sets cannot be read, and the remedy.
fn unusable_words_warning(found: StoredWords, areas: usize, path: &Path) -> Option<String> {
    let what = match found {
        StoredWords::Usable => return None,
        StoredWords::Missing => "holds no stored search words".to_string(),
        StoredWords::Other { layout, .. } if layout != LAYOUT => format!(
            "holds search words stored in layout {layout}, and this build reads layout {LAYOUT}"
        ),
        StoredWords::Other { areas: stored, .. } => {
            format!("holds search words stored for {stored} areas, and it holds {areas}")
        }
    };
    let db = path.display();
    Some(format!(
        "{db} {what}: search reads its words from the full-text index instead, with the same \
         answers but slowly at many areas. To store them, import its source file again \
         (area-scoring import --db {db} FILE), or for the seed data run \
         area-scoring init --force --db {db}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_unreadable_state_is_named_with_its_remedy() {
        let path = Path::new("data/areas.db");
        assert_eq!(unusable_words_warning(StoredWords::Usable, 5, path), None);
        for (found, said) in [
            (
                StoredWords::Missing,
                "holds no stored search words".to_string(),
            ),
            (
                StoredWords::Other {
                    layout: LAYOUT + 1,
                    areas: 5,
                },
                format!(
                    "stored in layout {}, and this build reads layout {LAYOUT}",
                    LAYOUT + 1
                ),
            ),
            (
                StoredWords::Other {
                    layout: LAYOUT,
                    areas: 4,
                },
                "stored for 4 areas, and it holds 5".to_string(),
            ),
        ] {
            let warning = unusable_words_warning(found, 5, path).expect("a warning");
            assert!(warning.contains(&said), "{warning}");
            assert!(warning.contains("area-scoring import --db data/areas.db FILE"));
            assert!(warning.contains("area-scoring init --force --db data/areas.db"));
        }
    }
}
