//! `area-scoring`: see `area-scoring --help`.
//!
//! `serve` first starts itself again with glibc's per-thread malloc cache
//! turned off (`without_malloc_tcache`), so that memory stays flat across
//! reloads, then fixes malloc's mmap threshold (`with_fixed_mmap_threshold`).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if args.first().is_some_and(|c| c == "serve") {
        without_malloc_tcache();
        with_fixed_mmap_threshold();
    }
    std::process::exit(area_scoring::cli::main(&args));
}

/// glibc's malloc can be tuned only through GLIBC_TUNABLES, read when the
/// process starts (mallopt has no setting for the tcache). So unless the
/// variable already names `glibc.malloc.tcache_count` (the operator's own
/// choice, or this function's after the exec), the same binary is executed
/// again, same process id and arguments, with the tcache off.
///
/// Why: with the tcache on, each of the threads (the workers, the
/// exports' and the others) keeps up to 7 freed chunks of every small size,
/// which malloc counts as in use; memory freed around them cannot coalesce or
/// go back to the system. The server frees a lot on threads other than the
/// ones that allocated (a
/// reload frees the old pool's caches on whichever thread lets go last), so
/// those cached chunks pin fragments all over the arenas. In a soak with a
/// reload every 10 s, malloc's in-use bytes grew 6.0 -> 9.0 MB in 12 reloads
/// while SQLite's own memory stayed at 3.3 MB; with the tcache off in-use
/// stayed at 4.1 MB and RSS flat (bench/RESULTS-hardening.md, run 6), for a
/// few per cent more CPU per request (bench/PROFILE.md).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn without_malloc_tcache() {
    use std::os::unix::process::CommandExt;

    const TUNABLE: &str = "glibc.malloc.tcache_count";
    let current = std::env::var("GLIBC_TUNABLES").unwrap_or_default();
    if current.contains(TUNABLE) {
        return;
    }
    // First: glibc cuts the process's original copy of the variable (what
    // /proc/PID/environ shows) after the first tunable it parses.
    let tunables = match current.as_str() {
        "" => format!("{TUNABLE}=0"),
        other => format!("{TUNABLE}=0:{other}"),
    };
    let mut argv = std::env::args_os();
    // /proc/self/exe is the running binary even if its file was replaced since.
    let mut again = std::process::Command::new("/proc/self/exe");
    if let Some(name) = argv.next() {
        again.arg0(name);
    }
    let err = again.args(argv).env("GLIBC_TUNABLES", tunables).exec();
    // exec returns only if it failed: serve anyway, with the tcache on.
    eprintln!("cannot restart with glibc's malloc tcache off ({err}); serving with it on");
}

/// Blocks of this many bytes or more are mapped on their own and given back
/// to the system when freed: glibc's default starting threshold.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 128 * 1024;

/// Setting the threshold turns off glibc's sliding one, which rises to the
/// size of each mapped block freed (up to 32 MiB). Once a search had freed a
/// large list, every later large block came from the worker's arena, and
/// each of the workers' arenas kept its own high-water mark: serving the
/// search cases at a million areas peaked at 138 MiB, and at 124 MiB with
/// the threshold fixed, with a handful of mappings a second and the same
/// CPU per request (bench/RESULTS-million.md).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn with_fixed_mmap_threshold() {
    // SAFETY: mallopt only sets a malloc parameter; no threads are running yet.
    if unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD) } != 1 {
        eprintln!("cannot fix malloc's mmap threshold; serving with glibc's sliding one");
    }
}
