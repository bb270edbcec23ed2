//! The layer itself, apart from the app: the readiness set with its tick
//! and stop bell, the listeners, the workers and the access log, started
//! over any `Service` and stopped by drain.rs.

use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::access_log::AccessLog;
use super::bells::{Bell, Tick};
use super::epoll::{Epoll, Interest};
use super::limits::ConnLimits;
use super::listener::AcceptSwitch;
use super::{Service, pool, spawn};
use crate::app::http::RequestIds;
use crate::app::metrics::Metrics;

/// How long shutdown waits for connections and exports at most: the process
/// exits within 5 s of the signal (README, "Deployment"), with room for the exit.
pub(super) const SHUTDOWN_DEADLINE: Duration = Duration::from_millis(4200);
/// While stopping, an idle connection closes once nothing has come on it
/// for this long: a request sent just before the signal may still be on its way.
pub(super) const QUIET: Duration = Duration::from_millis(200);
/// Seconds a client refused by a connection cap is asked to wait.
pub(super) const CAP_RETRY_AFTER_SECS: u64 = 1;

#[derive(Debug, Clone)]
pub struct LayerConfig {
    pub workers: usize,
    pub client_timeout: Duration,
    pub limits: ConnLimits,
}

/// What the workers share with each other and with shutdown.
pub(super) struct Shared {
    pub(super) stopping: AtomicBool,
    pub(super) stopped_at: Mutex<Option<Instant>>,
    /// Every worker waits on it at once (pool.rs).
    pub(super) set: Epoll,
    /// Its event is the sweep of the timeouts.
    pub(super) tick: Tick,
    /// Rung when every connection is closed (or the deadline passed): the
    /// workers end.
    pub(super) bell: Bell,
    pub(super) table: super::table::Table,
    /// The main listener, then the metrics listener if any.
    pub(super) listeners: Vec<TcpListener>,
    pub(super) accept_paused: Vec<Mutex<Option<Instant>>>,
    pub(super) accept_failing: AtomicBool,
    pub(super) limits: ConnLimits,
    /// Exports streaming now, each on a thread of its own.
    pub(super) streams: AtomicUsize,
    pub(super) client_timeout: Duration,
    /// Ids for the answers given here, without the app.
    pub(super) request_ids: RequestIds,
    pub(super) log: AccessLog,
    pub(super) metrics: Arc<Metrics>,
    pub(super) service: Arc<dyn Service>,
}

impl Shared {
    pub(super) fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    pub(super) fn stopped_at(&self) -> Option<Instant> {
        *self.stopped_at.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn app_metrics(&self) -> &Metrics {
        &self.metrics
    }
}

/// The running layer: its workers, and what stops it.
pub struct Layer {
    pub(super) shared: Arc<Shared>,
    pub(super) workers: Vec<JoinHandle<()>>,
    pub(super) log_writer: Option<JoinHandle<()>>,
    /// The main listener's, then the metrics listener's.
    pub(super) switches: Vec<AcceptSwitch>,
}

impl Layer {
    /// Serves `listeners` (the main one, then the metrics one if any).
    pub fn start(
        listeners: Vec<TcpListener>,
        config: LayerConfig,
        service: Arc<dyn Service>,
        metrics: Arc<Metrics>,
    ) -> Result<Layer, String> {
        let switches = listeners
            .iter()
            .map(AcceptSwitch::new)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        let (log, log_writer) = AccessLog::start(metrics.clone())?;
        let watch = |e: std::io::Error| format!("cannot watch connections: {e}");
        let set = Epoll::new().map_err(watch)?;
        for (key, listener) in listeners.iter().enumerate() {
            set.add(listener, key, Interest::Read).map_err(watch)?;
        }
        let tick = Tick::every(pool::TICK).map_err(watch)?;
        set.add(&tick, pool::TICK_KEY, Interest::Read)
            .map_err(watch)?;
        let bell = Bell::new().map_err(watch)?;
        set.add_always(&bell, pool::STOP_KEY).map_err(watch)?;
        let shared = Arc::new(Shared {
            stopping: AtomicBool::new(false),
            stopped_at: Mutex::new(None),
            set,
            tick,
            bell,
            table: super::table::Table::default(),
            accept_paused: listeners.iter().map(|_| Mutex::new(None)).collect(),
            listeners,
            accept_failing: AtomicBool::new(false),
            limits: config.limits,
            streams: AtomicUsize::new(0),
            client_timeout: config.client_timeout,
            request_ids: RequestIds::new(),
            log,
            metrics,
            service,
        });
        let mut workers = Vec::new();
        for i in 0..config.workers.max(1) {
            let shared = shared.clone();
            workers.push(spawn(&format!("worker-{i}"), move || pool::work(&shared))?);
        }
        Ok(Layer {
            shared,
            workers,
            log_writer: Some(log_writer),
            switches,
        })
    }
}
