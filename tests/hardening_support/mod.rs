//! Helpers for the hardening tests (issue 4): fresh databases and keys, servers
//! started in-process or as the real binary, and a raw HTTP client that shows
//! the response head byte for byte. Kept apart from tests/common/ (owned by the
//! end-to-end tests) so that either can change without breaking the other.

// Each test binary uses a different part of this module.
#![allow(dead_code)]

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock, mpsc};
use std::time::{Duration, Instant};

pub use area_scoring::domain::Plan;
use area_scoring::server::{self, Running, ServeConfig};
use area_scoring::{auth, db, load, seed};
use serde_json::Value;

/// A new empty directory under Cargo's per-target temporary directory.
pub fn scratch(name: &str) -> PathBuf {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hardening-{name}-{}-{n}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// A fresh database from seed/ in its own directory: a copy of one made by
/// `init` once per test binary (a debug-build init takes seconds).
pub fn fresh_db(name: &str) -> PathBuf {
    static TEMPLATE: OnceLock<PathBuf> = OnceLock::new();
    let template = TEMPLATE.get_or_init(|| {
        let path = scratch("template").join("areas.db");
        load::init(&path, false).expect("init from seed/");
        path
    });
    let path = scratch(name).join("areas.db");
    fs::copy(template, &path).expect("copy the template database");
    path
}

/// Issues a key on `plan`: (id, key).
pub fn new_key(db_path: &Path, plan: Plan) -> (String, String) {
    let conn = db::open_writable(db_path).expect("open writable");
    auth::create(&conn, plan, "hardening").expect("create a key")
}

/// Runs SQL against the database file, as an operator would.
pub fn sql(db_path: &Path, statements: &str) {
    db::open_writable(db_path)
        .expect("open writable")
        .execute_batch(statements)
        .expect("run SQL");
}

/// Writes a valid database with only the first `count` seed places at `path`
/// and copies the API keys of `keys_from` into it.
pub fn small_db(path: &Path, count: usize, keys_from: &Path) {
    let mut places = seed::read_places(seed::SEED_CSV).expect("seed");
    places.sort_by(|a, b| a.id.cmp(&b.id));
    load::create_database(path, true, |w| {
        for p in &places[..count] {
            let (dimensions, truth_score) = seed::scores(&p.id, &p.municipality);
            let history = seed::history(&p.id, truth_score, 30);
            w.add(&load::NewArea {
                id: &p.id,
                name: &p.name,
                province_slug: &p.province_slug,
                province: &p.province,
                municipality: &p.municipality,
                lat: p.lat,
                lng: p.lng,
                truth_score,
                updated_at: "2026-01-01T00:00:00Z",
                dimensions: &dimensions,
                history: &history,
                first_day: 20_000,
            })?;
        }
        Ok(())
    })
    .expect("create a small database");
    let conn = db::open_writable(path).expect("open the small database");
    conn.execute("ATTACH DATABASE ?1 AS old", [keys_from.to_str().unwrap()])
        .expect("attach");
    conn.execute_batch("INSERT OR IGNORE INTO api_keys SELECT * FROM old.api_keys;")
        .expect("copy keys");
}

/// Starts the server in-process on a free loopback port.
pub fn start(db_path: &Path, workers: usize, client_timeout: Duration) -> Running {
    server::start(&ServeConfig {
        db: db_path.to_path_buf(),
        addr: "127.0.0.1:0".into(),
        workers,
        client_timeout,
        metrics_addr: None,
    })
    .expect("the server starts")
}

/// One parsed response; `head` is the status line and headers as received.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub head: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!("{e}: {}", String::from_utf8_lossy(&self.body));
        })
    }

    /// The error code of an API error body.
    pub fn code(&self) -> String {
        self.json()["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .into()
    }
}

/// Sends `request` as is, reads to EOF (requests say Connection: close).
pub fn exchange(addr: SocketAddr, request: &[u8]) -> std::io::Result<Reply> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(20)))?;
    stream.write_all(request)?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    parse(&raw).map_err(|e| std::io::Error::other(format!("{e}: {raw:?}")))
}

/// A request with the given target and extra header lines (each without CRLF).
pub fn request(target: &str, headers: &[String]) -> Vec<u8> {
    let mut r = format!("GET {target} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n");
    for h in headers {
        r.push_str(h);
        r.push_str("\r\n");
    }
    r.push_str("\r\n");
    r.into_bytes()
}

/// GET with an optional API key; panics when there is no answer.
pub fn get(addr: SocketAddr, target: &str, key: Option<&str>) -> Reply {
    let headers: Vec<String> = key
        .map(|k| format!("Authorization: Bearer {k}"))
        .into_iter()
        .collect();
    exchange(addr, &request(target, &headers))
        .unwrap_or_else(|e| panic!("GET {target}: no answer: {e}"))
}

/// Parses a Content-Length framed response (the server never chunks JSON).
pub fn parse(raw: &[u8]) -> Result<Reply, String> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no end of headers")?;
    let head = &raw[..end];
    let text = String::from_utf8_lossy(head);
    let mut lines = text.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or("bad status line")?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.to_string(), v.trim().to_string()))
        .collect();
    Ok(Reply {
        status,
        headers,
        body: raw[end + 4..].to_vec(),
        head: head.to_vec(),
    })
}

/// Asserts the API's error shape: JSON {"error": {code, message, status}}.
pub fn assert_error(reply: &Reply, status: u16, code: &str) {
    assert_eq!(
        reply.status,
        status,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(
        reply.header("Content-Type"),
        Some("application/json; charset=utf-8")
    );
    let body = reply.json();
    assert_eq!(body["error"]["code"], code, "{body}");
    assert_eq!(body["error"]["status"], status, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty())
    );
}

/// Retries `f` every 50 ms until it returns Some or `limit` passes.
pub fn within<T>(limit: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The real binary, serving `db` on a free port; its stderr lines are kept.
pub struct Binary {
    pub child: Child,
    pub addr: SocketAddr,
    pub log: Arc<Mutex<Vec<String>>>,
}

impl Binary {
    pub fn spawn(db_path: &Path, extra: &[&str]) -> Binary {
        let mut child = Command::new(env!("CARGO_BIN_EXE_area-scoring"))
            .args(["serve", "--addr", "127.0.0.1:0", "--db"])
            .arg(db_path)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the binary");
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        let kept = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find("listening on http://") {
                    let _ = tx.send(line[at + 20..].trim().to_string());
                }
                kept.lock().unwrap().push(line);
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("a 'listening on' line")
            .parse()
            .expect("an address");
        Binary { child, addr, log }
    }

    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -{name}");
    }

    /// The exit status, if the process ends within `limit`.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        within(limit, || self.child.try_wait().ok().flatten())
    }

    pub fn logged(&self, needle: &str) -> bool {
        self.log.lock().unwrap().iter().any(|l| l.contains(needle))
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        // Only this child, by its own handle.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
