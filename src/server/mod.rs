//! The server: the app on the HTTP layer. start.rs opens what the app
//! serves from (the keys, in a file or in Redis; the dataset) and starts the
//! layer and the threads beside it (watch.rs: the dataset's and the keys'
//! watchers, the usage flush); service.rs makes the app the layer's
//! `Service`; stop.rs stops it all and writes the last usage.
//!
//! On SIGTERM or SIGINT the layer stops (transport/drain.rs: no new
//! connections, every request received answered), then the watchers, then
//! the usage is written; the process exits within 5 s of the signal.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::access::redis::url::RedisUrl;
use crate::app::App;
use crate::transport::{ConnLimits, Layer};
pub use start::start;
use watch::Stop;

mod service;
mod start;
mod stop;
mod watch;

/// Why the server did not start, or stopped short of serving.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Data(#[from] crate::data::error::DataError),
    #[error(transparent)]
    Dataset(#[from] crate::data::dataset::OpenError),
    #[error(transparent)]
    Access(#[from] crate::access::AccessError),
    #[error(transparent)]
    Redis(#[from] crate::access::redis::RedisError),
    /// The HTTP layer's refusal (binding, its threads), in its own words.
    #[error("{0}")]
    Layer(String),
    #[error("cannot start a thread: {0}")]
    Thread(#[source] std::io::Error),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ServeConfig {
    pub db: PathBuf,
    /// The keys file, which replicas on one host share.
    pub keys: PathBuf,
    /// Keys, budgets and usage shared through Redis instead (access/redis).
    pub redis: Option<RedisUrl>,
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

/// Starts the server and serves until SIGTERM or SIGINT. The signals are
/// taken before the start: one that came after the first answer but before
/// they were taken would have had its default action, and ended the process.
pub fn serve(config: &ServeConfig) -> Result<(), ServeError> {
    let signals = Signals::new([SIGHUP, SIGINT, SIGTERM])?;
    start(config)?.run_until_signalled(signals);
    Ok(())
}

pub struct Running {
    addr: SocketAddr,
    metrics_addr: Option<SocketAddr>,
    app: Arc<App>,
    layer: Layer,
    threads: Vec<JoinHandle<()>>,
    /// Ends the watchers and the usage thread.
    stop_watchers: Arc<Stop>,
    /// The keys file's serving lock, without Redis (access/serving_lock.rs).
    _serving: Option<crate::access::serving_lock::Serving>,
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
    fn run_until_signalled(self, mut signals: Signals) {
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
    }
}
