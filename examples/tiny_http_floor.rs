//! The HTTP floor of this server's design, measured by `make bench`
//! (bench/run.sh): tiny_http on the project's own listener (src/listener.rs:
//! timeouts, TCP_NODELAY, the accept keep-alive) with the server's default
//! number of workers, each answering one fixed body. No routing, no key check,
//! no SQL, no log line: whatever the API server does on top costs more than
//! this, so its requests per second cannot exceed this program's.
//!
//! Usage: tiny_http_floor FILE. Listens on 127.0.0.1 on a free port, prints
//! `ADDR host:port` on stdout, and answers every request with FILE's bytes as
//! JSON until killed.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use area_scoring::transport::keeper::keep_accepting;
use area_scoring::transport::listener::listen;

fn main() {
    let file = std::env::args()
        .nth(1)
        .expect("usage: tiny_http_floor FILE");
    let body = std::fs::read(&file).expect("read FILE");
    let timeout = Duration::from_secs(10);
    let listener = listen("127.0.0.1:0", timeout).expect("listen");
    let addr = listener.local_addr().expect("local address");
    let server = Arc::new(tiny_http::Server::from_listener(listener, None).expect("serve"));
    println!("ADDR {addr}");
    std::thread::spawn(move || keep_accepting(addr, timeout, &AtomicBool::new(false)));
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get() * 2);
    let threads: Vec<_> = (0..workers)
        .map(|_| {
            let (server, body) = (server.clone(), body.clone());
            std::thread::spawn(move || {
                let json = tiny_http::Header::from_bytes("Content-Type", "application/json")
                    .expect("a valid header");
                while let Ok(request) = server.recv() {
                    let answer =
                        tiny_http::Response::from_data(body.clone()).with_header(json.clone());
                    let _ = request.respond(answer);
                }
            })
        })
        .collect();
    for t in threads {
        let _ = t.join();
    }
}
