//! The listening socket, and the defects of tiny_http 0.12 worked around here
//! (docs/http-layer.md has them all).
//!
//! tiny_http sets no timeouts, so the socket is made here with read and write
//! timeouts that accepted connections inherit (Linux), and TCP_NODELAY. Two of
//! tiny_http's own behaviours then need help: its accept thread ends at the
//! first accept() error (which the timeout causes on an idle listener), and its
//! connection pool can leave connections of a burst without a thread (both
//! handled in keeper.rs, `keep_accepting`).
//!
//! tiny_http also has no way to stop accepting while requests already received
//! are answered: `AcceptSwitch` keeps a second handle on the listening socket
//! and shuts it down underneath tiny_http when the server stops.

use std::net::{Shutdown, SocketAddr, TcpListener, ToSocketAddrs};
use std::time::Duration;

use socket2::{Domain, Protocol, Socket, Type};

use super::write::WRITE_SLICE;

/// A listening socket whose accepted connections time out on reads after
/// `timeout`, and on writes after `WRITE_SLICE` (or `timeout`, if shorter):
/// a write that runs out is carried on by serve.rs, up to `timeout` without
/// progress, on a thread that is not a worker.
pub fn listen(addr: &str, timeout: Duration) -> Result<TcpListener, String> {
    let fail = |e: std::io::Error| format!("cannot listen on {addr}: {e}");
    let resolved: SocketAddr = addr
        .to_socket_addrs()
        .map_err(fail)?
        .next()
        .ok_or_else(|| format!("cannot listen on {addr}: no such address"))?;
    let socket = Socket::new(
        Domain::for_address(resolved),
        Type::STREAM,
        Some(Protocol::TCP),
    )
    .map_err(fail)?;
    socket.set_reuse_address(true).map_err(fail)?;
    socket.set_read_timeout(Some(timeout)).map_err(fail)?;
    socket
        .set_write_timeout(Some(WRITE_SLICE.min(timeout)))
        .map_err(fail)?;
    // tiny_http writes an answer through a 1 KiB buffer, so a larger answer
    // leaves in several segments; with Nagle's algorithm on, the last one waits
    // for the client's delayed ACK (40 ms on Linux) on a kept-alive connection.
    // Accepted connections inherit TCP_NODELAY from the listener on Linux.
    socket.set_tcp_nodelay(true).map_err(fail)?;
    socket.bind(&resolved.into()).map_err(fail)?;
    socket.listen(1024).map_err(fail)?;
    Ok(socket.into())
}

/// A second handle (a dup) on a listening socket that tiny_http owns, to make
/// it stop accepting connections without touching those already accepted.
///
/// On Linux, shutdown(SHUT_RD) on a listening TCP socket takes it out of the
/// LISTEN state (inet_shutdown -> tcp_disconnect -> inet_csk_listen_stop):
/// - an accept() blocked in tiny_http's accept thread returns EINVAL at once;
///   that thread ends at its first accept error, after queueing the error for
///   `recv()`, so it never takes another connection;
/// - a new connection attempt is answered with a reset: the client gets
///   ECONNREFUSED at once (nothing is queued, nothing waits);
/// - connections already accepted are untouched: tiny_http's connection
///   threads go on reading the requests on them, and the workers answer them;
/// - connections in the kernel's accept queue (handshake done, not yet
///   accepted) are reset: their clients get ECONNRESET with no answer, and
///   what they sent was never read, so a retry is safe (the nginx front
///   retries them on another replica: `proxy_next_upstream error`). tiny_http
///   accepts each connection as it arrives, so that queue holds any only
///   during a burst of new connections.
///
/// The tests below check each of these on Linux (written against 6.18), and
/// tests/wall_clock/drain.rs and lifecycle.rs the whole against the binary. Elsewhere shutdown() on a
/// listening socket may fail or do nothing; the server then keeps accepting
/// while it drains.
pub struct AcceptSwitch(Socket);

impl AcceptSwitch {
    pub fn new(listener: &TcpListener) -> std::io::Result<AcceptSwitch> {
        Ok(AcceptSwitch(Socket::from(listener.try_clone()?)))
    }

    /// Stops accepting new connections, for good. Stop `keep_accepting`
    /// first: a self-connection after this would be refused and logged.
    pub fn stop_accepting(&self) -> std::io::Result<()> {
        self.0.shutdown(Shutdown::Read)
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::{ErrorKind, Read, Write};
    use std::net::TcpStream;
    use std::thread;
    use std::time::Instant;

    fn listener() -> (TcpListener, AcceptSwitch, SocketAddr) {
        let listener = listen("127.0.0.1:0", Duration::from_secs(10)).unwrap();
        let switch = AcceptSwitch::new(&listener).unwrap();
        let addr = listener.local_addr().unwrap();
        (listener, switch, addr)
    }

    #[test]
    fn stopping_wakes_a_blocked_accept_with_an_error() {
        let (listener, switch, _) = listener();
        let waiting = thread::spawn(move || {
            let started = Instant::now();
            (listener.accept().map(|_| ()), started.elapsed())
        });
        thread::sleep(Duration::from_millis(100));
        switch.stop_accepting().unwrap();
        let (accepted, waited) = waiting.join().unwrap();
        assert!(accepted.is_err(), "accept() after the listener stopped");
        assert!(
            waited < Duration::from_secs(2),
            "accept() woke after {waited:?}"
        );
    }

    #[test]
    fn stopping_refuses_new_connections_resets_queued_ones_and_keeps_accepted_ones() {
        let (listener, switch, addr) = listener();
        let mut client = TcpStream::connect(addr).unwrap();
        let (mut accepted, _) = listener.accept().unwrap();
        // Handshake done by the kernel, never accepted: in the accept queue.
        let mut queued = TcpStream::connect(addr).unwrap();
        queued.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
        thread::sleep(Duration::from_millis(50));

        switch.stop_accepting().unwrap();

        let refused = TcpStream::connect_timeout(&addr, Duration::from_secs(1)).unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::ConnectionRefused);
        queued
            .set_read_timeout(Some(Duration::from_secs(1)))
            .unwrap();
        let reset = queued.read(&mut [0u8; 16]).unwrap_err();
        assert_eq!(reset.kind(), ErrorKind::ConnectionReset);
        // Both directions of an accepted connection still work.
        client.write_all(b"ping").unwrap();
        let mut got = [0u8; 4];
        accepted.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"ping");
        accepted.write_all(b"pong").unwrap();
        client.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"pong");
    }
}
