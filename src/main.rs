//! `area-scoring`: see `area-scoring --help`.
//!
//! The process's allocator is jemalloc, for Rust's allocations and SQLite's
//! (Cargo.toml says why); a replaced dataset's free pages are purged once it
//! is freed (data/dataset.rs).

#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, which it reads before `main` from this symbol (its
/// `malloc_conf`; the `MALLOC_CONF` environment variable still overrides).
/// One arena for every thread: with an arena a thread, each worker keeps the
/// free pages of its own largest searches, and a million-area server held
/// more than its memory budget; with one, they reuse each other's at no
/// cost in CPU a request (bench/PROFILE.md, "One jemalloc arena").
#[unsafe(export_name = "malloc_conf")]
static MALLOC_CONF: AllocatorOptions = AllocatorOptions(c"narenas:1".as_ptr());

/// A pointer to the options' C string, as jemalloc declares `malloc_conf`.
#[repr(transparent)]
struct AllocatorOptions(*const std::ffi::c_char);

// SAFETY: it points to a string literal, never written.
unsafe impl Sync for AllocatorOptions {}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(area_scoring::cli::main(&args));
}
