//! The HTTP/1.1 layer the project owns: httparse reads each request head,
//! and everything around it is here (docs/http-layer.md is its contract).
//! listener.rs makes the listening socket and stops it; pool.rs runs the
//! workers, all waiting at once on one readiness set (epoll.rs, with the
//! tick and the stop bell of bells.rs); accept.rs
//! admits connections into table.rs's table; conn.rs is one connection's
//! turn, linger.rs its lingering close, head.rs the parsing, respond.rs the
//! meeting with the app, answer.rs the bytes of an answer, stream.rs the
//! export's thread and pace.rs how slowly its client may read,
//! access_log.rs the log's thread, limits.rs the bounds and caps, fronts.rs
//! whose X-Real-IP is believed, drain.rs stopping.
//!
//! The threads are the workers, main (signals), the dataset and keys
//! watchers and usage (watch.rs), the access-log writer, and one per export while it
//! streams. An idle connection holds a descriptor and a small buffer, no thread.
//!
//! On SIGTERM or SIGINT the listening sockets stop accepting at once (new
//! connections are refused; see `AcceptSwitch`); every complete request
//! already received is answered, the last on its connection with
//! `Connection: close`; idle connections close once nothing has come for
//! `QUIET`; the process exits within 5 s of the signal.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use crate::access::key_store::KeyStore;
use crate::access::redis::live::Live;
use crate::access::usage::Usage;
use crate::access::{key_file, migrate};
use crate::app::exports::MAX_EXPORTS;
use crate::app::{App, redis_link};
use crate::data::dataset::Store;
use crate::data::db::PoolSize;
pub use layer::{Layer, LayerConfig};
pub use limits::ConnLimits;
use listener::listen;
pub use respond::Service;
use watch::{Stop, count_usage, every};

// epoll, timerfd and eventfd are Linux's.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
compile_error!("the HTTP layer waits on epoll (src/transport/epoll.rs): it builds on Linux only");

mod accept;
mod access_log;
mod answer;
mod bells;
mod conn;
mod drain;
mod epoll;
pub mod fronts;
pub mod head;
mod layer;
pub mod limits;
mod linger;
pub mod listener;
pub mod pace;
mod pool;
mod respond;
mod stream;
mod table;
mod watch;

/// Database connections kept: one a worker, one a streaming export.
fn pool_size(workers: usize) -> PoolSize {
    let kept = (workers + MAX_EXPORTS) as u32;
    PoolSize { kept, most: kept }
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
    /// Idle time, and time without write progress, after which a client's
    /// connection closes.
    pub client_timeout: Duration,
    /// Serve /metrics on this address instead of the main one.
    pub metrics_addr: Option<String>,
    /// `--max-connections`, `--max-connections-per-address`, the fronts
    /// believed, and how slowly a client may take an export.
    pub limits: ConnLimits,
    /// `--max-exports-per-key`.
    pub exports_per_key: usize,
}

/// How often the database file is checked for replacement or removal.
const WATCH_EVERY: Duration = Duration::from_secs(1);
/// How often the keys file is looked at: a change takes effect within a
/// second on every server sharing it (README, "Keys").
const KEYS_WATCH_EVERY: Duration = Duration::from_millis(250);

pub struct Running {
    addr: SocketAddr,
    metrics_addr: Option<SocketAddr>,
    app: Arc<App>,
    layer: Layer,
    threads: Vec<JoinHandle<()>>,
    /// Ends the watchers and the usage thread.
    stop_watchers: Arc<Stop>,
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
            let (live, keys) = Live::start(url, &config.keys, &config.addr)?;
            (None, Vec::new(), keys, Some(live))
        }
    };
    let store = Store::open(&config.db, pool_size(config.workers))?;
    let mut listeners = vec![listen(&config.addr)?];
    let addr = listeners[0].local_addr().map_err(|e| e.to_string())?;
    log::info!("listening on http://{addr}");
    // After the address, which the first line names (README, "Configuration").
    for notice in said_of_keys {
        log::warn!("{notice}");
    }
    if let Ok(dataset) = store.current()
        && let Some(warning) = &dataset.words_warning
    {
        log::warn!("{warning}");
    }
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
    if config.limits.fronts != Default::default() {
        log::info!(
            "X-Real-IP believed from loopback and {}",
            config.limits.fronts
        );
    }
    let metrics_addr = match &config.metrics_addr {
        None => None,
        Some(a) => {
            listeners.push(listen(a)?);
            let bound = listeners[1].local_addr().map_err(|e| e.to_string())?;
            log::info!("metrics on http://{bound}/metrics");
            Some(bound)
        }
    };
    let usage = Usage::new(&config.keys);
    let app = App::new(store, keys, usage, config.metrics_addr.is_none());
    let app = Arc::new(app.with_exports_per_key(config.exports_per_key));
    if let Some(live) = live {
        redis_link::link(&app, live)?;
    }
    let layer = Layer::start(
        listeners,
        LayerConfig {
            workers: config.workers,
            client_timeout: config.client_timeout,
            limits: config.limits.clone(),
        },
        app.clone(),
        app.metrics.clone(),
    )?;
    let stop = Arc::new(Stop::default());
    let mut threads = Vec::new();
    // Apart, so that opening a new dataset (a second at 100,000 areas) never
    // holds back a revocation.
    let (app2, stop2) = (app.clone(), stop.clone());
    threads.push(spawn("db-watch", move || {
        every(WATCH_EVERY, &stop2, || app2.store.poll())
    })?);
    let (app7, stop7) = (app.clone(), stop.clone());
    threads.push(spawn("keys-watch", move || {
        every(KEYS_WATCH_EVERY, &stop7, || app7.keys.poll())
    })?);
    let (app6, stop6) = (app.clone(), stop.clone());
    threads.push(spawn("usage", move || count_usage(&app6, &stop6))?);
    Ok(Running {
        stop_watchers: stop,
        addr,
        metrics_addr,
        app,
        layer,
        threads,
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
