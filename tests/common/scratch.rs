//! Scratch directories under Cargo's temporary directory for this target, and
//! their removal. A test binary's servers, databases and exports come to
//! hundreds of megabytes, so leaving them would fill a developer's disk over
//! a day of `make test` runs: each binary removes its own when it exits, and
//! the first scratch directory of a run removes those of binaries that ended
//! without exiting (killed, or aborted).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, Once};

/// This process's scratch directories, removed at its exit.
static MADE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A new empty directory, unique per process and call (`{name}-{pid}-{n}`),
/// so test binaries running side by side never share a file.
pub fn scratch_dir(name: &str) -> PathBuf {
    static FIRST: Once = Once::new();
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    FIRST.call_once(|| {
        remove_ended(&root);
        // SAFETY: `atexit` only keeps the pointer to `remove_made`, an
        // `extern "C" fn()` that does not panic: a poisoned lock is used as
        // it is, and removal errors are ignored.
        unsafe { libc::atexit(remove_made) };
    });
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = root.join(format!("{name}-{}-{n}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create a scratch directory");
    MADE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(dir.clone());
    dir
}

extern "C" fn remove_made() {
    let made = std::mem::take(&mut *MADE.lock().unwrap_or_else(|e| e.into_inner()));
    for dir in made {
        let _ = fs::remove_dir_all(dir);
    }
}

/// Removes the scratch directories whose process has ended. A directory
/// whose name carries no process id is not one of ours and stays.
fn remove_ended(root: &Path) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(owner) else {
            continue;
        };
        if !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// The process id in `{name}-{pid}-{n}`.
fn owner(name: &str) -> Option<u32> {
    let mut parts = name.rsplitn(3, '-');
    let _n: u32 = parts.next()?.parse().ok()?;
    let pid = parts.next()?.parse().ok()?;
    parts.next()?;
    Some(pid)
}
