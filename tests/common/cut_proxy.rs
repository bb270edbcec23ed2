//! A TCP proxy on 127.0.0.1:0 that the test can cut: one server reaches
//! Redis through it, while the admin host reaches Redis directly. Cut, it
//! closes every connection it carries and each new one at once, as a lost
//! network would; restored, it forwards again. Started with a delay, it
//! holds each reply from Redis that long, as a slower network would.
#![allow(dead_code)]

use std::io::{Read, Write, copy};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

pub struct CutProxy {
    pub addr: SocketAddr,
    cut: Arc<AtomicBool>,
    /// Both ends of every connection carried, to close them on a cut.
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl CutProxy {
    /// Forwards to `to` until cut.
    pub fn start(to: SocketAddr) -> CutProxy {
        CutProxy::delayed(to, Duration::ZERO)
    }

    /// Forwards to `to`, each reply held for `delay`, until cut.
    pub fn delayed(to: SocketAddr, delay: Duration) -> CutProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let proxy = CutProxy {
            addr: listener.local_addr().unwrap(),
            cut: Arc::new(AtomicBool::new(false)),
            open: Arc::new(Mutex::new(Vec::new())),
        };
        let (cut, open) = (proxy.cut.clone(), proxy.open.clone());
        // Lives as long as the test process: it holds no file of the test.
        thread::spawn(move || {
            for client in listener.incoming().map_while(Result::ok) {
                // The flag is read and the connection listed under one lock,
                // the lock `cut` sets the flag under: a connection accepted
                // as the cut comes is either refused here or closed there.
                let mut open = open.lock().unwrap();
                if cut.load(Ordering::SeqCst) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(upstream) = TcpStream::connect(to) else {
                    continue;
                };
                open.push(client.try_clone().unwrap());
                open.push(upstream.try_clone().unwrap());
                pipe(
                    client.try_clone().unwrap(),
                    upstream.try_clone().unwrap(),
                    Duration::ZERO,
                );
                pipe(upstream, client, delay);
            }
        });
        proxy
    }

    /// Closes what it carries and every new connection until `restore`.
    pub fn cut(&self) {
        let mut open = self.open.lock().unwrap();
        self.cut.store(true, Ordering::SeqCst);
        for s in open.drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    pub fn restore(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }

    /// `url` (redis://[user:password@]host:port[/db]) with its host and port
    /// replaced by this proxy's.
    pub fn in_url(&self, url: &str) -> String {
        let (scheme, rest) = url.split_once("://").unwrap();
        let (auth, rest) = rest.rsplit_once('@').map_or(("", rest), |(a, r)| (a, r));
        let path = rest.find('/').map_or("", |i| &rest[i..]);
        let at = if auth.is_empty() { "" } else { "@" };
        format!("{scheme}://{auth}{at}{}{path}", self.addr)
    }
}

/// The host and port of `url` (redis://[user:password@]host:port[/db]).
pub fn url_addr(url: &str) -> SocketAddr {
    let rest = url.split_once("://").unwrap().1;
    let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
    rest.split('/').next().unwrap().parse().unwrap()
}

/// Copies `from` to `to` on a thread of its own, each read held for
/// `delay`, closing both at the end.
fn pipe(mut from: TcpStream, mut to: TcpStream, delay: Duration) {
    thread::spawn(move || {
        if delay.is_zero() {
            let _ = copy(&mut from, &mut to);
        } else {
            let mut buf = [0u8; 16 * 1024];
            while let Ok(n @ 1..) = from.read(&mut buf) {
                thread::sleep(delay);
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        }
        let _ = to.shutdown(Shutdown::Both);
        let _ = from.shutdown(Shutdown::Both);
    });
}
