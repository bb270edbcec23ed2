//! What the end-to-end tests share, one of each: the raw HTTP client
//! (`client`), the fresh database with keys (`db`), the error-shape check
//! (`assert`), reading answer bodies (`body`), the caching and CORS checks
//! (`cache`), rate-limit budgets (`rate`), polls with a limit (`wait`), the
//! real binary (`bin`), servers of a test's own (`server`), the seed read
//! independently (`seed`), independent arithmetic (`calc`), walking pages
//! and their Link headers (`pages`), brute-force Search (`reference`) and
//! a seeded random source (`rng`), reading exports (`exports`), the docs' pages (`docs`).
//! the Redis hosts of `make redis-test` (`redis_hosts`, `cut_proxy`,
//! `flood`), and the import's example files (`import_files`).
//! Here: `spawn_app()`, the in-process server every test in a binary shares,
//! over a fresh database with one API key per plan.

// Each test binary (tests/tests.rs, wall_clock.rs, query_cost.rs) compiles
// all of this module and uses a different part of it; without this, the
// smaller two warn of the rest.
#![allow(dead_code)]

pub mod assert;
pub mod bin;
pub mod body;
pub mod cache;
pub mod calc;
pub mod client;
pub mod cut_proxy;
pub mod db;
pub mod docs;
pub mod exports;
pub mod flood;
pub mod forgiving;
pub mod import_files;
pub mod pages;
pub mod rate;
pub mod redis_hosts;
pub mod reference;
pub mod rng;
pub mod scratch;
pub mod seed;
pub mod server;
pub mod wait;

// Not every binary uses every re-export.
#[allow(unused_imports)]
pub use assert::*;
#[allow(unused_imports)]
pub use body::{coordinates, data, ids, key_set, keys, list_total, points};
#[allow(unused_imports)]
pub use db::{fresh_db, keys_path, new_key, scratch_dir, set_plan_limit, small_db, sql};
#[allow(unused_imports)]
pub use seed::{SeedPlace, seed_area_count, seed_places};

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use area_scoring::cli::config::{self, Command};
pub use area_scoring::domain::Plan;
use area_scoring::server as app_server;
use serde_json::Value;

use client::Reply;

pub const JSON: &str = "application/json; charset=utf-8";

pub struct TestApp {
    pub addr: SocketAddr,
    pub db: PathBuf,
    keys: Vec<(Plan, String)>,
    listed: OnceLock<Vec<Value>>,
    details: OnceLock<Vec<Value>>,
}

/// The server every test in this binary talks to, started on first use.
pub fn spawn_app() -> &'static TestApp {
    static APP: OnceLock<TestApp> = OnceLock::new();
    APP.get_or_init(|| TestApp::over(fresh_db("app")))
}

/// Starts a server over `db` on a free port with four workers and returns the
/// address bound. The configuration comes from the command line's own parser,
/// so that it carries every default the `serve` command would use.
pub fn serve(db: &Path) -> SocketAddr {
    let args: Vec<String> = ["serve", "--addr", "127.0.0.1:0", "--workers", "4", "--db"]
        .iter()
        .map(|s| s.to_string())
        .chain([db.to_str().expect("a UTF-8 path").to_string()])
        .collect();
    let Ok(Command::Serve(config)) = config::parse(&args, &|_| None) else {
        panic!("serve arguments refused");
    };
    let running = app_server::start(&config).expect("the server starts");
    // Dropping `Running` only detaches the workers: they own the listener and
    // serve until the test process exits.
    running.addr()
}

impl TestApp {
    /// A server over `db` with one key per plan, every plan's limit lifted.
    pub fn over(db: PathBuf) -> TestApp {
        let keys = Plan::ALL
            .iter()
            .map(|&plan| (plan, new_key(&db, plan).1))
            .collect();
        // Tests send a few thousand requests a minute: lift every plan's rate
        // limit (none of these tests is about rate limits).
        db::unlimited_plans(&db);
        TestApp {
            addr: serve(&db),
            db,
            keys,
            listed: OnceLock::new(),
            details: OnceLock::new(),
        }
    }

    pub fn key(&self, plan: Plan) -> &str {
        &self
            .keys
            .iter()
            .find(|(p, _)| *p == plan)
            .expect("a key per plan")
            .1
    }

    pub fn bearer(&self, plan: Plan) -> Vec<u8> {
        format!("Bearer {}", self.key(plan)).into_bytes()
    }

    /// Any method, target and headers, sent as given.
    pub fn send(&self, method: &str, target: &[u8], headers: &[(&str, &[u8])]) -> Reply {
        client::send(self.addr, method, target, headers)
    }

    pub fn get_as(&self, plan: Plan, target: &str) -> Reply {
        let auth = self.bearer(plan);
        self.send("GET", target.as_bytes(), &[("Authorization", &auth)])
    }

    /// GET with a growth key and further headers, each given whole.
    pub fn get_with(&self, target: &str, extra: &[(&str, &str)]) -> Reply {
        self.send_with("GET", target, extra)
    }

    /// Any method with a growth key and further headers.
    pub fn send_with(&self, method: &str, target: &str, extra: &[(&str, &str)]) -> Reply {
        let auth = self.bearer(Plan::Growth);
        let mut headers: Vec<(&str, &[u8])> = vec![("Authorization", &auth)];
        headers.extend(extra.iter().map(|(n, v)| (*n, v.as_bytes())));
        self.send(method, target.as_bytes(), &headers)
    }

    /// GET with a growth key, the lowest plan that may use every endpoint.
    pub fn get(&self, target: &str) -> Reply {
        self.get_as(Plan::Growth, target)
    }

    /// GET that must answer 200 with a JSON body; returns the body.
    pub fn ok(&self, target: &str) -> Value {
        let reply = self.get(target);
        assert_eq!(
            reply.status,
            200,
            "GET {target}: {}",
            String::from_utf8_lossy(&reply.body)
        );
        assert_eq!(reply.header("Content-Type"), Some(JSON), "GET {target}");
        reply.json()
    }

    /// Every area in list form, by walking List Areas in pages of 100.
    pub fn listed(&self) -> &[Value] {
        self.listed.get_or_init(|| {
            let mut all = Vec::new();
            loop {
                let page = self.ok(&format!("/v1/areas?limit=100&offset={}", all.len()));
                let data = page["data"].as_array().expect("data").clone();
                let done = data.is_empty()
                    || all.len() + data.len() >= page["total"].as_u64().unwrap() as usize;
                all.extend(data);
                if done {
                    return all;
                }
            }
        })
    }

    /// Get Area with include=nearby for every listed area, in list order.
    /// Four threads, as the server has four workers.
    pub fn details(&self) -> &[Value] {
        self.details.get_or_init(|| {
            let ids: Vec<&str> = self
                .listed()
                .iter()
                .map(|a| a["id"].as_str().unwrap())
                .collect();
            let chunks: Vec<&[&str]> = ids.chunks(ids.len().div_ceil(4)).collect();
            std::thread::scope(|s| {
                let handles: Vec<_> = chunks
                    .iter()
                    .map(|chunk| {
                        s.spawn(move || {
                            chunk
                                .iter()
                                .map(|id| {
                                    self.ok(&format!("/v1/areas/{}?include=nearby", encode(id)))
                                })
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().expect("fetch details"))
                    .collect()
            })
        })
    }

    pub fn detail(&self, id: &str) -> &Value {
        let at = self
            .listed()
            .iter()
            .position(|a| a["id"] == id)
            .expect("a listed id");
        &self.details()[at]
    }
}

/// Percent-encodes everything but unreserved ASCII, for ids and values.
pub fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
