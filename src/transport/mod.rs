//! The worker pool, signals and shutdown. This folder is the only code that
//! knows about tiny_http 0.12, and docs/http-layer.md is the ledger of its
//! defects the server meets: what guards each one here or at the nginx front,
//! and the test that pins it. listener.rs makes the socket and stops it,
//! keeper.rs keeps tiny_http accepting, serve.rs, conns.rs and write.rs take a
//! request to its answer on the wire, wire.rs converts types, drain.rs stops.
//!
//! tiny_http accepts connections and parses requests on its own threads and
//! queues them; a fixed number of workers take requests off that queue, answer
//! them through the app, and write the answers back. A streamed answer (the
//! export), and one whose client stopped reading, moves to a thread of its
//! own, which then answers that connection's later requests too (serve.rs).
//!
//! On SIGTERM or SIGINT the listening sockets stop accepting at once (new
//! connections are refused; see `AcceptSwitch`), and the workers answer every
//! request queued or still arriving on connections already accepted, until
//! none has come for `QUIET`, for `DRAIN_DEADLINE` at most; then the process
//! exits 0. Answers written while draining say `Connection: close`. An answer
//! still being written at `SHUTDOWN_DEADLINE` (to a client that does not read)
//! is abandoned, so that the process exits within 5 s of the signal.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use tiny_http::Server;

use crate::access::key_store::KeyStore;
use crate::access::redis::live::Live;
use crate::access::usage::{self, Usage};
use crate::access::{key_file, migrate};
use crate::app::exports::MAX_EXPORTS;
use crate::app::http::RequestIds;
use crate::app::{App, redis_link};
use crate::data::dataset::Store;
use crate::data::db::PoolSize;
use keeper::keep_accepting;
use listener::{AcceptSwitch, listen};

mod conns;
mod drain;
pub mod keeper;
pub mod listener;
mod serve;
mod wire;
mod write;

/// Connections kept: one a worker, one a streaming export (its worker holds
/// one too while it starts the stream). More are opened when threads that
/// write to clients who stopped reading go on to those clients' next
/// requests (serve.rs `keep_writing`): rare, and only without the front.
fn pool_size(workers: usize) -> PoolSize {
    let kept = (workers + MAX_EXPORTS) as u32;
    PoolSize {
        kept,
        most: kept + serve::MAX_SLOW_WRITERS as u32,
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ServeConfig {
    pub db: PathBuf,
    /// The keys file, which replicas on one host share.
    pub keys: PathBuf,
    /// Keys, budgets and usage shared through Redis instead (access/redis).
    pub redis: Option<crate::access::redis::url::RedisUrl>,
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
/// How often the keys file is looked at: a change takes effect within a
/// second on every server sharing it (README, "Keys").
const KEYS_WATCH_EVERY: Duration = Duration::from_millis(250);

/// What the worker threads share with each other and with shutdown.
struct Shared {
    stopping: AtomicBool,
    conns: conns::Connections,
    /// Requests being answered now: the ones shutdown abandons at its deadline.
    busy: AtomicUsize,
    /// Threads writing to a client that stopped reading (serve.rs, `hand_off`).
    slow: AtomicUsize,
    client_timeout: Duration,
    /// Ids for the answers given here, without the app (a refused body).
    request_ids: RequestIds,
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

/// Opens the database and the keys, binds the address(es) and starts the workers.
pub fn start(config: &ServeConfig) -> Result<Running, String> {
    // The first command after an upgrade moves the dataset's keys out.
    // With Redis, the keys are there and no keys file is touched.
    let (moved, said_of_keys, keys, live) = match &config.redis {
        None => (
            migrate::out_of_dataset(&config.db, &config.keys)?,
            key_file::open(&config.keys)?.1,
            KeyStore::open(&config.keys)?,
            None,
        ),
        Some(url) => {
            let (live, keys) = Live::start(url, &config.keys)?;
            (None, Vec::new(), keys, Some(live))
        }
    };
    // Each streaming export holds a connection of its own besides the workers'.
    let store = Store::open(&config.db, pool_size(config.workers))?;
    let listener = listen(&config.addr, config.client_timeout)?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let mut switches = vec![AcceptSwitch::new(&listener).map_err(|e| e.to_string())?];
    let server = Arc::new(Server::from_listener(listener, None).map_err(|e| e.to_string())?);
    log::info!("listening on http://{addr}");
    // After the address, which the first line names (README, "Configuration").
    for notice in said_of_keys {
        log::warn!("{notice}");
    }
    crate::search::word_store::say_held_warnings();
    if let Some(moved) = moved {
        log::info!("{}", moved.said);
        if let Some(warning) = moved.left_in_dataset {
            log::warn!("{warning}");
        }
    }
    if live.is_none() {
        log::info!(
            "{} live API keys from {}",
            keys.table().live_keys(),
            config.keys.display()
        );
    }
    let usage = Usage::new(&config.keys);
    let app = Arc::new(App::new(store, keys, usage, config.metrics_addr.is_none()));
    if let Some(live) = live {
        redis_link::link(&app, live)?;
    }
    let shared = Arc::new(Shared {
        stopping: AtomicBool::new(false),
        conns: conns::Connections::default(),
        busy: AtomicUsize::new(0),
        slow: AtomicUsize::new(0),
        client_timeout: config.client_timeout,
        request_ids: RequestIds::new(),
    });
    let (mut threads, mut keepers) = (Vec::new(), Vec::new());
    for i in 0..config.workers {
        let (server, app, shared) = (server.clone(), app.clone(), shared.clone());
        threads.push(spawn(&format!("worker-{i}"), move || {
            drain::work(&server, &app, &shared)
        })?);
    }
    // Apart, so that opening a new dataset (a second at 100,000 areas) never
    // holds back a revocation.
    let (app2, shared2) = (app.clone(), shared.clone());
    threads.push(spawn("db-watch", move || {
        every(WATCH_EVERY, &shared2.stopping, || app2.store.poll())
    })?);
    let (app7, shared7) = (app.clone(), shared.clone());
    threads.push(spawn("keys-watch", move || {
        every(KEYS_WATCH_EVERY, &shared7.stopping, || app7.keys.poll())
    })?);
    let (app6, shared6) = (app.clone(), shared.clone());
    threads.push(spawn("usage", move || {
        count_usage(&app6, &shared6.stopping)
    })?);
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
                drain::work_metrics(&ms2, &app3, &shared3)
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

/// Calls `poll` every `every`, in short naps so that shutdown never waits a
/// whole interval for the thread.
fn every(every: Duration, stopping: &AtomicBool, poll: impl Fn()) {
    let mut last = Instant::now();
    while !stopping.load(Ordering::SeqCst) {
        thread::sleep(Duration::from_millis(50));
        if last.elapsed() >= every {
            poll();
            last = Instant::now();
        }
    }
}

/// Adds the usage counted to the usage file every `FLUSH_EVERY`, apart from
/// the watch, whose reloads must not wait behind a locked usage file. The last
/// flush is shutdown's.
fn count_usage(app: &App, stopping: &AtomicBool) {
    let mut flushed = Instant::now();
    let mut failing = false;
    while !stopping.load(Ordering::SeqCst) {
        thread::sleep(Duration::from_millis(50));
        if flushed.elapsed() >= usage::FLUSH_EVERY {
            failing = flush_usage(app, failing);
            flushed = Instant::now();
        }
    }
}

/// One flush; a failure is logged when it starts and when it ends, not every
/// few seconds between. Returns whether this one failed.
fn flush_usage(app: &App, failing: bool) -> bool {
    match app.usage.flush(usage::BUSY_TIMEOUT) {
        Ok(()) if failing => {
            log::info!("usage written again to {}", app.usage.path().display());
            false
        }
        Ok(()) => false,
        Err(why) => {
            if !failing {
                log::warn!("{why}; they wait in memory for the next try");
            }
            true
        }
    }
}
