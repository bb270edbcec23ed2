//! The worker pool, signals and shutdown: with listener.rs and http.rs, the
//! only code that knows about tiny_http.
//!
//! tiny_http accepts connections and parses requests on its own threads and
//! queues them; a fixed number of workers take requests off that queue, answer
//! them through the app, and write the answers back.
//!
//! On SIGTERM or SIGINT the listening sockets stop accepting at once (new
//! connections are refused; see `AcceptSwitch`), and the workers answer every
//! request queued or still arriving on connections already accepted, until
//! none has come for `QUIET`, for `DRAIN_DEADLINE` at most; then the process
//! exits 0.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use tiny_http::{Header, Server};

use crate::app::App;
use crate::dataset::Store;
use crate::http::{self, Request, Response};
use crate::listener::{AcceptSwitch, Stalled, keep_accepting, listen};

#[derive(Debug, Clone, PartialEq)]
pub struct ServeConfig {
    pub db: PathBuf,
    pub addr: String,
    pub workers: usize,
    /// Read and write timeout for each client connection.
    pub client_timeout: Duration,
    /// Serve /metrics on this address instead of the main one.
    pub metrics_addr: Option<String>,
}

/// How long a stopping server keeps answering requests already received.
const DRAIN_DEADLINE: Duration = Duration::from_secs(4);
/// A stopping worker is done once no request has come for this long. Requests
/// clients sent before the signal on connections already accepted can reach
/// the queue a little later (a tiny_http connection thread still reading and
/// parsing one, or one that waited behind an answer on its connection); tiny_http
/// says nothing about such requests, so the workers wait for a lull instead.
const QUIET: Duration = Duration::from_millis(200);
/// How often the database file is checked for replacement or removal.
const WATCH_EVERY: Duration = Duration::from_secs(1);

pub struct Running {
    addr: SocketAddr,
    metrics_addr: Option<SocketAddr>,
    server: Arc<Server>,
    app: Arc<App>,
    stopping: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    /// The `keep_accepting` threads, stopped before the listeners are.
    keepers: Vec<JoinHandle<()>>,
    /// The main listener's, then the metrics listener's.
    switches: Vec<AcceptSwitch>,
    metrics_server: Option<Arc<Server>>,
}

/// Opens the database, binds the address(es) and starts the workers.
pub fn start(config: &ServeConfig) -> Result<Running, String> {
    let store = Store::open(&config.db, config.workers as u32)?;
    let listener = listen(&config.addr, config.client_timeout)?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let mut switches = vec![AcceptSwitch::new(&listener).map_err(|e| e.to_string())?];
    let server = Arc::new(Server::from_listener(listener, None).map_err(|e| e.to_string())?);
    log::info!("listening on http://{addr}");
    let app = Arc::new(App::new(store, config.metrics_addr.is_none()));
    let stopping = Arc::new(AtomicBool::new(false));
    let stalled = Arc::new(Stalled::default());
    let (mut threads, mut keepers) = (Vec::new(), Vec::new());
    for i in 0..config.workers {
        let (server, app, stopping) = (server.clone(), app.clone(), stopping.clone());
        let stalled = stalled.clone();
        threads.push(spawn(&format!("worker-{i}"), move || {
            work(&server, &app, &stopping, &stalled)
        })?);
    }
    let (app2, stopping2) = (app.clone(), stopping.clone());
    threads.push(spawn("db-watch", move || watch(&app2, &stopping2))?);
    let (timeout, stopping4) = (config.client_timeout, stopping.clone());
    keepers.push(spawn("keep-accepting", move || {
        keep_accepting(addr, timeout, &stopping4)
    })?);
    let (metrics_server, metrics_addr) = match &config.metrics_addr {
        None => (None, None),
        Some(a) => {
            let listener = listen(a, config.client_timeout)?;
            let bound = listener.local_addr().map_err(|e| e.to_string())?;
            switches.push(AcceptSwitch::new(&listener).map_err(|e| e.to_string())?);
            let ms = Arc::new(Server::from_listener(listener, None).map_err(|e| e.to_string())?);
            log::info!("metrics on http://{bound}/metrics");
            let (timeout, stopping5) = (config.client_timeout, stopping.clone());
            keepers.push(spawn("keep-accepting-metrics", move || {
                keep_accepting(bound, timeout, &stopping5)
            })?);
            let (ms2, app3, stopping3) = (ms.clone(), app.clone(), stopping.clone());
            threads.push(spawn("metrics", move || {
                serve_metrics(&ms2, &app3, &stopping3)
            })?);
            (Some(ms), Some(bound))
        }
    };
    Ok(Running {
        addr,
        metrics_addr,
        server,
        app,
        stopping,
        threads,
        keepers,
        switches,
        metrics_server,
    })
}

fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> Result<JoinHandle<()>, String> {
    thread::Builder::new()
        .name(name.into())
        .spawn(f)
        .map_err(|e| format!("cannot start a thread: {e}"))
}

impl Running {
    /// The address actually bound (the real port when asked for port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_addr
    }

    /// Re-reads the database file now (what SIGHUP does). False if refused.
    pub fn reload(&self) -> bool {
        self.app.store.reload()
    }

    /// Stops accepting connections, answers the requests already received
    /// (for a few seconds at most), and waits for the workers.
    pub fn shutdown(self) {
        self.stopping.store(true, Ordering::SeqCst);
        // The self-connections end first (within 10 ms): one made after the
        // listener stops would be refused and logged as a failure.
        for keeper in self.keepers {
            let _ = keeper.join();
        }
        // From here on new connections are refused. A connection tiny_http
        // accepted just before and left queued without a thread (see
        // keep_accepting) now waits for one of its busy connection threads.
        let mut all_stopped = true;
        for switch in &self.switches {
            if let Err(e) = switch.stop_accepting() {
                log::warn!("cannot stop accepting ({e}); still accepting while draining");
                all_stopped = false;
            }
        }
        if all_stopped {
            log::info!("stopped accepting new connections");
        }
        // One unblock per worker is not enough: a draining worker's recv_timeout
        // can take an unblock meant for another. Keep waking them until all are done.
        while self.threads.iter().any(|t| !t.is_finished()) {
            self.server.unblock();
            if let Some(ms) = &self.metrics_server {
                ms.unblock();
            }
            thread::sleep(Duration::from_millis(20));
        }
        for t in self.threads {
            let _ = t.join();
        }
    }

    /// Serves until SIGTERM or SIGINT, reloading the data on SIGHUP.
    pub fn run_until_signalled(self) -> Result<(), String> {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let mut signals = signal_hook::iterator::Signals::new([SIGHUP, SIGINT, SIGTERM])
            .map_err(|e| e.to_string())?;
        for signal in signals.forever() {
            if signal == SIGHUP {
                log::info!("SIGHUP: reloading the database");
                self.reload();
            } else {
                log::info!("shutting down: finishing requests in flight");
                break;
            }
        }
        self.shutdown();
        log::info!("stopped");
        Ok(())
    }
}

fn work(server: &Server, app: &App, stopping: &AtomicBool, stalled: &Stalled) {
    loop {
        if stopping.load(Ordering::SeqCst) {
            return drain(server, app, stalled);
        }
        match server.recv() {
            Ok(request) => serve(app, stalled, request),
            // tiny_http hands over the error that ended its accept thread:
            // from here on no new connection is taken (see keep_accepting).
            Err(e) if !stopping.load(Ordering::SeqCst) => {
                log::error!("the listener stopped accepting connections: {e}")
            }
            Err(_) => {}
        }
    }
}

/// Answers requests until none has come for `QUIET`, or the deadline passes.
fn drain(server: &Server, app: &App, stalled: &Stalled) {
    let deadline = Instant::now() + DRAIN_DEADLINE;
    let mut last = Instant::now();
    loop {
        let until = (last + QUIET).min(deadline);
        let now = Instant::now();
        if now >= until {
            return;
        }
        // Ok(None) means the wait ran out or shutdown's unblock() cut it short;
        // Err is the error that ended the accept thread when the listener
        // stopped. Neither says that no request is still on its way.
        if let Ok(Some(request)) = server.recv_timeout(until - now) {
            serve(app, stalled, request);
            last = Instant::now();
        }
    }
}

fn watch(app: &App, stopping: &AtomicBool) {
    let mut last = Instant::now();
    while !stopping.load(Ordering::SeqCst) {
        // Short naps, so that shutdown never waits a whole interval for this thread.
        thread::sleep(Duration::from_millis(50));
        if last.elapsed() >= WATCH_EVERY {
            app.store.poll();
            last = Instant::now();
        }
    }
}

fn serve(app: &App, stalled: &Stalled, request: tiny_http::Request) {
    let peer = request.remote_addr().copied();
    if peer.is_some_and(|p| stalled.check(p)) {
        // Taking the writer and dropping it unused answers nothing and writes nothing.
        drop(request.into_writer());
        return;
    }
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
        let timed_out = matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        );
        if let (true, Some(p)) = (timed_out, peer) {
            log::warn!("{p} stopped reading its answers; dropping its queued requests");
            stalled.mark(p);
        }
    }
}

/// The metrics listener answers GET /metrics and nothing else.
fn serve_metrics(server: &Server, app: &App, stopping: &AtomicBool) {
    while !stopping.load(Ordering::SeqCst) {
        let Ok(request) = server.recv() else { continue };
        let response = app.handle_metrics_only(&to_request(&request));
        let _ = request.respond(to_tiny(response));
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
    let header_bytes = request
        .headers()
        .iter()
        .map(|h| h.field.as_str().as_str().len() + h.value.as_str().len() + 4)
        .sum();
    Request {
        method: request.method().as_str().to_string(),
        target: request.url().to_string(),
        authorization: header("Authorization"),
        request_id: header("X-Request-Id"),
        if_none_match: header("If-None-Match"),
        client: client_address(request.remote_addr().map(|a| a.ip()), header("X-Real-IP")),
        header_bytes,
    }
}

/// The client to rate-limit without a key: the peer, or, when the peer is the
/// nginx front on this machine, the address it passes in X-Real-IP.
fn client_address(peer: Option<IpAddr>, real_ip: Option<String>) -> Option<IpAddr> {
    match (peer, real_ip.and_then(|v| v.trim().parse::<IpAddr>().ok())) {
        (Some(p), Some(real)) if p.is_loopback() => Some(real),
        (peer, _) => peer,
    }
}

fn to_tiny(response: Response) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    let mut out = tiny_http::Response::from_data(response.body).with_status_code(response.status);
    for (name, value) in response.headers {
        // Header values are built from safe parts; one that still could split
        // the header block is dropped rather than sent.
        match Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            Ok(h) if !value.contains(['\r', '\n']) => out.add_header(h),
            _ => log::error!("dropped an invalid {name} header"),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x_real_ip_is_trusted_only_from_a_loopback_peer() {
        let front: IpAddr = "127.0.0.1".parse().unwrap();
        let remote: IpAddr = "198.51.100.7".parse().unwrap();
        let named = || Some("203.0.113.5".to_string());
        assert_eq!(
            client_address(Some(front), named()),
            Some("203.0.113.5".parse().unwrap())
        );
        assert_eq!(
            client_address(Some("::1".parse().unwrap()), named()),
            Some("203.0.113.5".parse().unwrap())
        );
        // A client on the internet cannot pick its own rate-limit bucket.
        assert_eq!(client_address(Some(remote), named()), Some(remote));
        assert_eq!(
            client_address(Some(front), Some("nonsense".into())),
            Some(front)
        );
        assert_eq!(client_address(Some(front), None), Some(front));
    }
}
