//! The listener and the worker pool: the only module, with http.rs, that
//! knows about tiny_http.
//!
//! tiny_http accepts connections and parses requests on its own threads and
//! queues them; a fixed number of workers take requests off that queue, each
//! with a pooled read-only database connection. Shutdown sets a flag and
//! unblocks each worker once.

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Instant;

use tiny_http::{Header, Server};

use crate::app::App;
use crate::db;
use crate::http::{self, Request, Response};

#[derive(Debug, Clone, PartialEq)]
pub struct ServeConfig {
    pub db: PathBuf,
    pub addr: String,
    pub workers: usize,
}

pub struct Running {
    addr: SocketAddr,
    server: Arc<Server>,
    stopping: Arc<AtomicBool>,
    workers: Vec<JoinHandle<()>>,
}

/// Opens the database, binds the address and starts the workers.
pub fn start(config: &ServeConfig) -> Result<Running, String> {
    let pool = db::open_pool(&config.db, config.workers as u32)?;
    let listener = TcpListener::bind(&config.addr)
        .map_err(|e| format!("cannot listen on {}: {e}", config.addr))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let server = Arc::new(Server::from_listener(listener, None).map_err(|e| e.to_string())?);
    log::info!("listening on http://{addr}");
    let app = Arc::new(App::new(pool));
    let stopping = Arc::new(AtomicBool::new(false));
    let workers = (0..config.workers)
        .map(|i| {
            let (server, app, stopping) = (server.clone(), app.clone(), stopping.clone());
            thread::Builder::new()
                .name(format!("worker-{i}"))
                .spawn(move || work(&server, &app, &stopping))
                .map_err(|e| format!("cannot start a worker: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Running {
        addr,
        server,
        stopping,
        workers,
    })
}

impl Running {
    /// The address actually bound (the real port when asked for port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops taking requests, lets each worker finish the one it holds, and waits.
    pub fn shutdown(self) {
        self.stopping.store(true, Ordering::SeqCst);
        for _ in &self.workers {
            self.server.unblock();
        }
        for worker in self.workers {
            let _ = worker.join();
        }
    }

    /// Serves until the process ends.
    pub fn wait(self) {
        for worker in self.workers {
            let _ = worker.join();
        }
    }
}

fn work(server: &Server, app: &App, stopping: &AtomicBool) {
    while !stopping.load(Ordering::SeqCst) {
        match server.recv() {
            Ok(request) => serve(app, request),
            Err(e) if !stopping.load(Ordering::SeqCst) => log::warn!("listener error: {e}"),
            Err(_) => break,
        }
    }
}

fn serve(app: &App, request: tiny_http::Request) {
    let started = Instant::now();
    let ours = to_request(&request);
    let response = app.handle(&ours);
    log::info!(
        "{} {} {} {:.2}ms {}",
        ours.method,
        http::loggable_target(&ours.target),
        response.status,
        started.elapsed().as_secs_f64() * 1000.0,
        response.header("X-Request-Id").unwrap_or("-"),
    );
    if let Err(e) = request.respond(to_tiny(response)) {
        log::debug!("client went away before the answer: {e}");
    }
}

fn to_request(request: &tiny_http::Request) -> Request {
    let header = |name: &'static str| {
        request
            .headers()
            .iter()
            .find(|h| h.field.equiv(name))
            .map(|h| h.value.as_str().to_string())
    };
    Request {
        method: request.method().as_str().to_string(),
        target: request.url().to_string(),
        authorization: header("Authorization"),
        request_id: header("X-Request-Id"),
    }
}

fn to_tiny(response: Response) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    let mut out = tiny_http::Response::from_data(response.body).with_status_code(response.status);
    for (name, value) in response.headers {
        // Values are built by the app from safe parts; one that still is not a
        // valid header value is dropped rather than sent broken.
        match Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            Ok(h) if !value.contains(['\r', '\n']) => out.add_header(h),
            _ => log::error!("dropped an invalid {name} header"),
        }
    }
    out
}
