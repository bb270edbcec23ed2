//! Idleness against the binary: at `--max-connections` the connection idle
//! the longest is the one closed to make room, again and again; and a quiet
//! server's threads sleep, waking only for the sweep of the timeouts and
//! the watchers' own intervals.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use super::*;
use crate::serial;

/// Sends one kept-alive request on `s` and reads its whole answer: its status.
fn ask(s: &mut TcpStream) -> u16 {
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\n\r\n").unwrap();
    let mut got = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = s.read(&mut chunk).expect("an answer within 5 s");
        assert!(n > 0, "closed before its answer");
        got.extend_from_slice(&chunk[..n]);
        let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let reply = parse(&got[..end + 4], true).expect("a head");
        let length: usize = reply.header("Content-Length").unwrap().parse().unwrap();
        if got.len() >= end + 4 + length {
            return reply.status;
        }
    }
}

/// Whether the server has closed `s` (within 2 s).
fn closed(s: &mut TcpStream) -> bool {
    s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    matches!(s.read(&mut [0u8; 1]), Ok(0) | Err(_))
}

#[test]
fn the_longest_idle_connection_is_closed_first_at_the_cap() {
    let _serial = serial();
    let (_, server) = served("evict-order", &["--max-connections", "3"]);
    let pause = || std::thread::sleep(Duration::from_millis(30));
    let mut held: Vec<TcpStream> = (0..3)
        .map(|_| {
            let mut s = TcpStream::connect(server.addr).unwrap();
            assert_eq!(ask(&mut s), 200);
            pause();
            s
        })
        .collect();
    let [mut a, mut b, mut c] = [held.remove(0), held.remove(0), held.remove(0)];
    // At the cap: the first answered, idle the longest, closes for the fourth.
    let mut d = TcpStream::connect(server.addr).unwrap();
    assert_eq!(ask(&mut d), 200);
    assert!(closed(&mut a), "the longest idle closed for the newcomer");
    // The second answered again: now idle the shortest. The third, idle
    // since before the fourth came, closes for the fifth.
    pause();
    assert_eq!(ask(&mut b), 200);
    pause();
    let mut e = TcpStream::connect(server.addr).unwrap();
    assert_eq!(ask(&mut e), 200);
    assert!(closed(&mut c), "the third, idle the longest now, closed");
    for (name, s) in [("second", &mut b), ("fourth", &mut d), ("fifth", &mut e)] {
        assert_eq!(ask(s), 200, "the {name} is still served");
    }
}

/// How often each of the server's threads has slept and woken, by name.
fn switches(pid: u32) -> HashMap<String, usize> {
    let mut by_name = HashMap::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let dir = task.unwrap().path();
        let (Ok(name), Ok(status)) = (
            std::fs::read_to_string(dir.join("comm")),
            std::fs::read_to_string(dir.join("status")),
        ) else {
            continue;
        };
        let count: usize = status
            .lines()
            .filter(|l| l.starts_with("voluntary_ctxt_switches:"))
            .filter_map(|l| l.split_whitespace().nth(1)?.parse::<usize>().ok())
            .sum();
        *by_name.entry(name.trim().to_string()).or_default() += count;
    }
    by_name
}

#[test]
fn a_quiet_servers_threads_sleep() {
    let _serial = serial();
    let (_, server) = served("quiet", &["--workers", "4"]);
    assert_eq!(get(server.addr, "/healthz", None).status, 200);
    // The access log's last batch written, the pools' first work done.
    std::thread::sleep(Duration::from_millis(500));
    let pid = server.child.id();
    let before = switches(pid);
    let quiet = Duration::from_secs(2);
    std::thread::sleep(quiet);
    let after = switches(pid);
    let woke = |name: &str| after.get(name).unwrap_or(&0) - before.get(name).unwrap_or(&0);
    assert_eq!(woke("access-log"), 0, "the access log's writer slept");
    let workers: usize = (0..4).map(|i| woke(&format!("worker-{i}"))).sum();
    // The sweep's tick, 10 a second, and nothing else.
    assert!(
        workers <= 25,
        "the workers woke {workers} times in {quiet:?}: {after:?}"
    );
    // Each watcher wakes at its interval, the keys' every 250 ms.
    let watchers = woke("db-watch") + woke("keys-watch") + woke("usage");
    assert!(
        watchers <= 15,
        "the watchers woke {watchers} times: {after:?}"
    );
}
