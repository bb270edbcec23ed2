//! What a request's query costs the server (docs/api.md, "Parameters"): for
//! every route, targets up to the URL limit built to be expensive to parse
//! (many names, long names, many escapes, long lists, a repeat late in the
//! string) cost at most 3x the route's plain request and at most 0.5 ms
//! each, in the server process's own CPU time. A route whose plain request
//! costs less than `/healthz`'s (Get Area, a stored body) is held to 3x
//! `/healthz`'s instead: a request's fixed cost (its head, its log line) is
//! the least any request costs, and against a body read whole from one row
//! the ratio measured the machine's noise, in either direction.
//!
//! The two sides are measured in the same run, alternated over several
//! rounds, and compared by their medians, so that a noisy machine moves both
//! alike. The bounds are the release binary's: `make test` builds without
//! optimizations, which slows byte loops far more than the system calls a
//! plain request spends its time in, so there the test is ignored, and
//! `make query-cost` runs it on the release build (CI does).

mod common;

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use area_scoring::error::MAX_TARGET_BYTES;
use common::Plan;
use common::bin::Served;
use common::db::{fresh_db, new_key, unlimited_plans};

/// Requests in one batch of one side.
const BATCH: usize = 2_000;
/// Rounds of each route, its two sides alternated.
const ROUNDS: usize = 3;
/// A hostile target may cost this many times the plain one...
const MAX_RATIO: f64 = 3.0;
/// ...and at most this much server CPU.
const MAX_CPU_PER_REQUEST: Duration = Duration::from_micros(500);

/// Every route, by a plain target of it, and the names it takes (a list
/// parameter first, where it has one).
const ROUTES: [(&str, &[&str]); 12] = [
    (
        "/v1/areas?limit=20",
        &["province", "limit", "offset", "sort", "order", "format"],
    ),
    (
        "/v1/areas/search?q=cape",
        &["bbox", "q", "lat", "lng", "radius", "min_score"],
    ),
    (
        "/v1/areas/compare?ids=soweto,sandton",
        &["ids", "dimensions", "include"],
    ),
    (
        "/v1/areas/stats?group_by=province",
        &["measures", "group_by", "province", "limit", "offset"],
    ),
    (
        "/v1/areas/export?province=northern-cape",
        &["province", "format"],
    ),
    ("/v1/areas/soweto", &["include"]),
    ("/v1/areas/soweto/history", &["period", "granularity"]),
    ("/v1/key", &[]),
    ("/healthz", &[]),
    ("/metrics", &[]),
    ("/v1/openapi.json", &[]),
    ("/", &[]),
];

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the bounds are the release build's: make query-cost runs it"
)]
fn every_route_parses_a_hostile_target_at_the_cost_of_a_plain_one() {
    let db = fresh_db("query-cost");
    let (_, key) = new_key(&db, Plan::Growth);
    unlimited_plans(&db);
    let server = Served::spawn(&db, &["--workers", "2"]);
    let mut conn = KeptAlive::open(server.addr, &key);
    let mut measured = Vec::new();
    for (plain, names) in ROUTES {
        let path = plain.split('?').next().unwrap();
        let hostile = hostile_targets(path, names);
        let (mut plain_cpu, mut hostile_cpu) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            plain_cpu.push(batch_cpu(&server, &mut conn, &[plain.to_string()]));
            hostile_cpu.push(batch_cpu(&server, &mut conn, &hostile));
        }
        measured.push((path, median(plain_cpu), median(hostile_cpu)));
    }
    let floor = measured
        .iter()
        .find(|(path, ..)| *path == "/healthz")
        .map(|m| m.1)
        .expect("/healthz is measured");
    let mut failures = Vec::new();
    for (path, plain_cpu, hostile_cpu) in measured {
        let ratio = hostile_cpu.as_secs_f64() / plain_cpu.max(floor).as_secs_f64();
        eprintln!("{path}: plain {plain_cpu:?}, hostile {hostile_cpu:?} a request ({ratio:.2}x)");
        if ratio > MAX_RATIO || hostile_cpu > MAX_CPU_PER_REQUEST {
            failures.push(format!(
                "{path}: {hostile_cpu:?} against {plain_cpu:?} (floor {floor:?}; {ratio:.2}x)"
            ));
        }
    }
    assert!(failures.is_empty(), "over the bounds: {failures:#?}");
}

/// Targets of `path`, each as long as the URL limit allows, of the shapes
/// that cost a naive parser most.
fn hostile_targets(path: &str, names: &[&str]) -> Vec<String> {
    let fill = |pairs: &mut dyn FnMut(usize) -> String| {
        let mut target = format!("{path}?");
        for i in 0.. {
            let pair = pairs(i);
            if target.len() + pair.len() + 1 > MAX_TARGET_BYTES {
                break;
            }
            if i > 0 {
                target.push('&');
            }
            target.push_str(&pair);
        }
        target
    };
    let two_letters = |i: usize| {
        let letters = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        let n = letters.len();
        String::from_utf8(vec![letters[i / n % n], letters[i % n]]).unwrap()
    };
    let list_name = names.first().copied().unwrap_or("ids");
    let room = MAX_TARGET_BYTES - path.len() - list_name.len() - 2;
    let mut targets = vec![
        // Many distinct names.
        fill(&mut |i| two_letters(i)),
        // Long names.
        fill(&mut |i| format!("{}{}=1", two_letters(i), "n".repeat(1_000))),
        // Every byte an escape.
        fill(&mut |i| format!("{}=%41%42%43%44%45%46%47%48", two_letters(i))),
        // One list as long as the URL allows.
        format!("{path}?{list_name}={}", "a,".repeat(room / 2 - 1) + "a"),
        // Distinct items of a list.
        format!(
            "{path}?{list_name}={}",
            (0..room / 3 - 1)
                .map(two_letters)
                .collect::<Vec<_>>()
                .join(",")
        ),
    ];
    // The route's own names, distinct ones to the limit, and a repeat of the
    // first at the very end.
    let first = names.first().copied().unwrap_or("aa");
    let repeat = format!("&{first}=2");
    let own: Vec<String> = names.iter().map(|n| format!("{n}=1")).collect();
    let mut late = format!("{path}?{}", own.join("&"));
    for i in 0.. {
        if late.len() + 3 + repeat.len() > MAX_TARGET_BYTES {
            break;
        }
        late.push('&');
        late.push_str(&two_letters(i + 200));
    }
    late.push_str(&repeat);
    targets.push(late);
    for t in &targets {
        assert!(t.len() <= MAX_TARGET_BYTES, "{} bytes", t.len());
    }
    targets
}

/// The server's CPU time a request over `BATCH` requests, cycling through
/// `targets`; each must be answered (a 4xx is an answer).
fn batch_cpu(server: &Served, conn: &mut KeptAlive, targets: &[String]) -> Duration {
    let pid = server.child.id();
    let before = cpu_time(pid);
    for i in 0..BATCH {
        let target = &targets[i % targets.len()];
        let status = conn
            .get(target)
            .unwrap_or_else(|e| panic!("{target:.80}: {e}"));
        assert!((200..500).contains(&status), "{status} for {target:.80}");
    }
    (cpu_time(pid) - before) / BATCH as u32
}

/// The CPU time of every thread of process `pid` so far, from the
/// scheduler's own account (nanoseconds, where /proc/PID/stat counts ticks).
fn cpu_time(pid: u32) -> Duration {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).expect("the server's threads");
    let nanos: u64 = tasks
        .filter_map(|task| {
            let path = task.ok()?.path().join("schedstat");
            let text = std::fs::read_to_string(path).ok()?;
            text.split_whitespace().next()?.parse::<u64>().ok()
        })
        .sum();
    Duration::from_nanos(nanos)
}

fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream.set_nodelay(true).unwrap();
    stream
}

fn median(mut of: Vec<Duration>) -> Duration {
    of.sort();
    of[of.len() / 2]
}

/// A kept-alive connection with a key, reading answers framed by
/// Content-Length or chunked, and opened again after an answer that closes
/// it (an export's).
struct KeptAlive {
    addr: SocketAddr,
    reader: BufReader<TcpStream>,
    key: String,
}

impl KeptAlive {
    fn open(addr: SocketAddr, key: &str) -> KeptAlive {
        KeptAlive {
            addr,
            reader: BufReader::new(connect(addr)),
            key: key.to_string(),
        }
    }

    /// GET `target`: its status, once the whole body is read.
    fn get(&mut self, target: &str) -> io::Result<u16> {
        let head = format!(
            "GET {target} HTTP/1.1\r\nHost: api\r\nAuthorization: Bearer {}\r\n\r\n",
            self.key
        );
        self.reader.get_mut().write_all(head.as_bytes())?;
        let (mut status, mut length, mut chunked, mut close) = (0u16, 0usize, false, false);
        let mut line = String::new();
        loop {
            line.clear();
            if self.reader.read_line(&mut line)? == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            let lower = line.to_ascii_lowercase();
            if status == 0 {
                status = lower
                    .split(' ')
                    .nth(1)
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
            } else if let Some(v) = lower.strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            } else if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
                chunked = true;
            } else if lower.starts_with("connection:") && lower.contains("close") {
                close = true;
            } else if line == "\r\n" {
                break;
            }
        }
        if chunked {
            self.skip_chunks()?;
        } else {
            io::copy(
                &mut self.reader.by_ref().take(length as u64),
                &mut io::sink(),
            )?;
        }
        if close {
            self.reader = BufReader::new(connect(self.addr));
        }
        Ok(status)
    }

    fn skip_chunks(&mut self) -> io::Result<()> {
        let mut line = String::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line)?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| io::Error::other(format!("a chunk size: {line:?}")))?;
            // The chunk and its CRLF; the last, empty one ends with the trailer's CRLF.
            io::copy(
                &mut self.reader.by_ref().take(size as u64 + 2),
                &mut io::sink(),
            )?;
            if size == 0 {
                return Ok(());
            }
        }
    }
}
