//! The layer itself, apart from the app: the readiness set with its tick
//! and stop event, the listeners, the workers and the access log, started
//! over any `Service` and stopped by drain.rs. What they share is grouped
//! by who reads it: the waits, the listeners, the table, the bounds, and
//! what answering needs.

use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::access_log::AccessLog;
use super::counters::LayerCounts;
use super::epoll::{Epoll, Interest};
use super::limits::ConnLimits;
use super::listener::AcceptSwitch;
use super::request::RequestIds;
use super::table::Table;
use super::timers::{StopEvent, Tick};
use super::{Service, spawn, workers};

/// How long shutdown waits for connections and exports at most: the process
/// exits within 5 s of the signal (docs/http-layer.md, "Shutdown"), with
/// room for the exit.
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
    /// When the stop began: set once, and every rule of a stop reads it.
    pub(super) stopped_at: OnceLock<Instant>,
    pub(super) waits: Waits,
    /// The main listener, then the metrics listener if any.
    pub(super) listeners: Vec<Listener>,
    /// accept() is failing for want of descriptors or memory (logged once).
    pub(super) accept_failing: AtomicBool,
    pub(super) table: Table,
    /// Exports streaming now, each on a thread of its own.
    pub(super) streams: AtomicUsize,
    pub(super) bounds: Bounds,
    pub(super) answering: Answering,
}

/// What the workers wait on.
pub(super) struct Waits {
    /// Every worker waits on it at once (workers.rs).
    pub(super) set: Epoll,
    /// Its event is the sweep of the timeouts.
    pub(super) tick: Tick,
    /// Rung when every connection is closed (or the deadline passed): the
    /// workers end.
    pub(super) stop_event: StopEvent,
}

/// A listener, the switch that stops it accepting, and until when its
/// accepting pauses after accept() failed.
pub(super) struct Listener {
    pub(super) socket: TcpListener,
    pub(super) switch: AcceptSwitch,
    pub(super) paused_until: Mutex<Option<Instant>>,
}

/// The bounds every connection is held to.
pub(super) struct Bounds {
    pub(super) limits: ConnLimits,
    pub(super) client_timeout: Duration,
}

/// What answering a request needs beside the connection.
pub(super) struct Answering {
    pub(super) service: Arc<dyn Service>,
    /// Ids for the answers given here, without the service.
    pub(super) request_ids: RequestIds,
    pub(super) log: AccessLog,
    pub(super) counts: Arc<LayerCounts>,
}

impl Shared {
    pub(super) fn is_stopping(&self) -> bool {
        self.stopped_at.get().is_some()
    }

    pub(super) fn stopped_at(&self) -> Option<Instant> {
        self.stopped_at.get().copied()
    }
}

/// The running layer: its workers, and what stops it.
pub struct Layer {
    pub(super) shared: Arc<Shared>,
    pub(super) workers: Vec<JoinHandle<()>>,
    pub(super) log_writer: Option<JoinHandle<()>>,
}

impl Layer {
    /// Serves `listeners` (the main one, then the metrics one if any),
    /// counting into `counts`.
    pub fn start(
        listeners: Vec<TcpListener>,
        config: LayerConfig,
        service: Arc<dyn Service>,
        counts: Arc<LayerCounts>,
    ) -> Result<Layer, String> {
        let listeners = listeners
            .into_iter()
            .map(|socket| {
                Ok(Listener {
                    switch: AcceptSwitch::new(&socket)?,
                    socket,
                    paused_until: Mutex::new(None),
                })
            })
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(|e| e.to_string())?;
        let (log, log_writer) = AccessLog::start(counts.clone(), config.limits.access_log)?;
        let watch = |e: std::io::Error| format!("cannot watch connections: {e}");
        let set = Epoll::new().map_err(watch)?;
        for (key, listener) in listeners.iter().enumerate() {
            set.add(&listener.socket, key, Interest::Read)
                .map_err(watch)?;
        }
        let tick = Tick::every(workers::TICK).map_err(watch)?;
        set.add(&tick, workers::TICK_KEY, Interest::Read)
            .map_err(watch)?;
        let stop_event = StopEvent::new().map_err(watch)?;
        set.add_always(&stop_event, workers::STOP_KEY)
            .map_err(watch)?;
        let shared = Arc::new(Shared {
            stopped_at: OnceLock::new(),
            waits: Waits {
                set,
                tick,
                stop_event,
            },
            listeners,
            accept_failing: AtomicBool::new(false),
            table: Table::default(),
            streams: AtomicUsize::new(0),
            bounds: Bounds {
                limits: config.limits,
                client_timeout: config.client_timeout,
            },
            answering: Answering {
                service,
                request_ids: RequestIds::new(),
                log,
                counts,
            },
        });
        let mut workers = Vec::new();
        for i in 0..config.workers.max(1) {
            let shared = shared.clone();
            workers.push(spawn(&format!("worker-{i}"), move || {
                workers::work(&shared)
            })?);
        }
        Ok(Layer {
            shared,
            workers,
            log_writer: Some(log_writer),
        })
    }
}
