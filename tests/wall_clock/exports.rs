//! Exports at once, against the clock (docs/api.md "Export Areas"): at most two
//! for one key and four in all stream together, and the next is refused with
//! 503 and Retry-After; four
//! exports whose clients stop reading hold no worker, so Get Area, List and
//! Search still answer within a generous time; once those clients go away,
//! an export streams whole again. The dataset (20,000 synthetic areas) is
//! large enough that an export outgrows the socket buffers and the server
//! has to wait on a client that does not read.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::common::client::{get, request};
use crate::common::exports::items;
use crate::common::server::start;
use crate::common::wait::until;
use crate::common::*;
use crate::serial;

const AREAS: usize = 20_000;

/// `init --synthetic 20000 --history-days 2` by the real binary.
pub(super) fn synthetic_db() -> PathBuf {
    let dir = scratch_dir("exports-synthetic");
    let db = dir.join("areas.db");
    let n = AREAS.to_string();
    let args = [
        "init",
        "--db",
        db.to_str().unwrap(),
        "--synthetic",
        &n,
        "--history-days",
        "2",
    ];
    let out = bin::run(&args, &[], &dir);
    assert!(out.status.success(), "{}", bin::text(&out.stderr));
    db
}

/// Asks for the GeoJSON export, reads the answer's head (a 200), then stops
/// reading: the connection is returned open.
fn held_export(addr: SocketAddr, key: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let auth = format!("Bearer {key}");
    let target = b"/v1/areas/export?format=geojson";
    stream
        .write_all(&request(
            "GET",
            target,
            &[("Authorization", auth.as_bytes())],
        ))
        .unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf).expect("the export's head");
        assert!(
            n > 0,
            "closed before the head: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&buf[..n]);
    }
    let head = String::from_utf8_lossy(&seen);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    stream
}

#[test]
fn four_exports_at_once_and_none_of_them_holds_a_worker() {
    let _serial = serial();
    let db = synthetic_db();
    let (_, key) = new_key(&db, Plan::Growth);
    let (_, other_key) = new_key(&db, Plan::Growth);
    let (_, third_key) = new_key(&db, Plan::Enterprise);
    // Two workers, and a client timeout longer than the test, so that only
    // the export bound decides.
    let running = start(&db, 2, Duration::from_secs(60));
    let addr = running.addr();
    let first = get(addr, "/v1/areas?limit=1", Some(&key));
    let id = first.json()["data"][0]["id"].as_str().unwrap().to_string();

    // One key holds two exports, its most; a second key the other two.
    let mut held: Vec<TcpStream> = (0..2).map(|_| held_export(addr, &key)).collect();
    let third_of_one_key = get(addr, "/v1/areas/export?format=csv", Some(&key));
    assert_503(&third_of_one_key);
    assert!(third_of_one_key.text().contains("as many as one key may"));
    held.extend((0..2).map(|_| held_export(addr, &other_key)));
    let fifth = get(addr, "/v1/areas/export?format=csv", Some(&third_key));
    assert_503(&fifth);
    assert!(
        fifth
            .text()
            .contains("as many as this server streams at once")
    );

    let others = [
        format!("/v1/areas/{id}"),
        format!("/v1/areas/{id}?include=nearby,history"),
        "/v1/areas?limit=50&format=csv".into(),
        "/v1/areas/search?q=a&limit=50".into(),
        "/v1/areas/search?bbox=16,-35,33,-22&format=geojson".into(),
    ];
    for round in 0..4 {
        for target in &others {
            let started = Instant::now();
            let reply = get(addr, target, Some(&key));
            let took = started.elapsed();
            assert_eq!(reply.status, 200, "{target}: {}", reply.text());
            assert!(
                took < Duration::from_secs(3),
                "round {round}, {target}: {took:?}"
            );
        }
    }
    // Still four held: still no fifth.
    assert_503(&get(
        addr,
        "/v1/areas/export?province=gauteng",
        Some(&third_key),
    ));

    drop(held);
    let again = until(
        Duration::from_secs(10),
        || get(addr, "/v1/areas/export?format=csv", Some(&key)),
        |r| r.status == 200,
    );
    assert_eq!(
        again.status,
        200,
        "an export once the held ones are gone: {}",
        again.text()
    );
    assert_eq!(items(&again, "csv").len(), AREAS, "the whole dataset");
    running.shutdown();
}

/// Reads one export's whole answer on a new connection, stopping at its last
/// chunk rather than at the close, as a client that starts the next export
/// at once does. Returns the status line.
fn export_to_last_chunk(addr: SocketAddr, key: &str) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let auth = format!("Bearer {key}");
    let target = b"/v1/areas/export?format=csv";
    let ask = request("GET", target, &[("Authorization", auth.as_bytes())]);
    stream.write_all(&ask).unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        let n = stream.read(&mut buf).expect("the export");
        seen.extend_from_slice(&buf[..n]);
        let status = String::from_utf8_lossy(&seen[..seen.len().min(12)]).to_string();
        let ended = seen.ends_with(b"\r\n0\r\n\r\n");
        if n == 0 || ended || (!status.ends_with("200") && seen.len() >= 12) {
            return status;
        }
    }
}

#[test]
fn a_client_may_start_its_next_export_as_soon_as_one_ends() {
    let _serial = serial();
    let (_, key, server) = bin::Served::spawn_keyed("exports-back-to-back", Plan::Growth, &[]);
    let addr = server.addr;
    // Two at once, a key's most: each next one starts as its last one ends.
    let loops: Vec<_> = (0..2)
        .map(|_| {
            let key = key.clone();
            std::thread::spawn(move || {
                (0..25)
                    .map(|_| export_to_last_chunk(addr, &key))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for (i, l) in loops.into_iter().enumerate() {
        let statuses = l.join().unwrap();
        assert!(
            statuses.iter().all(|s| s == "HTTP/1.1 200"),
            "loop {i}: {statuses:?}"
        );
    }
}
