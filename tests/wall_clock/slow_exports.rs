//! Export slots against slow readers, on the real binary (docs/api.md "Export
//! Areas", docs/http-layer.md): four clients that take their exports far
//! below the minimum rate, two on each of two keys and so every slot, are
//! closed and counted, and a third key then exports the whole dataset at
//! full speed without being closed; `--max-exports-per-key` sets a key's
//! share. The rule's window is made short here (the fault-injection
//! feature's `AREA_FAULT_EXPORT_PACE`); its defaults are export_pace.rs's.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use socket2::{Domain, Socket, Type};

use super::exports::synthetic_db;
use crate::common::bin::Served;
use crate::common::client::{get, request};
use crate::common::exports::items;
use crate::common::wait::until;
use crate::common::*;
use crate::serial;

/// 256 KiB a second over 2 s of waiting, after 3 s of it.
const TEST_PACE: &str = "262144,2000,3000";
/// What a slow reader takes: 1 KiB every 250 ms, 4 KiB a second.
const TRICKLE: usize = 1024;
const TRICKLE_EVERY: Duration = Duration::from_millis(250);
const GEOJSON: &str = "/v1/areas/export?format=geojson";

/// One synthetic dataset (20,000 areas, 8 MB of GeoJSON: more than the
/// socket buffers hold) for the tests of this file, its plans unlimited so
/// that polling for a free slot meets no rate limit.
fn dataset() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let db = synthetic_db();
        crate::common::db::unlimited_plans(&db);
        db
    })
}

/// `serve` over the dataset with the test's pace, a client timeout longer
/// than the test (so that only the rate decides), and `extra`.
fn serve(extra: &[&str]) -> Served {
    let db = dataset().to_str().unwrap();
    let mut args = vec!["--db", db, "--client-timeout", "60"];
    args.extend_from_slice(extra);
    let pace = [("AREA_FAULT_EXPORT_PACE", Path::new(TEST_PACE))];
    Served::start(&args, &pace, Path::new(env!("CARGO_MANIFEST_DIR")))
}

/// Asks for the GeoJSON export on a connection whose receive buffer is
/// small, and reads the answer's head: its status line.
fn start_export(addr: SocketAddr, key: &str) -> (TcpStream, String) {
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    socket.set_recv_buffer_size(16 * 1024).unwrap();
    socket.connect(&addr.into()).unwrap();
    let mut stream: TcpStream = socket.into();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let auth = format!("Bearer {key}");
    let ask = request(
        "GET",
        GEOJSON.as_bytes(),
        &[("Authorization", auth.as_bytes())],
    );
    stream.write_all(&ask).unwrap();
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    while !seen.ends_with(b"\r\n\r\n") {
        let n = stream.read(&mut byte).expect("the export's head");
        assert!(
            n > 0,
            "closed in the head: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.push(byte[0]);
    }
    let status = String::from_utf8_lossy(&seen)
        .lines()
        .next()
        .unwrap()
        .to_string();
    (stream, status)
}

/// How a slow reader's export ended: whether the server closed it (and not
/// the reader's own timeout), and whether the export's last chunk came.
struct Ended {
    closed: bool,
    whole: bool,
    how: String,
}

/// Takes `TRICKLE` bytes every `TRICKLE_EVERY` until `stop`, then reads
/// what is left as fast as it comes, up to the server's close.
fn trickle(mut stream: TcpStream, stop: Arc<AtomicBool>) -> JoinHandle<Ended> {
    std::thread::spawn(move || {
        let mut tail = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        let keep = |tail: &mut Vec<u8>, bytes: &[u8]| {
            tail.extend_from_slice(bytes);
            let cut = tail.len().saturating_sub(16);
            tail.drain(..cut);
        };
        while !stop.load(Ordering::SeqCst) {
            match stream.read(&mut buf[..TRICKLE]) {
                Ok(0) => break,
                Ok(n) => keep(&mut tail, &buf[..n]),
                Err(_) => break,
            }
            std::thread::sleep(TRICKLE_EVERY);
        }
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let how = loop {
            match stream.read(&mut buf) {
                Ok(0) => break Ok(()),
                Ok(n) => keep(&mut tail, &buf[..n]),
                Err(e) => break Err(e),
            }
        };
        let closed = match &how {
            Ok(()) => true,
            Err(e) => !matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
        };
        Ended {
            closed,
            whole: tail.ends_with(b"\r\n0\r\n\r\n"),
            how: format!("{how:?}"),
        }
    })
}

/// The value of `name` in /metrics.
fn metric(addr: SocketAddr, name: &str) -> String {
    let text = get(addr, "/metrics", None).text();
    let prefix = format!("{name} ");
    let line = text.lines().find(|l| l.starts_with(&prefix));
    line.unwrap_or_else(|| panic!("{name} in {text}"))[prefix.len()..].to_string()
}

#[test]
fn four_slow_readers_on_two_keys_are_closed_and_a_third_key_exports_at_full_speed() {
    let _serial = serial();
    let db = dataset();
    let [a, b, c] = [(); 3].map(|_| new_key(db, Plan::Growth).1);
    let server = serve(&[]);
    let addr = server.addr;

    let stop = Arc::new(AtomicBool::new(false));
    let mut slow = Vec::new();
    for key in [&a, &a, &b, &b] {
        let (stream, status) = start_export(addr, key);
        assert_eq!(status, "HTTP/1.1 200 OK");
        slow.push(trickle(stream, stop.clone()));
    }
    // Every slot is held: the third key waits.
    let started = Instant::now();
    let refused = get(addr, GEOJSON, Some(&c));
    assert_503(&refused);
    assert!(
        refused
            .text()
            .contains("as many as this server streams at once")
    );

    // Closed for their pace (a few seconds of waiting on each), the slow
    // readers free the slots, and the third key's export streams whole.
    let whole = until(
        Duration::from_secs(30),
        || get(addr, GEOJSON, Some(&c)),
        |r| r.status == 200,
    );
    let waited = started.elapsed();
    assert_eq!(whole.status, 200, "after {waited:?}: {}", whole.text());
    assert_eq!(items(&whole, "geojson").len(), 20_000, "the whole dataset");

    stop.store(true, Ordering::SeqCst);
    for (i, reader) in slow.into_iter().enumerate() {
        let ended = reader.join().unwrap();
        assert!(ended.closed, "slow reader {i} still open: {}", ended.how);
        assert!(!ended.whole, "slow reader {i} got the whole export");
    }
    assert_eq!(metric(addr, "area_exports_too_slow_total"), "4");
    // Each line is written with its count, but reaches the test through a
    // pipe and a draining thread.
    let closed = || {
        let said = server.log.lock().unwrap();
        said.iter()
            .filter(|l| l.contains("an export closed: its client took"))
            .count()
    };
    let four =
        crate::common::wait::within(Duration::from_secs(5), || (closed() == 4).then_some(()));
    assert!(four.is_some(), "{:#?}", server.log.lock().unwrap());
}

#[test]
fn max_exports_per_key_sets_how_many_one_key_streams_at_once() {
    let _serial = serial();
    let db = dataset();
    let [a, b] = [(); 2].map(|_| new_key(db, Plan::Growth).1);
    let server = serve(&["--max-exports-per-key", "1"]);
    let addr = server.addr;
    let (_held, status) = start_export(addr, &a);
    assert_eq!(status, "HTTP/1.1 200 OK");
    let second = get(addr, GEOJSON, Some(&a));
    assert_503(&second);
    assert!(second.text().contains("as many as one key may"));
    let (_other, status) = start_export(addr, &b);
    assert_eq!(
        status, "HTTP/1.1 200 OK",
        "another key has a slot of its own"
    );
}
