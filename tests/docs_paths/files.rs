//! Whether a path a document names is there: in the tree (with `*` in a
//! part), or made by a run.

use std::path::{Path, PathBuf};

/// The paths a run makes rather than the repository keeps: the rooted
/// entries of .gitignore (`/bench/data`, `/tests/ui/screenshots/`). A
/// document may name them, and what is under them.
pub fn made_by_a_run(root: &Path, path: &str) -> bool {
    let ignore = std::fs::read_to_string(root.join(".gitignore")).unwrap_or_default();
    let path = path.trim_end_matches('/');
    ignore
        .lines()
        .filter_map(|entry| entry.strip_prefix('/'))
        .map(|entry| entry.trim_end_matches('/'))
        .any(|entry| path == entry || path.starts_with(&format!("{entry}/")))
}

/// Whether `path` (relative to `base`) exists; a `*` in a part matches any
/// run of characters in that part.
pub fn exists(base: &Path, path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    exists_from(base.to_path_buf(), &parts)
}

fn exists_from(at: PathBuf, parts: &[&str]) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return at.exists();
    };
    if !first.contains('*') {
        return exists_from(at.join(first), rest);
    }
    let Ok(entries) = std::fs::read_dir(&at) else {
        return false;
    };
    entries
        .filter_map(|e| e.ok())
        .any(|e| wildcard(first, &e.file_name().to_string_lossy()) && exists_from(e.path(), rest))
}

fn wildcard(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => {
            name.starts_with(head)
                && (head.len()..=name.len())
                    .any(|i| name.is_char_boundary(i) && wildcard(tail, &name[i..]))
        }
    }
}
