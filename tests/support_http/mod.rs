//! Shared by tests/caching_cors.rs and tests/health_metrics.rs: a server of
//! the test's own (in-process, on 127.0.0.1:0, over a fresh database made by
//! `load::init` in a scratch directory, with a growth and a free key) and a
//! tiny raw HTTP/1.1 client over `TcpStream` (one request per connection,
//! `Connection: close`, read to the end).

// Each test binary uses a different part of this module.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use area_scoring::domain::Plan;
use area_scoring::server::{self, Running, ServeConfig};
use area_scoring::{auth, db, load};
use serde_json::Value;

pub const JSON: &str = "application/json; charset=utf-8";

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
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("support-http-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let db = dir.join("areas.db");
        load::init(&db, false).expect("init from seed/");
        let conn = db::open_writable(&db).expect("open the new database");
        let (_, growth) = auth::create(&conn, Plan::Growth, "t").expect("a growth key");
        let (_, free) = auth::create(&conn, Plan::Free, "t").expect("a free key");
        drop(conn);
        let running = server::start(&ServeConfig {
            db: db.clone(),
            addr: "127.0.0.1:0".into(),
            workers: 2,
            client_timeout: Duration::from_secs(10),
            metrics_addr: separate_metrics.then(|| "127.0.0.1:0".into()),
        })
        .expect("the server starts");
        TestServer {
            addr: running.addr(),
            metrics_addr: running.metrics_addr(),
            db,
            growth,
            free,
            running: Some(running),
        }
    }

    pub fn send(&self, method: &str, target: &str, headers: &[(&str, &str)]) -> Reply {
        send(self.addr, method, target, headers)
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
}

impl TestServer {
    /// A new key on `plan`, for a test that needs a rate-limit bucket of its own.
    pub fn new_key(&self, plan: Plan) -> String {
        let conn = db::open_writable(&self.db).expect("open the database");
        auth::create(&conn, plan, "t").expect("a key").1
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

/// The number of areas seed/za-areas.csv holds: its lines, less the header.
pub fn seed_area_count() -> u64 {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("seed/za-areas.csv");
    let text = std::fs::read_to_string(path).expect("seed/za-areas.csv");
    text.lines().filter(|l| !l.trim().is_empty()).count() as u64 - 1
}

pub fn etag(reply: &Reply) -> String {
    reply.header("ETag").expect("an ETag").to_string()
}

pub fn assert_cached_privately(reply: &Reply, what: &str) {
    let tag = etag(reply);
    assert!(
        tag.len() > 2 && tag.starts_with('"') && tag.ends_with('"'),
        "{what}: strong, quoted ETag, got {tag}"
    );
    assert_eq!(
        reply.header("Cache-Control"),
        Some("private, max-age=60"),
        "{what}"
    );
    let vary = reply.header("Vary").unwrap_or_default();
    assert!(
        vary.split(',')
            .any(|v| v.trim().eq_ignore_ascii_case("Authorization")),
        "{what}: Vary {vary:?}"
    );
}

pub fn assert_cors(reply: &Reply, what: &str) {
    assert_eq!(
        reply.header("Access-Control-Allow-Origin"),
        Some("*"),
        "{what}"
    );
    let exposed: Vec<String> = reply
        .header("Access-Control-Expose-Headers")
        .unwrap_or_else(|| panic!("{what}: no Access-Control-Expose-Headers"))
        .split(',')
        .map(|h| h.trim().to_ascii_lowercase())
        .collect();
    for name in [
        "etag",
        "x-request-id",
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
    ] {
        assert!(
            exposed.iter().any(|e| e == name),
            "{what}: {name} not exposed in {exposed:?}"
        );
    }
    assert!(
        reply
            .header("X-Request-Id")
            .is_some_and(|id| !id.is_empty()),
        "{what}"
    );
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}), status {}: {}", self.status, self.text()))
    }

    /// Asserts the error shape `{"error":{"code","message","status",...}}`
    /// with the given status and code.
    pub fn assert_error(&self, status: u16, code: &str) {
        let body = self.json();
        assert_eq!(self.status, status, "{body}");
        assert_eq!(self.header("Content-Type"), Some(JSON), "{body}");
        assert_eq!(body["error"]["code"], code, "{body}");
        assert_eq!(body["error"]["status"], status, "{body}");
        assert!(body["error"]["message"].is_string(), "{body}");
    }
}

/// Sends one request (with `Connection: close`) and parses the whole answer.
pub fn send(addr: SocketAddr, method: &str, target: &str, headers: &[(&str, &str)]) -> Reply {
    let mut request = format!("{method} {target} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    if matches!(method, "POST" | "PUT" | "PATCH") {
        request.push_str("Content-Length: 0\r\n");
    }
    request.push_str("\r\n");
    let mut raw = Vec::new();
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream.write_all(request.as_bytes()).expect("send");
    stream
        .read_to_end(&mut raw)
        .unwrap_or_else(|e| panic!("{method} {target}: no answer: {e}"));
    parse(&raw, method == "HEAD").unwrap_or_else(|why| {
        panic!(
            "{method} {target}: {why}: {:?}",
            String::from_utf8_lossy(&raw)
        )
    })
}

/// Status line, headers, then the body: none for HEAD, exactly Content-Length
/// bytes when given, else whatever came before the server closed the connection.
fn parse(raw: &[u8], head_only: bool) -> Result<Reply, String> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no end of headers")?;
    let head = std::str::from_utf8(&raw[..end]).map_err(|_| "head not UTF-8")?;
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or("bad status line")?;
    let mut headers = Vec::new();
    for line in lines {
        let (name, value) = line.split_once(':').ok_or("header without a colon")?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    let mut reply = Reply {
        status,
        headers,
        body: raw[end + 4..].to_vec(),
    };
    if head_only {
        if !reply.body.is_empty() {
            return Err("a body in the answer to HEAD".into());
        }
    } else if reply
        .header("Transfer-Encoding")
        .is_some_and(|t| t.eq_ignore_ascii_case("chunked"))
    {
        reply.body = dechunk(&reply.body)?;
    } else if let Some(length) = reply.header("Content-Length")
        && length.parse() != Ok(reply.body.len())
    {
        return Err(format!(
            "Content-Length {length}, {} bytes",
            reply.body.len()
        ));
    }
    Ok(reply)
}

fn dechunk(mut data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let eol = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("chunk size line")?;
        let size_text = std::str::from_utf8(&data[..eol]).map_err(|_| "chunk size")?;
        let size = usize::from_str_radix(size_text.trim(), 16).map_err(|_| "chunk size")?;
        data = &data[eol + 2..];
        if size == 0 {
            return Ok(out);
        }
        out.extend_from_slice(data.get(..size).ok_or("short chunk")?);
        data = data.get(size + 2..).ok_or("short chunk")?;
    }
}
