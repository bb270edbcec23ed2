//! The floor of the HTTP layer, measured by `make bench` (bench/run.sh): the
//! project's own layer (src/transport/: the listener, the readiness set, the
//! workers, httparse, the answer's bytes, the access log) with the server's
//! default number of workers, answering every request with one fixed body.
//! It uses `area_scoring::transport` alone: the layer needs nothing else of
//! the crate. No routing, no key check, no SQL: whatever the API server does on top
//! costs more than this, so its requests per second cannot exceed this
//! program's, and this against nginx is what the layer costs on its own.
//!
//! Usage: layer_floor FILE (LAYER_WORKERS: how many workers). Listens on 127.0.0.1 on a free port, prints
//! `ADDR host:port` on stdout, and answers every request with FILE's bytes as
//! JSON until killed. The access log goes nowhere (no logger is set up).

use std::sync::Arc;
use std::time::Duration;

use area_scoring::transport::listener::listen;
use area_scoring::transport::{
    ConnLimits, Layer, LayerConfig, LayerCounts, Request, Response, Service,
};

struct Fixed(Vec<u8>);

impl Service for Fixed {
    fn answer(&self, _: &Request, _: bool) -> Response {
        Response::json(200, self.0.clone())
    }
}

fn main() {
    let file = std::env::args().nth(1).expect("usage: layer_floor FILE");
    let body = std::fs::read(&file).expect("read FILE");
    let listener = listen("127.0.0.1:0").expect("listen");
    let addr = listener.local_addr().expect("local address");
    // The server's default, unless LAYER_WORKERS names another count.
    let workers = std::env::var("LAYER_WORKERS")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get() * 2));
    let config = LayerConfig {
        workers,
        client_timeout: Duration::from_secs(10),
        limits: ConnLimits {
            per_address: 0,
            ..ConnLimits::default()
        },
    };
    let counts = Arc::new(LayerCounts::default());
    let _layer = Layer::start(vec![listener], config, Arc::new(Fixed(body)), counts)
        .expect("the layer starts");
    println!("ADDR {addr}");
    loop {
        std::thread::park();
    }
}
