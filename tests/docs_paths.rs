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

use crate::common::docs;
mod files;
mod words;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use files::{exists, made_by_a_run};
use words::{Span, named_targets, path_part, spans};

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
    let mut docs = docs::pages();
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

fn looks_like_repository_path(path: &str) -> bool {
    ROOTS.iter().any(|r| path.starts_with(r)) || TOP_FILES.contains(&path)
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
