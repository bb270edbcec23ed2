//! The HTTP layer against the real binary with no front (docs/http-layer.md):
//! each hostile or malformed shape gets its JSON error and `Connection: close`
//! or is closed, and afterwards the process's threads and descriptors are
//! back at their baseline, polled with a deadline.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use crate::common::bin::Served;
use crate::common::client::*;
use crate::common::wait::within;
use crate::common::*;

mod access_log;
mod connections;
mod heads;
mod idle;
mod refusals;

/// How long a count may take to come back to its baseline.
pub(super) const SETTLE: Duration = Duration::from_secs(10);

pub(super) fn proc_field(pid: u32, field: &str) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the process lives");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc/{pid}/status"))
}

/// (threads, open descriptors) of the server process.
pub(super) fn counts(server: &Served) -> (usize, usize) {
    let pid = server.child.id();
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count();
    (proc_field(pid, "Threads:"), fds)
}

pub(super) fn rss_kib(server: &Served) -> usize {
    proc_field(server.child.id(), "VmRSS:")
}

/// The baseline after one request answered (the pools and threads all up).
pub(super) fn baseline(server: &Served) -> (usize, usize) {
    assert_eq!(get(server.addr, "/healthz", None).status, 200);
    within(SETTLE, || {
        let before = counts(server);
        std::thread::sleep(Duration::from_millis(200));
        (counts(server) == before).then_some(before)
    })
    .expect("threads and descriptors settle")
}

pub(super) fn back_to_baseline(server: &Served, base: (usize, usize), what: &str) {
    let mut last = counts(server);
    let ok = within(SETTLE, || {
        last = counts(server);
        (last.0 <= base.0 && last.1 <= base.1).then_some(())
    });
    assert!(
        ok.is_some(),
        "{what}: threads and descriptors {last:?}, baseline {base:?}"
    );
    assert_eq!(get(server.addr, "/healthz", None).status, 200, "{what}");
}

/// Sends `raw` and reads until the server closes; None if it did not close
/// within 5 s.
pub(super) fn answer_to(addr: SocketAddr, raw: &[u8]) -> Option<Vec<u8>> {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream.write_all(raw).unwrap();
    let mut out = Vec::new();
    match stream.read_to_end(&mut out) {
        Ok(_) => Some(out),
        Err(e) if e.kind() == ErrorKind::ConnectionReset => Some(out),
        Err(_) => None,
    }
}

/// The one JSON error a refused head gets: status, code, `Connection: close`.
pub(super) fn assert_refused(raw: &[u8], status: u16, code: &str) {
    let what = String::from_utf8_lossy(raw)
        .chars()
        .take(60)
        .collect::<String>();
    let bytes = answer_to(crate_addr(), raw).unwrap_or_else(|| panic!("{what:?}: not closed"));
    let reply = parse(&bytes, false).unwrap_or_else(|e| panic!("{what:?}: {e}"));
    assert_error_shape(&reply, status, code);
    assert_eq!(reply.header("Connection"), Some("close"), "{what:?}");
    assert!(reply.header("Date").is_some(), "{what:?}");
}

thread_local! {
    static ADDR: std::cell::Cell<Option<SocketAddr>> = const { std::cell::Cell::new(None) };
}

pub(super) fn crate_addr() -> SocketAddr {
    ADDR.get().expect("a server for this test")
}

pub(super) fn served(name: &str, extra: &[&str]) -> (String, Served) {
    let mut args = vec!["--max-connections-per-address", "0"];
    args.extend_from_slice(extra);
    let (_, key, server) = Served::spawn_keyed(name, Plan::Growth, &args);
    ADDR.set(Some(server.addr));
    (key, server)
}
