//! The HTTP layer against the real binary with no front (docs/http-layer.md):
//! each hostile or malformed shape gets its JSON error and `Connection: close`
//! or is closed, and afterwards the process's threads and descriptors are
//! back at their baseline, polled with a deadline.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use crate::common::bin::Served;
use crate::common::client::*;
use crate::common::wait::within;
use crate::common::*;
use crate::serial;

/// How long a count may take to come back to its baseline.
const SETTLE: Duration = Duration::from_secs(10);

fn proc_field(pid: u32, field: &str) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the process lives");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc/{pid}/status"))
}

/// (threads, open descriptors) of the server process.
fn counts(server: &Served) -> (usize, usize) {
    let pid = server.child.id();
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count();
    (proc_field(pid, "Threads:"), fds)
}

fn rss_kib(server: &Served) -> usize {
    proc_field(server.child.id(), "VmRSS:")
}

/// The baseline after one request answered (the pools and threads all up).
fn baseline(server: &Served) -> (usize, usize) {
    assert_eq!(get(server.addr, "/healthz", None).status, 200);
    within(SETTLE, || {
        let before = counts(server);
        std::thread::sleep(Duration::from_millis(200));
        (counts(server) == before).then_some(before)
    })
    .expect("threads and descriptors settle")
}

fn back_to_baseline(server: &Served, base: (usize, usize), what: &str) {
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
fn answer_to(addr: SocketAddr, raw: &[u8]) -> Option<Vec<u8>> {
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
fn assert_refused(raw: &[u8], status: u16, code: &str) {
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

fn crate_addr() -> SocketAddr {
    ADDR.get().expect("a server for this test")
}

fn served(name: &str, extra: &[&str]) -> (String, Served) {
    let mut args = vec!["--max-connections-per-address", "0"];
    args.extend_from_slice(extra);
    let (_, key, server) = Served::spawn_keyed(name, Plan::Growth, &args);
    ADDR.set(Some(server.addr));
    (key, server)
}

#[test]
fn http_2_and_3_request_lines_are_505_and_leave_nothing_behind() {
    let _serial = serial();
    let (_, server) = served("http2", &[]);
    let base = baseline(&server);
    for version in ["HTTP/2.0", "HTTP/3.0"] {
        for _ in 0..25 {
            let raw = format!("GET /healthz {version}\r\nHost: t\r\n\r\n");
            assert_refused(raw.as_bytes(), 505, "http_version_not_supported");
        }
    }
    back_to_baseline(&server, base, "after 50 HTTP/2.0 and 3.0 lines");
}

#[test]
fn each_malformed_shape_has_its_code() {
    let _serial = serial();
    let (_, server) = served("malformed", &[]);
    let base = baseline(&server);
    for (raw, status, code) in [
        (&b"GET /healthz\r\n\r\n"[..], 400, "bad_request"),
        (
            b"GET /healthz HTTP/1.7\r\n\r\n",
            505,
            "http_version_not_supported",
        ),
        (b"GET /healthz HTXP/1.1\r\n\r\n", 400, "bad_request"),
        (
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",
            400,
            "bad_request",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nNoColon\r\n\r\n",
            400,
            "bad_request",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nX-A: b\r\n folded\r\n\r\n",
            400,
            "bad_request",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n\r\n",
            400,
            "bad_request",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nExpect: x\r\n\r\n",
            417,
            "expectation_failed",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
            400,
            "body_not_allowed",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n",
            400,
            "body_not_allowed",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
            400,
            "body_not_allowed",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nN\xc3\xa9: v\r\n\r\n",
            400,
            "bad_request",
        ),
        (
            b"GET /v1/areas/\xc3\xa9 HTTP/1.1\r\n\r\n",
            400,
            "bad_request",
        ),
    ] {
        assert_refused(raw, status, code);
    }
    // Expect: 100-continue without a body is simply answered, with no 100.
    let reply = exchange(
        server.addr,
        b"GET /healthz HTTP/1.1\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    assert_eq!(reply.status, 200);
    back_to_baseline(&server, base, "after the malformed heads");
}

#[test]
fn a_non_ascii_header_value_counts_as_the_header_absent() {
    let _serial = serial();
    let (key, server) = served("non-ascii-value", &[]);
    let auth = format!("Bearer {key}\u{e9}");
    let reply = send(
        server.addr,
        "GET",
        b"/v1/areas/soweto",
        &[("Authorization", auth.as_bytes())],
    );
    assert_error_shape(&reply, 401, "missing_api_key");
    let bearer = format!("Bearer {key}");
    let first = send(
        server.addr,
        "GET",
        b"/v1/areas/soweto",
        &[("Authorization", bearer.as_bytes())],
    );
    let etag = first.header("ETag").expect("an ETag").to_string();
    let reply = send(
        server.addr,
        "GET",
        b"/v1/areas/soweto",
        &[
            ("Authorization", bearer.as_bytes()),
            ("X-Request-Id", "caf\u{e9}".as_bytes()),
            ("If-None-Match", format!("{etag}\u{e9}").as_bytes()),
        ],
    );
    assert_eq!(reply.status, 200, "If-None-Match ignored");
    let id = reply.header("X-Request-Id").expect("an id");
    assert!(id.starts_with("req_"), "a generated id: {id}");
}

#[test]
fn a_content_length_of_99999999999_is_refused_and_closed() {
    let _serial = serial();
    let (_, server) = served("huge-length", &[]);
    let base = baseline(&server);
    for method in ["GET", "POST"] {
        let raw = format!("{method} /healthz HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n");
        // The client sends part of the body and keeps the connection open:
        // the server answers and closes all the same.
        let mut stream = TcpStream::connect(server.addr).unwrap();
        stream.write_all(raw.as_bytes()).unwrap();
        stream.write_all(&[b'x'; 1000]).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let mut out = Vec::new();
        let _ = stream.read_to_end(&mut out);
        let reply = parse(&out, false).expect("an answer, then the close");
        assert_error_shape(&reply, 400, "body_not_allowed");
    }
    back_to_baseline(&server, base, "after Content-Length: 99999999999");
}

#[test]
fn an_endless_request_line_is_414_with_memory_bounded() {
    let _serial = serial();
    let (_, server) = served("endless", &[]);
    let base = baseline(&server);
    let rss_before = rss_kib(&server);
    let mut peak = rss_before;
    let lines: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut s = TcpStream::connect(server.addr).unwrap();
            s.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
            s.write_all(b"GET /").unwrap();
            s
        })
        .collect();
    // Up to 4 MiB each, until the server answers and stops reading.
    let chunk = [b'a'; 64 * 1024];
    for mut s in &lines {
        for _ in 0..64 {
            if s.write_all(&chunk).is_err() {
                break;
            }
        }
        peak = peak.max(rss_kib(&server));
    }
    for mut s in &lines {
        s.shutdown(Shutdown::Write).ok();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        let reply = parse(&out, false).expect("an answer");
        assert_error_shape(&reply, 414, "uri_too_long");
    }
    assert!(
        peak < rss_before + 16 * 1024,
        "RSS {rss_before} KiB before, {peak} KiB at most during 20 endless lines"
    );
    drop(lines);
    back_to_baseline(&server, base, "after 20 endless request lines");
}

#[test]
fn a_refused_connections_local_port_serves_a_new_connection() {
    use socket2::{Domain, Socket, Type};
    let _serial = serial();
    let (_, server) = served("reuse-port", &[]);
    let chunked = b"GET /healthz HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
    let first = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    first
        .bind(&"127.0.0.1:0".parse::<SocketAddr>().unwrap().into())
        .unwrap();
    let local = first.local_addr().unwrap();
    first.connect(&server.addr.into()).unwrap();
    let mut first: TcpStream = first.into();
    first.write_all(chunked).unwrap();
    first
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut out = Vec::new();
    let _ = first.read_to_end(&mut out);
    assert_error_shape(&parse(&out, false).unwrap(), 400, "body_not_allowed");
    // SO_LINGER 0: the close resets, so no TIME_WAIT holds the port.
    Socket::from(first)
        .set_linger(Some(Duration::ZERO))
        .unwrap();
    for attempt in 0..3 {
        let again = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
        again.set_reuse_address(true).unwrap();
        again.bind(&local).unwrap();
        again.connect(&server.addr.into()).unwrap();
        let mut again: TcpStream = again.into();
        again
            .write_all(b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n")
            .unwrap();
        again
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let mut out = Vec::new();
        again.read_to_end(&mut out).expect("answered within 5 s");
        assert_eq!(parse(&out, false).unwrap().status, 200, "attempt {attempt}");
        Socket::from(again)
            .set_linger(Some(Duration::ZERO))
            .unwrap();
    }
}

#[test]
fn five_hundred_slowloris_clients_leave_a_normal_client_fast_and_nothing_behind() {
    let _serial = serial();
    let (key, server) = served(
        "slowloris-bin",
        &["--workers", "4", "--client-timeout", "3"],
    );
    let base = baseline(&server);
    let mut dribbling: Vec<TcpStream> = (0..500)
        .map(|_| {
            let mut s = TcpStream::connect(server.addr).unwrap();
            s.write_all(b"GET /v1/areas HTTP/1.1\r\nX-Slow: ").unwrap();
            s
        })
        .collect();
    let mut times = Vec::new();
    for _ in 0..40 {
        for c in dribbling.iter_mut().take(100) {
            let _ = c.write_all(b"x");
        }
        let started = Instant::now();
        assert_eq!(
            get(server.addr, "/v1/areas?limit=5", Some(&key)).status,
            200
        );
        times.push(started.elapsed());
    }
    times.sort();
    assert!(
        times[37] < Duration::from_millis(100),
        "p95 {:?}: {times:?}",
        times[37]
    );
    assert!(
        times[39] < Duration::from_secs(1),
        "slowest {:?}",
        times[39]
    );
    // A head not complete within the client timeout closes its connection.
    drop(dribbling);
    back_to_baseline(&server, base, "after 500 slowloris clients");
}

#[test]
fn the_per_address_cap_refuses_with_503_and_frees_on_close() {
    let _serial = serial();
    let db = fresh_db("per-address");
    let running = area_scoring::transport::start(&area_scoring::transport::ServeConfig {
        db: db.clone(),
        keys: crate::common::db::keys_path(&db),
        addr: "127.0.0.1:0".into(),
        workers: 2,
        client_timeout: Duration::from_secs(10),
        metrics_addr: None,
        limits: area_scoring::transport::ConnLimits {
            per_address: 3,
            count_loopback: true,
            ..Default::default()
        },
    })
    .unwrap();
    let addr = running.addr();
    let held: Vec<TcpStream> = (0..3).map(|_| TcpStream::connect(addr).unwrap()).collect();
    let refused = exchange(addr, b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n").unwrap();
    assert_error_shape(&refused, 503, "service_unavailable");
    assert_eq!(refused.header("Retry-After"), Some("1"));
    assert_eq!(refused.header("Connection"), Some("close"));
    drop(held);
    let served = within(Duration::from_secs(5), || {
        let r = exchange(addr, b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n").ok()?;
        (r.status == 200).then_some(r)
    });
    assert!(served.is_some(), "a place is free again once one closes");
    let metrics = get(addr, "/metrics", None).text();
    assert!(
        metrics.contains("area_connections_refused_total{cap=\"per_address\"} 1\n"),
        "{metrics}"
    );
    running.shutdown();
}

/// As many idle keep-alive connections as the descriptor limit allows (up to
/// 10,000, client and server sharing the machine): no thread each, RSS at most
/// 64 MiB, and one more client is answered (an idle one closed for it).
#[test]
fn held_idle_connections_cost_no_thread_and_little_memory() {
    let _serial = serial();
    let limit = area_scoring::transport::limits::descriptor_limit().expect("a limit");
    let count = 10_000.min(limit.saturating_sub(200) / 2);
    let cap = count.to_string();
    let (_, server) = served("held", &["--max-connections", &cap]);
    let base = baseline(&server);
    let held: Vec<TcpStream> = (0..count)
        .map(|i| {
            let mut s = TcpStream::connect(server.addr).unwrap_or_else(|e| panic!("{i}: {e}"));
            if i % 2 == 0 {
                // Half have been answered once and are kept alive.
                s.write_all(b"GET /healthz HTTP/1.1\r\n\r\n").unwrap();
            }
            s
        })
        .collect();
    let open = within(SETTLE, || {
        let (_, fds) = counts(&server);
        (fds >= base.1 + count).then_some(fds)
    });
    assert!(
        open.is_some(),
        "{count} connections held: {:?}",
        counts(&server)
    );
    let (threads, _) = counts(&server);
    assert_eq!(threads, base.0, "threads with {count} connections held");
    let rss = rss_kib(&server);
    assert!(
        rss <= 64 * 1024,
        "RSS {rss} KiB with {count} connections held"
    );
    // At the cap: one more client is answered, an idle one closed for it.
    let reply = exchange(
        server.addr,
        b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(reply.map(|r| r.status).ok(), Some(200));
    let metrics = get(server.addr, "/metrics", None).text();
    assert!(
        !metrics.contains("area_connections_refused_total{cap=\"evicted_idle\"} 0\n"),
        "an idle connection was closed for the new one: {metrics}"
    );
    drop(held);
    back_to_baseline(&server, base, "after the held connections closed");
}

/// Under a descriptor limit of 128, 300 connections that send nothing: a
/// normal request meanwhile is answered 200 or refused 503 in JSON, never
/// left hanging, and once they close the server answers within a second.
#[test]
fn three_hundred_silent_connections_under_128_descriptors() {
    let _serial = serial();
    let (_, server) = served("nofile-128", &[]);
    let pid = server.child.id().to_string();
    let status = std::process::Command::new("prlimit")
        .args(["--pid", &pid, "--nofile=128:128"])
        .status()
        .expect("run prlimit");
    assert!(status.success(), "prlimit");
    let base = baseline(&server);
    let silent: Vec<TcpStream> = (0..300)
        .filter_map(|_| TcpStream::connect_timeout(&server.addr, Duration::from_secs(2)).ok())
        .collect();
    for _ in 0..5 {
        let mut stream = TcpStream::connect(server.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut out = Vec::new();
        stream
            .read_to_end(&mut out)
            .expect("answered or closed, not left hanging");
        let reply = parse(&out, false).expect("an answer");
        match reply.status {
            200 => {}
            503 => {
                assert_error_shape(&reply, 503, "service_unavailable");
            }
            s => panic!("status {s}"),
        }
    }
    let metrics = get(server.addr, "/metrics", None).text();
    assert!(
        !metrics.contains("area_connections_refused_total{cap=\"evicted_idle\"} 0\n"),
        "idle connections were closed to make room: {metrics}"
    );
    drop(silent);
    let started = Instant::now();
    let ok = within(Duration::from_secs(1), || {
        (get(server.addr, "/healthz", None).status == 200).then_some(())
    });
    assert!(
        ok.is_some(),
        "answered {:?} after they closed",
        started.elapsed()
    );
    back_to_baseline(&server, base, "after 300 silent connections");
}
