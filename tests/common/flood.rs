//! A flood of requests with keys the server has never seen, over held
//! (keep-alive) connections from the loopback front, all naming one client
//! in X-Real-IP; and a client with a valid key asking beside it. Used by
//! tests/redis_strangers.rs.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long a flooding connection waits for an answer before it gives up.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(20);

/// One held connection, asking one request at a time.
pub struct Held(BufReader<TcpStream>);

impl Held {
    pub fn open(addr: SocketAddr) -> io::Result<Held> {
        let stream = TcpStream::connect(addr)?;
        stream.set_read_timeout(Some(ANSWER_TIMEOUT))?;
        Ok(Held(BufReader::new(stream)))
    }

    /// GET `target` as `client` (X-Real-IP) with `key`: the status.
    pub fn ask(&mut self, target: &str, client: &str, key: &str) -> io::Result<u16> {
        let head = format!(
            "GET {target} HTTP/1.1\r\nHost: api\r\nX-Real-IP: {client}\r\n\
             Authorization: Bearer {key}\r\n\r\n"
        );
        self.0.get_mut().write_all(head.as_bytes())?;
        let (mut status, mut length, mut line) = (0u16, 0usize, String::new());
        loop {
            line.clear();
            if self.0.read_line(&mut line)? == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            let lower = line.to_ascii_lowercase();
            if status == 0 {
                status = lower
                    .split(' ')
                    .nth(1)
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
            } else if let Some(v) = lower.strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            } else if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0u8; length];
        self.0.read_exact(&mut body)?;
        Ok(status)
    }
}

/// `connections` held connections sending keys never issued as `client`
/// until `stop` is set; yields how many answers of each status came.
pub struct Flood {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<BTreeMap<u16, u64>>>,
}

impl Flood {
    pub fn start(addr: SocketAddr, client: &'static str, connections: usize) -> Flood {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..connections)
            .map(|t| {
                let stop = stop.clone();
                thread::spawn(move || {
                    let mut statuses = BTreeMap::new();
                    let mut n = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        let Ok(mut held) = Held::open(addr) else {
                            *statuses.entry(0).or_default() += 1;
                            continue;
                        };
                        while !stop.load(Ordering::Relaxed) {
                            n += 1;
                            let key = format!("ask_stranger{t:04}{n:012}");
                            match held.ask("/v1/key", client, &key) {
                                Ok(status) => *statuses.entry(status).or_default() += 1,
                                // Answered with a close, or cut: open another.
                                Err(_) => break,
                            }
                        }
                    }
                    statuses
                })
            })
            .collect();
        Flood { stop, threads }
    }

    /// Stops the flood: how many answers of each status it got.
    pub fn stop(self) -> BTreeMap<u16, u64> {
        self.stop.store(true, Ordering::Relaxed);
        let mut all = BTreeMap::new();
        for t in self.threads {
            for (status, n) in t.join().expect("a flooding thread") {
                *all.entry(status).or_default() += n;
            }
        }
        all
    }
}

/// Asks `/v1/key` with `key` as `client` on one held connection until
/// `until` passes: each answer's status and how long it took.
pub fn ask_until(
    addr: SocketAddr,
    client: &str,
    key: &str,
    until: Instant,
) -> Vec<(u16, Duration)> {
    let mut held = Held::open(addr).expect("connect");
    let mut answers = Vec::new();
    while Instant::now() < until {
        let asked = Instant::now();
        let status = held.ask("/v1/key", client, key).unwrap_or(0);
        answers.push((status, asked.elapsed()));
        if status == 0 {
            held = Held::open(addr).expect("connect");
        }
    }
    answers
}

/// The `q` quantile of `durations`, sorted in place.
pub fn quantile(durations: &mut [Duration], q: f64) -> Duration {
    durations.sort();
    let at = ((durations.len() as f64 - 1.0) * q).round() as usize;
    durations.get(at).copied().unwrap_or_default()
}
