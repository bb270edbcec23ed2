//! Connections against the binary: a refused connection's port, slowloris,
//! the caps, held idle connections, and a descriptor limit of 128.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use super::*;
use crate::serial;

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
    let running = area_scoring::server::start(&area_scoring::server::ServeConfig {
        db: db.clone(),
        keys: crate::common::db::keys_path(&db),
        redis: None,
        addr: "127.0.0.1:0".into(),
        workers: 2,
        client_timeout: Duration::from_secs(10),
        metrics_addr: None,
        limits: area_scoring::transport::ConnLimits {
            per_address: 3,
            count_loopback: true,
            ..Default::default()
        },
        exports_per_key: area_scoring::app::exports::DEFAULT_MAX_EXPORTS_PER_KEY,
    })
    .unwrap();
    let addr = running.addr();
    let held: Vec<TcpStream> = (0..3).map(|_| TcpStream::connect(addr).unwrap()).collect();
    let refused = exchange(addr, b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n").unwrap();
    assert_error_shape(&refused, 503, "service_unavailable");
    assert_eq!(refused.header("Retry-After"), Some("1"));
    assert_eq!(refused.header("Connection"), Some("close"));
    drop(held);
    // Until the server has seen the held ones close, a new one is refused
    // too: each refusal the client meets is counted, once.
    let mut refusals = 1;
    let served = within(Duration::from_secs(5), || {
        let r = exchange(addr, b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n").ok()?;
        refusals += usize::from(r.status == 503);
        (r.status == 200).then_some(r)
    });
    assert!(served.is_some(), "a place is free again once one closes");
    let metrics = get(addr, "/metrics", None).text();
    let counted = format!("area_connections_refused_total{{cap=\"per_address\"}} {refusals}\n");
    assert!(metrics.contains(&counted), "{refusals} refused: {metrics}");
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
    let db = fresh_db("nofile-128");
    let server = Served::spawn_under_nofile(&db, 128, &["--max-connections-per-address", "0"]);
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", server.child.id())).unwrap();
    let open_files = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    assert!(
        open_files.split_whitespace().nth(3) == Some("128"),
        "started under the limit: {open_files}"
    );
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
