//! Servers started in-process on 127.0.0.1:0: `start` for a test that owns
//! its server, and `TestServer`, a server over a fresh database of its own
//! with a growth and a free key, stopped gracefully when dropped.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use area_scoring::domain::Plan;
use area_scoring::server::{self, Running, ServeConfig};

use super::client::{self, Reply};
use super::db::{fresh_db, new_key};

/// Starts the server in-process on a free loopback port.
pub fn start(db_path: &Path, workers: usize, client_timeout: Duration) -> Running {
    start_with(db_path, workers, client_timeout, None)
}

/// As `start`, with /metrics on a listener of its own at `metrics_addr`.
pub fn start_with(
    db_path: &Path,
    workers: usize,
    client_timeout: Duration,
    metrics_addr: Option<String>,
) -> Running {
    server::start(&ServeConfig {
        db: db_path.to_path_buf(),
        keys: super::db::keys_path(db_path),
        redis: None,
        addr: "127.0.0.1:0".into(),
        workers,
        client_timeout,
        metrics_addr,
        limits: Default::default(),
        exports_per_key: area_scoring::app::exports::DEFAULT_MAX_EXPORTS_PER_KEY,
    })
    .expect("the server starts")
}

/// A fresh database of its own with one key on `plan`, served in-process on
/// two workers with a 10 s client timeout: (database, key, server).
pub fn start_keyed(name: &str, plan: Plan) -> (PathBuf, String, Running) {
    let db = fresh_db(name);
    let (_, key) = new_key(&db, plan);
    let running = start(&db, 2, Duration::from_secs(10));
    (db, key, running)
}

pub struct TestServer {
    pub addr: SocketAddr,
    pub metrics_addr: Option<SocketAddr>,
    pub db: PathBuf,
    pub growth: String,
    pub free: String,
    running: Option<Running>,
}

impl TestServer {
    /// A new server over a new database; `separate_metrics` binds /metrics to
    /// a listener of its own on 127.0.0.1:0.
    pub fn start(separate_metrics: bool) -> TestServer {
        let db = fresh_db("test-server");
        let (_, growth) = new_key(&db, Plan::Growth);
        let (_, free) = new_key(&db, Plan::Free);
        let metrics = separate_metrics.then(|| "127.0.0.1:0".into());
        let running = start_with(&db, 2, Duration::from_secs(10), metrics);
        TestServer {
            addr: running.addr(),
            metrics_addr: running.metrics_addr(),
            db,
            growth,
            free,
            running: Some(running),
        }
    }

    /// Any method, target and headers; a POST, PUT or PATCH says
    /// `Content-Length: 0`.
    pub fn send(&self, method: &str, target: &str, headers: &[(&str, &str)]) -> Reply {
        let mut raw: Vec<(&str, &[u8])> = headers.iter().map(|(n, v)| (*n, v.as_bytes())).collect();
        if matches!(method, "POST" | "PUT" | "PATCH") {
            raw.push(("Content-Length", b"0"));
        }
        client::send(self.addr, method, target.as_bytes(), &raw)
    }

    /// GET without a key.
    pub fn get(&self, target: &str) -> Reply {
        self.send("GET", target, &[])
    }

    /// GET with the growth key and any further headers.
    pub fn get_with(&self, target: &str, headers: &[(&str, &str)]) -> Reply {
        self.as_key(&self.growth.clone(), "GET", target, headers)
    }

    pub fn as_key(&self, key: &str, method: &str, target: &str, extra: &[(&str, &str)]) -> Reply {
        let auth = format!("Bearer {key}");
        let mut headers = vec![("Authorization", auth.as_str())];
        headers.extend_from_slice(extra);
        self.send(method, target, &headers)
    }

    /// A new key on `plan`, for a test that needs a rate-limit bucket of its own.
    pub fn new_key(&self, plan: Plan) -> String {
        new_key(&self.db, plan).1
    }
}

impl Drop for TestServer {
    /// Stops the server gracefully, so its port and files are let go.
    fn drop(&mut self) {
        if let Some(running) = self.running.take() {
            running.shutdown();
        }
    }
}
