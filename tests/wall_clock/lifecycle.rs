//! SIGTERM and SIGINT against the real binary, under a steady stream of
//! requests: every request sent before the signal is answered 200 and the
//! server exits 0 within 5 s (docs/operations.md "Data: init, import, reload"). Draining
//! a connection with answers still to write: tests/wall_clock/drain.rs.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use crate::common::bin::*;
use crate::common::client::*;
use crate::common::wait::within;
use crate::common::*;
use crate::serial;

/// Answers before the signal that the test waits for, however fast the machine.
const ANSWERED_BEFORE_SIGNAL: usize = 10;

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
    let (_, key, mut server) = Served::spawn_keyed(signal, Plan::Enterprise, &["--workers", "2"]);
    let addr = server.addr;
    let signalled = AtomicBool::new(false);
    let answered = AtomicUsize::new(0);
    let targets = [
        "/v1/areas?limit=100",
        "/v1/areas/search?lat=-26.2&lng=28.04&radius=50&limit=50",
        "/v1/areas/search?q=port",
    ];
    let (warm, sent): (_, Vec<Sent>) = std::thread::scope(|s| {
        let streams: Vec<_> = targets
            .iter()
            .map(|target| {
                let (signalled, key, answered) = (&signalled, &key, &answered);
                s.spawn(move || {
                    let mut seen = Vec::new();
                    // A steady stream, bounded in count; it ends soon after the signal.
                    for _ in 0..400 {
                        match one(addr, target, key, signalled) {
                            Some(sent) => {
                                answered.fetch_add(sent.before_signal as usize, Ordering::SeqCst);
                                seen.push(sent)
                            }
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
        // Signalled while the streams still send, once they have been answered a few times.
        let warm = within(Duration::from_secs(30), || {
            (answered.load(Ordering::SeqCst) >= ANSWERED_BEFORE_SIGNAL).then_some(())
        });
        signalled.store(true, Ordering::SeqCst);
        server.signal(signal);
        let sent = streams
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        (warm, sent)
    });
    assert!(
        warm.is_some(),
        "fewer than {ANSWERED_BEFORE_SIGNAL} answers in 30 s before SIG{signal}"
    );
    let status = server
        .wait_exit(Duration::from_secs(5))
        .unwrap_or_else(|| panic!("still running 5 s after SIG{signal}"));
    assert_eq!(status.code(), Some(0), "exit status after SIG{signal}");
    let before: Vec<&Sent> = sent.iter().filter(|s| s.before_signal).collect();
    assert!(
        before.len() >= ANSWERED_BEFORE_SIGNAL,
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
    let _serial = serial();
    stops_gracefully_on("TERM");
}

#[test]
fn sigint_finishes_requests_in_flight_and_exits_0() {
    let _serial = serial();
    stops_gracefully_on("INT");
}
