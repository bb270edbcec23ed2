//! docs/cli.md holds each command's `--help` exactly as the binary prints
//! it. `make docs-cli` (tools/docs_cli.sh) writes the page; this only
//! compares: every section against the built binary's output for its
//! arguments, and the sections against the commands the top-level help
//! lists, so a command added, removed or reworded without rewriting the page
//! fails here.

use std::path::Path;

use crate::common::bin::{run, text};

const PAGE: &str = include_str!("../docs/cli.md");
const FIX: &str = "run `make docs-cli` to write docs/cli.md again";

/// Each section of the page: its arguments (after `area-scoring`) and the
/// text of its code block, with the final newline the binary prints.
fn sections() -> Vec<(Vec<String>, String)> {
    let mut found = Vec::new();
    let mut lines = PAGE.lines();
    while let Some(line) = lines.next() {
        let Some(args) = line
            .strip_prefix("## `area-scoring ")
            .and_then(|rest| rest.strip_suffix('`'))
        else {
            continue;
        };
        let block: Vec<&str> = lines
            .by_ref()
            .skip_while(|l| *l != "```text")
            .skip(1)
            .take_while(|l| *l != "```")
            .collect();
        let args = args.split_whitespace().map(str::to_string).collect();
        found.push((args, block.join("\n") + "\n"));
    }
    found
}

fn help(args: &[&str]) -> String {
    let out = run(args, &[], Path::new("/"));
    assert!(out.status.success(), "{args:?} succeeds");
    text(&out.stdout)
}

#[test]
fn every_section_is_the_binary_s_help_for_its_command() {
    let sections = sections();
    assert!(!sections.is_empty(), "docs/cli.md has sections; {FIX}");
    for (args, block) in &sections {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_eq!(
            block,
            &help(&args),
            "docs/cli.md's `area-scoring {}` differs from the binary; {FIX}",
            args.join(" ")
        );
    }
}

#[test]
fn the_page_has_a_section_for_every_command_the_top_level_help_lists() {
    let top = help(&["--help"]);
    let mut expected = vec!["--help".to_string()];
    for line in top.lines() {
        let Some(rest) = line.strip_prefix("  ") else {
            continue;
        };
        let command = rest.split(' ').next().unwrap_or_default();
        let is_command = !command.is_empty() && command.chars().all(|c| c.is_ascii_lowercase());
        if is_command && !expected.iter().any(|e| e == &format!("{command} --help")) {
            expected.push(format!("{command} --help"));
        }
    }
    let on_page: Vec<String> = sections().into_iter().map(|(a, _)| a.join(" ")).collect();
    assert_eq!(on_page, expected, "docs/cli.md's sections; {FIX}");
}
