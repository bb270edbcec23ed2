//! The worker pool, signals and shutdown. This folder (with listener.rs,
//! keeper.rs and wire.rs) is the only code that knows about tiny_http.
//!
//! tiny_http accepts connections and parses requests on its own threads and
//! queues them; a fixed number of workers take requests off that queue, answer
//! them through the app, and write the answers back.
//!
//! On SIGTERM or SIGINT the listening sockets stop accepting at once (new
//! connections are refused; see `AcceptSwitch`), and the workers answer every
//! request queued or still arriving on connections already accepted, until
//! none has come for `QUIET`, for `DRAIN_DEADLINE` at most; then the process
//! exits 0. Answers written while draining say `Connection: close`. A worker
//! still writing at `SHUTDOWN_DEADLINE` (to a client that does not read) is
//! abandoned, so that the process exits within 5 s of the signal.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use tiny_http::Server;

use crate::app::App;
use crate::app::exports::MAX_EXPORTS;
use crate::app::http;
use crate::data::dataset::Store;
use keeper::keep_accepting;
use listener::{AcceptSwitch, Stalled, listen};

pub mod keeper;
pub mod listener;
mod stream;
mod wire;
use wire::{respond, to_request};

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
/// How long shutdown waits for the workers at most. A worker still busy then
/// is writing to a client that stopped reading, and would wait out the write
/// timeout (`--client-timeout`, 10 s by default); the process exits without
/// it, within 5 s of the signal (README, "Deployment"), with room for the exit.
const SHUTDOWN_DEADLINE: Duration = Duration::from_millis(4500);
/// A stopping worker is done once no request has come for this long. Requests
/// clients sent before the signal on connections already accepted can reach
/// the queue a little later (a tiny_http connection thread still reading and
/// parsing one, or one that waited behind an answer on its connection); tiny_http
/// says nothing about such requests, so the workers wait for a lull instead.
const QUIET: Duration = Duration::from_millis(200);
/// How often the database file is checked for replacement or removal.
const WATCH_EVERY: Duration = Duration::from_secs(1);

/// What the worker threads share with each other and with shutdown.
#[derive(Default)]
struct Shared {
    stopping: AtomicBool,
    stalled: Stalled,
    /// Requests being answered now: the ones shutdown abandons at its deadline.
    busy: AtomicUsize,
}

pub struct Running {
    addr: SocketAddr,
    metrics_addr: Option<SocketAddr>,
    server: Arc<Server>,
    app: Arc<App>,
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
    /// The `keep_accepting` threads, stopped before the listeners are.
    keepers: Vec<JoinHandle<()>>,
    /// The main listener's, then the metrics listener's.
    switches: Vec<AcceptSwitch>,
    metrics_server: Option<Arc<Server>>,
}

/// Opens the database, binds the address(es) and starts the workers.
pub fn start(config: &ServeConfig) -> Result<Running, String> {
    // Each streaming export holds a connection of its own besides the workers'.
    let store = Store::open(&config.db, (config.workers + MAX_EXPORTS) as u32)?;
    let listener = listen(&config.addr, config.client_timeout)?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let mut switches = vec![AcceptSwitch::new(&listener).map_err(|e| e.to_string())?];
    let server = Arc::new(Server::from_listener(listener, None).map_err(|e| e.to_string())?);
    log::info!("listening on http://{addr}");
    let app = Arc::new(App::new(store, config.metrics_addr.is_none()));
    let shared = Arc::new(Shared::default());
    let (mut threads, mut keepers) = (Vec::new(), Vec::new());
    for i in 0..config.workers {
        let (server, app, shared) = (server.clone(), app.clone(), shared.clone());
        threads.push(spawn(&format!("worker-{i}"), move || {
            work(&server, &app, &shared)
        })?);
    }
    let (app2, shared2) = (app.clone(), shared.clone());
    threads.push(spawn("db-watch", move || watch(&app2, &shared2.stopping))?);
    let (timeout, shared4) = (config.client_timeout, shared.clone());
    keepers.push(spawn("keep-accepting", move || {
        keep_accepting(addr, timeout, &shared4.stopping)
    })?);
    let (metrics_server, metrics_addr) = match &config.metrics_addr {
        None => (None, None),
        Some(a) => {
            let listener = listen(a, config.client_timeout)?;
            let bound = listener.local_addr().map_err(|e| e.to_string())?;
            switches.push(AcceptSwitch::new(&listener).map_err(|e| e.to_string())?);
            let ms = Arc::new(Server::from_listener(listener, None).map_err(|e| e.to_string())?);
            log::info!("metrics on http://{bound}/metrics");
            let (timeout, shared5) = (config.client_timeout, shared.clone());
            keepers.push(spawn("keep-accepting-metrics", move || {
                keep_accepting(bound, timeout, &shared5.stopping)
            })?);
            let (ms2, app3, shared3) = (ms.clone(), app.clone(), shared.clone());
            threads.push(spawn("metrics", move || {
                serve_metrics(&ms2, &app3, &shared3.stopping)
            })?);
            (Some(ms), Some(bound))
        }
    };
    Ok(Running {
        addr,
        metrics_addr,
        server,
        app,
        shared,
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
    /// (for a few seconds at most), and waits for the workers, until
    /// `SHUTDOWN_DEADLINE` at most: a worker still busy then is left behind.
    pub fn shutdown(self) {
        let deadline = Instant::now() + SHUTDOWN_DEADLINE;
        self.shared.stopping.store(true, Ordering::SeqCst);
        // The self-connections end first (within about 20 ms: they wait in 10 ms
        // slices and check `stopping`): one made after the
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
            if Instant::now() >= deadline {
                // Joining would wait out the write timeout; the threads end
                // with the process. Their clients see the connection close.
                log::warn!(
                    "abandoned {} request(s) still being answered at the shutdown deadline \
                     (clients not reading their answers)",
                    self.shared.busy.load(Ordering::SeqCst)
                );
                return;
            }
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

fn work(server: &Server, app: &App, shared: &Shared) {
    loop {
        if shared.stopping.load(Ordering::SeqCst) {
            return drain(server, app, shared);
        }
        match server.recv() {
            Ok(request) => serve(app, shared, request),
            // tiny_http hands over the error that ended its accept thread:
            // from here on no new connection is taken (see keep_accepting).
            Err(e) if !shared.stopping.load(Ordering::SeqCst) => {
                log::error!("the listener stopped accepting connections: {e}")
            }
            Err(_) => {}
        }
    }
}

/// Answers requests until none has come for `QUIET`, or the deadline passes.
fn drain(server: &Server, app: &App, shared: &Shared) {
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
            serve(app, shared, request);
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

/// Counts a request as busy while it lives, also if the app panics.
struct Busy<'a>(&'a AtomicUsize);

impl<'a> Busy<'a> {
    fn enter(count: &'a AtomicUsize) -> Busy<'a> {
        count.fetch_add(1, Ordering::SeqCst);
        Busy(count)
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn serve(app: &App, shared: &Shared, request: tiny_http::Request) {
    let _busy = Busy::enter(&shared.busy);
    let peer = request.remote_addr().copied();
    if peer.is_some_and(|p| shared.stalled.check(p)) {
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
    if response.stream.is_some() {
        stream::send(request, response);
        return;
    }
    // Read at the write: a request taken before the signal may be answered after it.
    let closing = shared.stopping.load(Ordering::SeqCst);
    if let Err(e) = respond(request, response, closing) {
        log::debug!("client went away before the answer: {e}");
        let timed_out = matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        );
        if let (true, Some(p)) = (timed_out, peer) {
            log::warn!("{p} stopped reading its answers; dropping its queued requests");
            shared.stalled.mark(p);
        }
    }
}

/// The metrics listener answers GET /metrics and nothing else.
fn serve_metrics(server: &Server, app: &App, stopping: &AtomicBool) {
    while !stopping.load(Ordering::SeqCst) {
        let Ok(request) = server.recv() else { continue };
        let response = app.handle_metrics_only(&to_request(&request));
        let _ = respond(request, response, stopping.load(Ordering::SeqCst));
    }
}
