//! Connections the server makes to itself, to keep tiny_http 0.12 accepting
//! and to free the connections its thread pool leaves waiting.
//!
//! tiny_http's accept thread ends for good at the first error from accept(),
//! and accept() on a listener with SO_RCVTIMEO fails (EAGAIN) once the timeout
//! passes without a new connection: left alone, a server that sees no new
//! connection for `client_timeout` never accepts another. A connection to
//! ourselves well within the timeout keeps accept() returning (tiny_http does
//! the same to stop); tiny_http reads EOF from it and drops it.
//!
//! tiny_http hands each accepted connection to a thread pool that queues it
//! when it counts an idle thread, and counts a thread idle until that thread
//! has woken. So in a burst of new connections most are queued behind a few
//! threads, and a queued connection waits, unread, until a thread is free: on
//! a new server 52 and 54 of wrk's 64 connections waited in two runs of three,
//! the last up to 6 s. A
//! connection made when no thread is idle gets a new thread, which after that
//! connection takes the next queued one. So each round goes on making
//! connections for as long as each leaves one more thread alive: a thread that
//! went on to a queued connection. It stops when two in a row do not (an
//! idle thread took them: none is queued).
//! tests/wall_clock/slow_clients.rs opens 64 connections at once on three new servers
//! and requires every one answered within a second.

use std::io::{ErrorKind, Read};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// Connections one round makes at most, however many are found waiting.
const AT_MOST: usize = 1024;

pub fn keep_accepting(addr: SocketAddr, timeout: Duration, stopping: &AtomicBool) {
    let target = loopback(addr);
    let every = (timeout / 4).min(Duration::from_millis(100));
    let mut last = Instant::now();
    while !stopping.load(Ordering::SeqCst) {
        thread::sleep(Duration::from_millis(10).min(every));
        if last.elapsed() < every {
            continue;
        }
        // Threads of other parts of the process that end meanwhile can hide
        // one new thread, so a round ends at the second miss in a row.
        let mut misses = 0;
        for _ in 0..AT_MOST {
            let before = threads();
            if let Err(e) = connect_once(target, every, stopping) {
                log::warn!("cannot reach our own listener on {target}: {e}");
                break;
            }
            misses = if threads() > before { 0 } else { misses + 1 };
            if misses == 2 || stopping.load(Ordering::SeqCst) {
                break;
            }
        }
        last = Instant::now();
    }
}

/// Where to reach a listener bound to `addr`.
fn loopback(addr: SocketAddr) -> SocketAddr {
    match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => SocketAddr::from(([127, 0, 0, 1], addr.port())),
        IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, addr.port()))
        }
        _ => addr,
    }
}

/// Connects, sends EOF and waits (up to `wait`) for tiny_http to drop the
/// connection, so that the thread that took it is counted after it. Waits in
/// slices of 10 ms, so that shutdown, which stops this first, is not held up.
fn connect_once(target: SocketAddr, wait: Duration, stopping: &AtomicBool) -> std::io::Result<()> {
    let stream = TcpStream::connect_timeout(&target, wait)?;
    stream.shutdown(Shutdown::Write)?;
    stream.set_read_timeout(Some(Duration::from_millis(10).min(wait)))?;
    let deadline = Instant::now() + wait;
    // EOF once a thread has taken it; nothing while it is queued behind others.
    while Instant::now() < deadline && !stopping.load(Ordering::SeqCst) {
        match (&stream).read(&mut [0u8; 64]) {
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            _ => break,
        }
    }
    Ok(())
}

/// The process's thread count (Linux), or 0 where it cannot be read, which
/// makes each round one connection.
fn threads() -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("Threads:"))
                .and_then(|n| n.trim().parse().ok())
        })
        .unwrap_or(0)
}
