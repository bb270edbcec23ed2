//! Connections to Redis, each call bounded by a timeout, and whether Redis
//! is reachable. A server's request path never connects: after a failure it
//! runs on its own until the background watch reconnects (`live.rs`).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use super::invalid_values::InvalidValues;
use super::url::RedisUrl;

/// How long a command of the CLI waits for Redis before giving up.
pub const CLI_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a request waits for Redis at most (its budget, its day's usage),
/// well within the 100 ms a request may lose to a slow Redis.
pub const REQUEST_TIMEOUT: Duration = Duration::from_millis(50);
/// How long the server's background work (reloads, usage flushes) waits.
pub const BACKGROUND_TIMEOUT: Duration = Duration::from_millis(500);
/// Connections kept for reuse; more may be open for a moment under load.
const KEPT: usize = 64;

/// One Redis server and idle connections to it.
pub struct Redis {
    pub url: RedisUrl,
    client: redis::Client,
    idle: Mutex<Vec<redis::Connection>>,
    timeout: Duration,
    /// False from a failure until the watch reaches Redis again.
    up: AtomicBool,
    /// Calls that failed or were not tried because Redis was down.
    pub failures: AtomicU64,
    /// Bad values read through these connections.
    pub invalid_values: InvalidValues,
}

impl Redis {
    pub fn new(url: &RedisUrl, timeout: Duration) -> Result<Redis, RedisError> {
        let client =
            redis::Client::open(url.connection_info()).map_err(|source| RedisError::Client {
                url: url.to_string(),
                source,
            })?;
        Ok(Redis {
            url: url.clone(),
            client,
            idle: Mutex::new(Vec::new()),
            timeout,
            up: AtomicBool::new(true),
            failures: AtomicU64::new(0),
            invalid_values: InvalidValues::default(),
        })
    }

    pub fn is_up(&self) -> bool {
        self.up.load(Ordering::Relaxed)
    }

    /// Marks Redis reachable or not; true when this changed it.
    pub fn set_up(&self, up: bool) -> bool {
        self.up.swap(up, Ordering::Relaxed) != up
    }

    fn connect(&self, timeout: Duration) -> redis::RedisResult<redis::Connection> {
        let conn = self.client.get_connection_with_timeout(timeout)?;
        conn.set_read_timeout(Some(timeout))?;
        conn.set_write_timeout(Some(timeout))?;
        Ok(conn)
    }

    /// Runs `f` on a connection, connecting if none is idle. A connection
    /// that failed is dropped, as a late reply could land on the next call.
    pub fn call<T>(
        &self,
        f: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T, RedisError> {
        let idle = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let outcome = match idle {
            Some(conn) => Ok(conn),
            None => self.connect(self.timeout),
        }
        .and_then(|mut conn| f(&mut conn).map(|v| (v, conn)));
        match outcome {
            Ok((value, conn)) => {
                let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
                if idle.len() < KEPT {
                    idle.push(conn);
                }
                Ok(value)
            }
            Err(e) => {
                self.failures.fetch_add(1, Ordering::Relaxed);
                Err(RedisError::Call {
                    url: self.url.to_string(),
                    source: e,
                })
            }
        }
    }

    /// `call`, only while Redis is up: what the request path uses. A failure
    /// marks Redis down, and says so once.
    pub fn call_if_up<T>(
        &self,
        f: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Option<T> {
        if !self.is_up() {
            self.failures.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        match self.call(f) {
            Ok(v) => Some(v),
            Err(why) => {
                self.down(&why);
                None
            }
        }
    }

    /// Redis failed: log it once, until it is back.
    pub fn down(&self, why: impl std::fmt::Display) {
        if self.set_up(false) {
            // Idle connections may hold replies that come late.
            self.idle.lock().unwrap_or_else(|p| p.into_inner()).clear();
            log::error!(
                "{why}; running on this server's own state until Redis is back: \
                 each server limits keys by itself meanwhile (docs/api.md, \"Rate limits\")"
            );
        }
    }
}

/// Why Redis could not be used: its URL as shown (never its password), and
/// the failure, a timeout named as such.
#[derive(Debug, thiserror::Error)]
pub enum RedisError {
    #[error("Redis at {url}: {source}")]
    Client {
        url: String,
        source: redis::RedisError,
    },
    #[error("Redis at {url}: {}", describe(.source))]
    Call {
        url: String,
        source: redis::RedisError,
    },
}

fn describe(e: &redis::RedisError) -> String {
    if e.is_timeout() {
        "no answer in time".into()
    } else {
        e.to_string()
    }
}
