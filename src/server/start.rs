//! Starting the server: the keys (moved out of an old dataset first, or
//! found in Redis), the dataset, the listeners, the app on the layer, and
//! the threads that watch the files and write the usage. What it opens is
//! logged after the address the first line names (docs/operations.md,
//! "Configuration").

use std::sync::Arc;
use std::time::Duration;

use super::watch::{Stop, count_usage, every, watch_keys};
use super::{Running, ServeConfig, ServeError};
use crate::access::key_store::KeyStore;
use crate::access::redis::live::Live;
use crate::access::serving_lock::Serving;
use crate::access::usage::Usage;
use crate::access::{key_file, migrate};
use crate::app::exports::MAX_EXPORTS;
use crate::app::{App, redis_link};
use crate::data::dataset::{Pools, Store};
use crate::data::db::PoolSize;
use crate::transport::listener::listen;
use crate::transport::{Layer, LayerConfig, spawn};

/// How often the database file is checked for replacement or removal.
const WATCH_EVERY: Duration = Duration::from_secs(1);
/// How often the keys file is looked at: a change takes effect within a
/// second on every server sharing it (docs/operations.md, "Keys"), and a
/// locked file is tried again.
const KEYS_WATCH_EVERY: Duration = Duration::from_millis(250);

/// Database connections kept: one a worker, one a streaming export.
fn pools(workers: usize) -> Pools {
    Pools {
        requests: PoolSize::for_requests(workers as u32),
        exports: PoolSize::for_exports(MAX_EXPORTS as u32),
    }
}

/// Opens the database and the keys, binds the address(es) and starts the workers.
pub fn start(config: &ServeConfig) -> Result<Running, ServeError> {
    // Before anything is written: a start refused for its dataset leaves no
    // keys file (nor its folder) where no server reads one.
    use crate::data::db;
    db::check_versions(&config.db, db::OLDEST_VERSION..=db::SCHEMA_VERSION)?;
    // The first command after an upgrade moves the dataset's keys out.
    // With Redis, the keys are there and no keys file is touched.
    // Held before the keys file is first opened: a restore renaming it
    // in finishes first (access/serving_lock.rs).
    let serving = match &config.redis {
        None => Some(Serving::hold(&config.keys)?),
        Some(_) => None,
    };
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
    let store = Store::open(&config.db, pools(config.workers))?;
    let mut listeners = vec![listen(&config.addr).map_err(ServeError::Layer)?];
    let addr = listeners[0].local_addr()?;
    log::info!("listening on http://{addr}");
    if let Ok(dataset) = store.current() {
        log::info!(
            "serving {}: {} areas, {}",
            config.db.display(),
            dataset.area_count,
            dataset.identity.describe()
        );
    }
    for notice in said_of_keys {
        log::warn!("{notice}");
    }
    if let Ok(dataset) = store.current() {
        for warning in &dataset.warnings {
            log::warn!("{warning}");
        }
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
            listeners.push(listen(a).map_err(ServeError::Layer)?);
            let bound = listeners[1].local_addr()?;
            log::info!("metrics on http://{bound}/metrics");
            Some(bound)
        }
    };
    let usage = Usage::new(&config.keys);
    let app = App::new(store, keys, usage, config.metrics_addr.is_none());
    let app = Arc::new(app.with_exports_per_key(config.exports_per_key));
    if let Some(live) = live {
        redis_link::link(&app, live).map_err(ServeError::Thread)?;
    }
    let layer = Layer::start(
        listeners,
        LayerConfig {
            workers: config.workers,
            client_timeout: config.client_timeout,
            limits: config.limits.clone(),
        },
        app.clone(),
        app.metrics.layer.clone(),
    )
    .map_err(ServeError::Layer)?;
    let stop = Arc::new(Stop::default());
    let mut threads = Vec::new();
    // Apart, so that opening a new dataset (a second at 100,000 areas) never
    // holds back a revocation.
    let (app2, stop2) = (app.clone(), stop.clone());
    threads.push(
        spawn("db-watch", move || {
            every(WATCH_EVERY, &stop2, || app2.store.poll())
        })
        .map_err(ServeError::Layer)?,
    );
    let (app3, stop3) = (app.clone(), stop.clone());
    threads.push(
        spawn("keys-watch", move || {
            watch_keys(&app3, KEYS_WATCH_EVERY, &stop3)
        })
        .map_err(ServeError::Layer)?,
    );
    let (app4, stop4) = (app.clone(), stop.clone());
    threads.push(spawn("usage", move || count_usage(&app4, &stop4)).map_err(ServeError::Layer)?);
    Ok(Running {
        stop_watchers: stop,
        addr,
        metrics_addr,
        app,
        layer,
        threads,
        _serving: serving,
    })
}
