//! A listener (the main one, or the metrics one), and the switch that stops
//! it accepting while the connections already accepted are answered.

use std::net::{Shutdown, SocketAddr, TcpListener, ToSocketAddrs};

use socket2::{Domain, Protocol, Socket, Type};

/// Connections the kernel queues, handshake done, before they are accepted.
pub const BACKLOG: i32 = 1024;

/// A non-blocking listener on `addr`. SO_REUSEADDR lets a restart
/// bind while old connections linger in TIME_WAIT; without SO_REUSEPORT a
/// second server on the same port fails to start rather than sharing it.
pub fn listen(addr: &str) -> Result<TcpListener, String> {
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
    socket.bind(&resolved.into()).map_err(fail)?;
    socket.listen(BACKLOG).map_err(fail)?;
    socket.set_nonblocking(true).map_err(fail)?;
    Ok(socket.into())
}

/// A second handle (a dup) on a listener, to make it stop accepting
/// connections without touching those already accepted.
///
/// On Linux, shutdown(SHUT_RD) on a listener's TCP socket takes it out of the
/// LISTEN state (inet_shutdown -> tcp_disconnect -> inet_csk_listen_stop):
/// - an accept() blocked on it returns EINVAL at once;
/// - a new connection attempt is answered with a reset: the client gets
///   ECONNREFUSED at once (nothing is queued, nothing waits);
/// - connections already accepted are untouched: the workers go on reading
///   the requests on them and answering them;
/// - connections in the kernel's accept queue (handshake done, not yet
///   accepted) are reset: their clients get ECONNRESET with no answer, and
///   what they sent was never read, so a retry is safe (the nginx front
///   retries them on another replica: `proxy_next_upstream error`). The
///   workers accept each connection as it arrives, so that queue holds any
///   only during a burst of new connections.
///
/// The tests below check each of these on Linux (written against 6.18), and
/// tests/wall_clock/drain.rs and lifecycle.rs the whole against the binary.
/// Elsewhere shutdown() on a listener may fail or do nothing; the server
/// then keeps accepting while it drains.
pub struct AcceptSwitch(Socket);

impl AcceptSwitch {
    pub fn new(listener: &TcpListener) -> std::io::Result<AcceptSwitch> {
        Ok(AcceptSwitch(Socket::from(listener.try_clone()?)))
    }

    /// Stops accepting new connections, for good. Take the listener out of
    /// the readiness set first (drain.rs): accept() on it fails from now on.
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
    use std::time::{Duration, Instant};

    fn listener() -> (TcpListener, AcceptSwitch, SocketAddr) {
        let listener = listen("127.0.0.1:0").unwrap();
        listener.set_nonblocking(false).unwrap();
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
