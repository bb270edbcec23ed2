//! Issue 4, against the real binary: SIGTERM and SIGINT stop the server
//! gracefully (every request sent before the signal is answered, exit 0
//! within 5 s), and revoking a key with `area-scoring keys revoke` takes
//! effect within 5 s without a restart.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::bin::*;
use common::client::*;
use common::*;

/// What one request of the stream saw.
struct Sent {
    /// The request was fully written before the signal was sent.
    before_signal: bool,
    status: Option<u16>,
}

/// Sends one request and reads its answer; `signalled` is read right after
/// the write, so `before_signal` is true only for requests sent before it.
fn one(addr: SocketAddr, target: &str, key: &str, signalled: &AtomicBool) -> Option<Sent> {
    let mut stream = TcpStream::connect(addr).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    stream
        .write_all(&get_request(
            target,
            &[format!("Authorization: Bearer {key}")],
        ))
        .ok()?;
    let before_signal = !signalled.load(Ordering::SeqCst);
    let mut raw = Vec::new();
    let status = stream
        .read_to_end(&mut raw)
        .ok()
        .and_then(|_| parse(&raw, false).ok())
        .map(|r| r.status);
    Some(Sent {
        before_signal,
        status,
    })
}

fn stops_gracefully_on(signal: &str) {
    let db = fresh_db(signal);
    let (_, key) = new_key(&db, Plan::Enterprise);
    let mut server = Served::spawn(&db, &["--workers", "2"]);
    let addr = server.addr;
    let signalled = AtomicBool::new(false);
    let targets = [
        "/v1/areas?limit=100",
        "/v1/areas/search?lat=-26.2&lng=28.04&radius=50&limit=50",
        "/v1/areas/search?q=port",
    ];
    let sent: Vec<Sent> = std::thread::scope(|s| {
        let streams: Vec<_> = targets
            .iter()
            .map(|target| {
                let (signalled, key) = (&signalled, &key);
                s.spawn(move || {
                    let mut seen = Vec::new();
                    // A steady stream, bounded in count; it ends soon after the signal.
                    for _ in 0..400 {
                        match one(addr, target, key, signalled) {
                            Some(sent) => seen.push(sent),
                            None => break, // refused: the listener is gone
                        }
                        if signalled.load(Ordering::SeqCst) && seen.len() % 5 == 0 {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    seen
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(700));
        signalled.store(true, Ordering::SeqCst);
        server.signal(signal);
        streams
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let status = server
        .wait_exit(Duration::from_secs(5))
        .unwrap_or_else(|| panic!("still running 5 s after SIG{signal}"));
    assert_eq!(status.code(), Some(0), "exit status after SIG{signal}");
    let before: Vec<&Sent> = sent.iter().filter(|s| s.before_signal).collect();
    assert!(
        before.len() >= 10,
        "only {} requests before the signal",
        before.len()
    );
    let unanswered = before.iter().filter(|s| s.status != Some(200)).count();
    assert_eq!(
        unanswered,
        0,
        "{unanswered} of {} requests sent before SIG{signal} were not answered 200",
        before.len()
    );
    assert!(server.logged("shutting down"));
}

#[test]
fn sigterm_finishes_requests_in_flight_and_exits_0() {
    stops_gracefully_on("TERM");
}

#[test]
fn sigint_finishes_requests_in_flight_and_exits_0() {
    stops_gracefully_on("INT");
}

#[test]
fn a_revoked_key_is_refused_within_5_s_without_restart() {
    let db = fresh_db("revoke");
    let (id, key) = new_key(&db, Plan::Growth);
    let (_, other) = new_key(&db, Plan::Growth);
    let server = Served::spawn(&db, &[]);
    assert_eq!(get(server.addr, "/v1/areas", Some(&key)).status, 200);
    let out = Command::new(env!("CARGO_BIN_EXE_area-scoring"))
        .args(["keys", "revoke", "--db"])
        .arg(&db)
        .arg(&id)
        .output()
        .expect("run keys revoke");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let refused = within(Duration::from_secs(5), || {
        let r = get(server.addr, "/v1/areas", Some(&key));
        (r.status == 401).then_some(r)
    })
    .expect("the revoked key still works after 5 s");
    assert_error_shape(&refused, 401, "invalid_api_key");
    // Only that key: another one on the same plan still works.
    assert_eq!(get(server.addr, "/v1/areas", Some(&other)).status, 200);
}
