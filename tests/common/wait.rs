//! Waiting for a server to change its answer: polls with a limit, so that a
//! server that never changes fails the test instead of hanging the suite.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::client::{Reply, get};

/// Waits until the server takes `key`: a key created while it runs is in
/// force within a second (docs/operations.md, "Keys"); fails the test after 3 s.
pub fn key_in_force(addr: SocketAddr, key: &str) {
    within(Duration::from_secs(3), || {
        (get(addr, "/v1/key", Some(key)).status == 200).then_some(())
    })
    .expect("a new key is in force within 3 s");
}

/// Retries `f` every 50 ms until it returns Some or `limit` passes.
pub fn within<T>(limit: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Asks with `ask` until an answer is `done`, for up to `limit`; returns the
/// last answer, done or not, for the caller to check and show.
pub fn until(
    limit: Duration,
    mut ask: impl FnMut() -> Reply,
    done: impl Fn(&Reply) -> bool,
) -> Reply {
    let mut last = ask();
    within(limit, || {
        if done(&last) {
            return Some(());
        }
        last = ask();
        None
    });
    last
}

/// Polls GET `target` until it answers `status`, within `limit`; returns that
/// answer. While it waits, the only other answers allowed are 200 and 503.
pub fn until_status(
    addr: SocketAddr,
    target: &str,
    key: Option<&str>,
    status: u16,
    limit: Duration,
) -> Reply {
    let last = until(
        limit,
        || {
            let r = get(addr, target, key);
            assert!(
                r.status == status || r.status == 200 || r.status == 503,
                "unexpected {} while waiting for {status}: {}",
                r.status,
                r.text()
            );
            r
        },
        |r| r.status == status,
    );
    let shown: String = last.text().chars().take(200).collect();
    assert_eq!(
        last.status, status,
        "no {status} from {target} in {limit:?}; last: {shown}"
    );
    last
}
