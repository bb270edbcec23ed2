//! Memory flat across reloads (docs/operations.md "Data: init, import, reload"): `serve`
//! runs with glibc's per-thread malloc cache off (src/main.rs says why),
//! unless the operator set that tunable themselves. RSS itself is measured by
//! bench/soak.sh, too slow for make test.
#![cfg(all(target_os = "linux", target_env = "gnu"))]

use std::path::Path;

use crate::common::bin::*;
use crate::common::client::get;
use crate::common::*;

/// The GLIBC_TUNABLES the served process was executed with last, read from
/// the kernel's copy of its environment: up to the end of its first tunable,
/// where glibc's parser writes a NUL.
fn tunables_of(served: &Served) -> Option<String> {
    let environ = std::fs::read(format!("/proc/{}/environ", served.child.id())).unwrap();
    environ
        .split(|&b| b == 0)
        .filter_map(|v| std::str::from_utf8(v).ok())
        .find_map(|v| v.strip_prefix("GLIBC_TUNABLES="))
        .map(str::to_string)
}

/// The server over `db`, started with GLIBC_TUNABLES set to `tunables`, once
/// it answers.
fn serve_with_tunables(db: &str, tunables: &str) -> Served {
    let served = Served::start(
        &["--db", db],
        &[("GLIBC_TUNABLES", Path::new(tunables))],
        Path::new("/"),
    );
    assert_eq!(get(served.addr, "/healthz", None).status, 200);
    served
}

#[test]
fn serve_runs_with_the_malloc_tcache_off_in_the_process_started() {
    if std::env::var_os("GLIBC_TUNABLES").is_some() {
        eprintln!("skipped: this test run sets GLIBC_TUNABLES itself");
        return;
    }
    let db = fresh_db("tcache");
    let served = Served::start(&["--db", db.to_str().unwrap()], &[], Path::new("/"));
    // The process the caller started (and would signal) is the one serving.
    assert_eq!(get(served.addr, "/healthz", None).status, 200);
    assert_eq!(
        tunables_of(&served).as_deref(),
        Some("glibc.malloc.tcache_count=0")
    );
}

#[test]
fn an_operators_tcache_setting_is_kept_and_ours_is_added_to_other_tunables() {
    let db = fresh_db("tcache-own");
    let db = db.to_str().unwrap();
    let own = "glibc.malloc.tcache_count=3";
    let served = serve_with_tunables(db, own);
    assert_eq!(tunables_of(&served).as_deref(), Some(own));
    drop(served);

    let other = "glibc.malloc.trim_threshold=262144";
    let served = serve_with_tunables(db, other);
    // glibc cuts /proc/PID/environ's copy after the first tunable; the
    // process's own variable goes on with `other`.
    assert_eq!(
        tunables_of(&served).as_deref(),
        Some("glibc.malloc.tcache_count=0")
    );
}
