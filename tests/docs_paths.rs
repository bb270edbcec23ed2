//! Every repository path and `make` target that the documents name exists.
//!
//! The documents are README.md, docs/*.md, bench/PROFILE.md and
//! seed/README.md; bench/RESULTS-*.md are records of their day and are not
//! read. A path is looked for in backticks, in a markdown link's target and
//! in parentheses, and only a word that looks like a repository path counts
//! (it starts with one of `ROOTS` or is one of `TOP_FILES`), so that URLs,
//! flags and prose are left alone. A link's target is read from the
//! document's own folder, as a renderer does; other paths from the root. A
//! line suffix (`src/x.rs:12`) must name a line the file has; a `*` in a
//! path must match at least one file. `make X`, in backticks or a fenced
//! block, must name a target of the Makefile. A failure names file:line.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The folders a repository path starts with.
const ROOTS: &[&str] = &[
    "src/",
    "tests/",
    "docs/",
    "bench/",
    "deploy/",
    "contract/",
    "seed/",
    "tools/",
    "examples/",
    ".ci/",
    "web/",
];

/// The top-level files a document may name on their own.
const TOP_FILES: &[&str] = &[
    "Makefile",
    "Cargo.toml",
    "Cargo.lock",
    "README.md",
    "schema.sql",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The documents this check reads, relative to the root.
fn documents() -> Vec<String> {
    let mut docs = vec!["README.md".to_string()];
    let mut pages: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    pages.sort();
    docs.extend(pages);
    docs.extend(["bench/PROFILE.md".to_string(), "seed/README.md".to_string()]);
    docs
}

/// The targets of the Makefile: lines `name:` (or `a b:`) at column 0.
fn make_targets(makefile: &str) -> BTreeSet<String> {
    let mut targets = BTreeSet::new();
    for line in makefile.lines() {
        if line.starts_with(['\t', ' ', '#', '.']) || line.contains(":=") {
            continue;
        }
        let Some((names, _)) = line.split_once(':') else {
            continue;
        };
        if names.contains('=') || names.contains('$') {
            continue;
        }
        targets.extend(names.split_whitespace().map(str::to_string));
    }
    targets
}

/// Where a span of a line was found.
#[derive(Clone, Copy, PartialEq)]
enum Span {
    Backticks,
    Parentheses,
    Link,
}

/// The spans of one line to read: backticks, link targets and parentheses
/// (a link's target is read once, as a link), in the order of the line.
/// `open` says whether a parenthesis of an earlier line of the paragraph is
/// still open, and is left saying it for the next.
fn spans<'a>(line: &'a str, open: &mut bool) -> Vec<(&'a str, Span)> {
    let mut found = Vec::new();
    if *open {
        let end = line.find(')').unwrap_or(line.len());
        found.push((0, &line[..end], Span::Parentheses));
    }
    let mut depth = usize::from(*open);
    for c in line.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    *open = depth > 0;
    let mut from = 0;
    while let Some(open) = line[from..].find('`').map(|i| from + i + 1) {
        let Some(close) = line[open..].find('`').map(|i| open + i) else {
            break;
        };
        found.push((open, &line[open..close], Span::Backticks));
        from = close + 1;
    }
    let bytes = line.as_bytes();
    for (i, _) in line.match_indices('(') {
        let inner = &line[i + 1..];
        let end = inner.find(')').unwrap_or(inner.len());
        let kind = if i > 0 && bytes[i - 1] == b']' {
            Span::Link
        } else {
            Span::Parentheses
        };
        found.push((i + 1, &inner[..end], kind));
    }
    found.sort_by_key(|(at, _, _)| *at);
    found
        .into_iter()
        .map(|(_, span, kind)| (span, kind))
        .collect()
}

/// A word's path part: up to the first character a path here never holds
/// (so `src/x.rs:12` gives `src/x.rs`), without a sentence's last dot, and
/// the line number after a colon, if any.
fn path_part(word: &str) -> (&str, Option<usize>) {
    let word = word.trim_start_matches(['"', '\'', '[', '<', '`']);
    let word = word.strip_prefix("./").unwrap_or(word);
    let end = word
        .find(|c: char| !(c.is_ascii_alphanumeric() || "_./*@-".contains(c)))
        .unwrap_or(word.len());
    let line = word[end..].strip_prefix(':').and_then(|tail| {
        let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    });
    (word[..end].trim_end_matches('.'), line)
}

/// The paths a run makes rather than the repository keeps: the rooted
/// entries of .gitignore (`/bench/data`, `/tests/ui/screenshots/`). A
/// document may name them, and what is under them.
fn made_by_a_run(root: &Path, path: &str) -> bool {
    let ignore = std::fs::read_to_string(root.join(".gitignore")).unwrap_or_default();
    let path = path.trim_end_matches('/');
    ignore
        .lines()
        .filter_map(|entry| entry.strip_prefix('/'))
        .map(|entry| entry.trim_end_matches('/'))
        .any(|entry| path == entry || path.starts_with(&format!("{entry}/")))
}

fn looks_like_repository_path(path: &str) -> bool {
    ROOTS.iter().any(|r| path.starts_with(r)) || TOP_FILES.contains(&path)
}

/// Whether `path` (relative to `base`) exists; a `*` in a part matches any
/// run of characters in that part.
fn exists(base: &Path, path: &str) -> bool {
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

/// The `make` targets a piece of text names: the words after `make` up to
/// the first that is not a target's name (a flag, `VAR=x`, `&&`, `#`).
fn named_targets(text: &str) -> Vec<&str> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut found = Vec::new();
    for (i, word) in words.iter().enumerate() {
        if *word != "make" {
            continue;
        }
        for target in &words[i + 1..] {
            let target = target.trim_end_matches([',', ';', '.', ')', '`']);
            let is_name = !target.is_empty()
                && target.starts_with(|c: char| c.is_ascii_lowercase())
                && target
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            if !is_name {
                break;
            }
            found.push(target);
        }
    }
    found
}

/// The problems of one document, each as `file:line: what`.
fn check(doc: &str, text: &str, root: &Path, targets: &BTreeSet<String>) -> Vec<String> {
    let doc_dir = root
        .join(doc)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut problems = Vec::new();
    let (mut fenced, mut open) = (false, false);
    for (n, line) in text.lines().enumerate() {
        let at = format!("{doc}:{}", n + 1);
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            open = false;
            continue;
        }
        let mut make_texts: Vec<&str> = Vec::new();
        if fenced {
            make_texts.push(line.split('#').next().unwrap_or(""));
        } else {
            if line.trim().is_empty() {
                open = false;
            }
            for (span, kind) in spans(line, &mut open) {
                let is_link = kind == Span::Link;
                let words: Vec<&str> = if is_link {
                    span.split_whitespace().take(1).collect()
                } else {
                    span.split([' ', ',', ';']).collect()
                };
                for word in words {
                    problems.extend(check_word(&at, word, is_link, &doc_dir, root));
                }
                if kind == Span::Backticks {
                    make_texts.push(span);
                }
            }
        }
        for text in make_texts {
            for target in named_targets(text) {
                if !targets.contains(target) {
                    problems.push(format!(
                        "{at}: `make {target}`: the Makefile has no such target"
                    ));
                }
            }
        }
    }
    let mut seen = BTreeSet::new();
    problems.retain(|p| seen.insert(p.clone()));
    problems
}

fn check_word(at: &str, word: &str, is_link: bool, doc_dir: &Path, root: &Path) -> Option<String> {
    if is_link && (word.contains("://") || word.starts_with('#') || word.starts_with("mailto:")) {
        return None;
    }
    let (path, line) = path_part(word);
    let base = if is_link { doc_dir } else { root };
    if !is_link && !looks_like_repository_path(path) {
        return None;
    }
    if path.is_empty() {
        return None;
    }
    if !is_link && made_by_a_run(root, path) {
        return None;
    }
    if !exists(base, path) {
        return Some(format!("{at}: `{path}` does not exist"));
    }
    let line = line?;
    let text = std::fs::read_to_string(base.join(path)).ok()?;
    (line > text.lines().count()).then(|| format!("{at}: `{path}` has no line {line}"))
}

#[test]
fn every_path_and_make_target_the_documents_name_exists() {
    let root = root();
    let makefile = std::fs::read_to_string(root.join("Makefile")).expect("Makefile");
    let targets = make_targets(&makefile);
    let mut problems = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(root.join(&doc)).expect("a document");
        problems.extend(check(&doc, &text, &root, &targets));
    }
    assert!(
        problems.is_empty(),
        "the documents name things that do not exist:\n{}",
        problems.join("\n")
    );
}

/// The check fails on the stale names it was written for, in the places
/// they were: these are the lines of bench/PROFILE.md and seed/README.md as
/// they stood.
#[test]
fn a_stale_path_or_target_fails_with_file_and_line() {
    let root = root();
    let targets = make_targets(&std::fs::read_to_string(root.join("Makefile")).unwrap());
    let profile =
        "intro\n  - **tiny_http alone** (examples/tiny_http_floor.rs: the project's listener";
    assert_eq!(
        check("bench/PROFILE.md", profile, &root, &targets),
        ["bench/PROFILE.md:2: `examples/tiny_http_floor.rs` does not exist"]
    );
    let seed = "**Only the places are real**: `src/seed.rs` makes the scores";
    assert_eq!(
        check("seed/README.md", seed, &root, &targets),
        ["seed/README.md:1: `src/seed.rs` does not exist"]
    );
    let other = "[x](missing.md), `src/main.rs:999999`, `tests/*.nope`, `make tset`";
    assert_eq!(
        check("docs/x.md", other, &root, &targets),
        [
            "docs/x.md:1: `missing.md` does not exist",
            "docs/x.md:1: `src/main.rs` has no line 999999",
            "docs/x.md:1: `tests/*.nope` does not exist",
            "docs/x.md:1: `make tset`: the Makefile has no such target",
        ]
    );
    let wrapped = "a parenthesis (opened here and\nclosed after src/nope.rs) on the next line";
    assert_eq!(
        check("docs/x.md", wrapped, &root, &targets),
        ["docs/x.md:2: `src/nope.rs` does not exist"]
    );
    let fine = "```sh\nmake install PREFIX=x && make run # make nothing\n```\n\
        see <https://x.example/src/a.rs>, `--db`, (`src/main.rs:1`, `tests/*.rs`), \
        [deploy](deployment.md#top), (src/transport/), `deploy/area-scoring@.service` \
        and `bench/data/x` (`AREA_ADDR=:1 make run` to change it)";
    assert!(check("docs/x.md", fine, &root, &targets).is_empty());
}
