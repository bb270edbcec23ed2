//! The tests bound by wall-clock time: each asserts that something happens
//! within a number of milliseconds or seconds, or measures a duration. They
//! live in a binary of their own, and run one at a time in it (`serial`), so
//! that a measurement is not taken while another of them loads the machine,
//! and so that a slow machine shows up here and not as noise elsewhere.
//!
//! One submodule per subject, in tests/wall_clock/; each test takes
//! `serial()` first.

mod common;

// In a crate root, `mod x;` names tests/x.rs: inside this block it names
// tests/wall_clock/x.rs, beside the other files of this binary.
mod wall_clock {
    mod database_faults;
    mod drain;
    mod exports;
    mod http_layer;
    mod key_changes;
    mod keys_lock;
    mod keys_shared;
    mod lifecycle;
    mod own_layer;
    mod rate_limits;
    mod reload;
    mod slow_clients;
    mod slow_exports;
}

use std::sync::{Mutex, MutexGuard};

/// Held for the whole of a test, so that no two tests of this binary run at
/// once. A test that fails still lets the next one run.
fn serial() -> MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
