//! The end-to-end tests: one binary, one module a subject, each in
//! tests/NAME.rs, against the real binary or the app over real HTTP. Their
//! shared helpers are in tests/common/ (its `//!` note lists them).
//!
//! Where a new test goes:
//! - beside the tests of the feature it checks, in that module; a feature of
//!   its own gets a new tests/NAME.rs, declared below in name order (the
//!   last test here fails when a tests/*.rs is left undeclared, since Cargo
//!   builds only the targets Cargo.toml names);
//! - a test bound by wall-clock time (something happens within N ms, or a
//!   duration is measured) goes to tests/wall_clock/, a binary of its own whose
//!   tests run one at a time, so that no other test loads the machine while
//!   it measures;
//! - a bound on the release build's CPU goes to tests/query_cost.rs, which
//!   only `make query-cost` runs;
//! - a test that changes or measures state the whole process shares (the
//!   environment, rlimits, the allocator, its peak memory) needs a binary of
//!   its own, as tests/import_memory.rs has: add a `[[test]]` to Cargo.toml
//!   and say why beside it.
//! - Tests of a shared Redis are `#[ignore]`d here and run by `make
//!   redis-test` (deploy/redis-test.sh), one at a time, with a Redis server.
//!
//! Unit tests live beside the code, in src/ (docs/architecture.md, "Where
//! tests live").

mod common;

mod area_at;
mod area_stats;
mod areas;
mod boundary_locate;
mod caching_cors;
mod cli;
mod cli_init;
mod compare;
mod compression;
mod dataset_identity;
mod deploy_units;
mod docs_cli;
mod docs_paths;
mod errors;
mod errors_outside_the_table;
mod export;
mod format_paths;
mod fuzz;
mod fuzz_layer;
mod geo;
mod hardening_faults;
mod hardening_input;
mod health_metrics;
mod history;
mod history_files;
mod http_layer;
mod import;
mod import_boundaries;
mod import_check;
mod import_coordinates;
mod import_leftovers;
mod import_reserved;
mod import_rules;
mod key_endpoint;
mod keys_file;
mod list_forms;
mod list_ids;
mod openapi;
mod pages;
mod paging;
mod parsing;
mod protocol;
mod province_slug;
mod rate_limits;
mod readme_examples;
mod redis_acl;
mod redis_invalid_values;
mod redis_recovery;
mod redis_shared;
mod redis_spools;
mod redis_strangers;
mod reload;
mod renames;
mod replace_mode;
mod representation_headers;
mod representations;
mod restore;
mod rollback;
mod search;
mod search_forgiving;
mod search_paging;
mod search_province;
mod trusted_front;
mod url_file;
mod usage_invoice;
mod viewport;

#[test]
fn every_test_file_is_a_module_of_a_test_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let roots = std::fs::read_to_string(dir.join("tests.rs")).unwrap();
    let manifest = std::fs::read_to_string(dir.parent().unwrap().join("Cargo.toml")).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".rs") else {
            continue;
        };
        let declared = roots.contains(&format!("\nmod {stem};\n"));
        let own_target = manifest.contains(&format!("path = \"tests/{name}\""));
        assert!(
            declared || own_target,
            "tests/{name} is in no test binary: declare `mod {stem};` in tests/tests.rs"
        );
    }
}
