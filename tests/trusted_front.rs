//! `--trusted-front` against the built binary: a front on another host is
//! believed about the client (X-Real-IP), and a host not named is not; the
//! per-address connection cap does not count a named front. A bad address
//! stops the start with a usage error.
//!
//! A front on another host has an address that is not loopback, and a peer
//! on loopback is believed anyway. So the test runs itself again inside a
//! network namespace of its own (`unshare -rn`, no root needed where user
//! namespaces are allowed), where the loopback device also carries two
//! documentation addresses (set with iproute2's `ip`, which `make test`
//! installs when missing): FRONT, named by `--trusted-front`, and OTHER, a
//! host that is not.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::common::bin::{Served, run, text};
use crate::common::client::{Reply, parse};
use crate::common::db::fresh_db;
use socket2::{Domain, Socket, Type};

const FRONT: &str = "198.51.100.10";
const OTHER: &str = "198.51.100.20";
/// Set in the namespace's run of the test.
const INSIDE: &str = "AREA_TEST_IN_NETNS";
/// More requests without a key than one client may make in a minute.
const REQUESTS: usize = 120;

#[test]
fn x_real_ip_is_believed_from_a_named_front_on_another_host_only() {
    // The test's name in this binary (tests/tests.rs), which runs it again.
    const NAME: &str =
        "trusted_front::x_real_ip_is_believed_from_a_named_front_on_another_host_only";
    if std::env::var_os(INSIDE).is_some() {
        return inside_the_namespace();
    }
    let exe = std::env::current_exe().unwrap();
    let out = Command::new("unshare")
        .arg("-rn")
        .arg(&exe)
        .args(["--exact", NAME, "--nocapture", "--test-threads=1"])
        .env(INSIDE, "1")
        .output()
        .expect("run unshare (util-linux)");
    let said = text(&out.stdout) + &text(&out.stderr);
    assert!(out.status.success(), "in the namespace: {said}");
    assert!(said.contains("1 passed"), "the test ran there: {said}");
}

fn inside_the_namespace() {
    ip(&["link", "set", "lo", "up"]);
    for addr in [FRONT, OTHER] {
        ip(&["addr", "add", &format!("{addr}/32"), "dev", "lo"]);
    }
    let db = fresh_db("trusted-front");
    let per_address = "2";
    let args = [
        "--trusted-front",
        FRONT,
        "--max-connections-per-address",
        per_address,
    ];
    let server = Served::spawn(&db, &args);
    let said = format!("X-Real-IP believed from loopback and {FRONT}");
    assert!(
        server.logged(&said),
        "the start says whose X-Real-IP is believed"
    );

    // Each request of the named front speaks for another client: none is
    // limited, though one client may make only 60 a minute.
    let from_front = statuses(&server, FRONT);
    assert!(from_front.iter().all(|s| *s == 401), "{from_front:?}");
    // Another host cannot pick its bucket: all its requests are one client.
    let from_other = statuses(&server, OTHER);
    assert_eq!(from_other[0], 401);
    assert!(from_other.contains(&429), "{from_other:?}");

    // The named front holds more connections than the cap lets one address.
    let held_front: Vec<TcpStream> = (0..3).map(|_| connect(&server, FRONT)).collect();
    assert_eq!(healthz(&server, FRONT).status, 200, "a front is not capped");
    drop(held_front);
    let _held_other: Vec<TcpStream> = (0..2).map(|_| connect(&server, OTHER)).collect();
    let refused = healthz(&server, OTHER);
    assert_eq!(refused.status, 503, "{}", refused.text());
}

#[test]
fn a_trusted_front_that_is_not_an_address_stops_the_start() {
    let db = fresh_db("trusted-front-bad");
    let db = db.to_str().unwrap();
    for (args, env) in [
        (vec!["--trusted-front", "10.0.0.5:8080"], None),
        (vec!["--trusted-front=10.0.0.5,front.example"], None),
        (vec![], Some("10.0.0.5/24")),
    ] {
        let mut all = vec!["serve", "--db", db, "--addr", "127.0.0.1:0"];
        all.extend(args);
        let env: Vec<(&str, &Path)> = env
            .map(|v| ("AREA_TRUSTED_FRONT", Path::new(v)))
            .into_iter()
            .collect();
        let out = run(&all, &env, Path::new("/"));
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {err}");
        assert!(err.contains("--trusted-front takes IP addresses"), "{err}");
        assert!(err.contains("usage:"), "{err}");
    }
}

fn ip(args: &[&str]) {
    let status = Command::new("ip")
        .args(args)
        .status()
        .expect("run ip (iproute2)");
    assert!(status.success(), "ip {args:?}");
}

/// `REQUESTS` requests without a key from `source`, each with an X-Real-IP
/// of its own: their statuses.
fn statuses(server: &Served, source: &str) -> Vec<u16> {
    (0..REQUESTS)
        .map(|i| {
            let real = format!("203.0.113.{}", i % 250 + 1);
            let head = format!(
                "GET /v1/areas HTTP/1.1\r\nHost: api\r\nX-Real-IP: {real}\r\nConnection: close\r\n\r\n"
            );
            exchange(connect(server, source), &head).status
        })
        .collect()
}

fn healthz(server: &Served, source: &str) -> Reply {
    let head = "GET /healthz HTTP/1.1\r\nHost: api\r\nConnection: close\r\n\r\n";
    exchange(connect(server, source), head)
}

/// A connection to `server` from the address `source`.
fn connect(server: &Served, source: &str) -> TcpStream {
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    let from = SocketAddr::new(source.parse::<IpAddr>().unwrap(), 0);
    socket.bind(&from.into()).expect("bind the source address");
    socket.connect(&server.addr.into()).expect("connect");
    socket.into()
}

fn exchange(mut stream: TcpStream, head: &str) -> Reply {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    parse(&raw, false).expect("an HTTP answer")
}
