//! `area-scoring`: see `area-scoring --help`.
//!
//! The process's allocator is jemalloc, for Rust's allocations and SQLite's
//! (Cargo.toml says why); a replaced dataset's free pages are purged once it
//! is freed (data/dataset.rs).

#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(area_scoring::cli::main(&args));
}
