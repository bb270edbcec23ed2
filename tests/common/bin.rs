//! Running the built binary: a `Command` with a clean environment, and a
//! `serve` child process that is killed when dropped.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::client::{Reply, send};

pub const BIN: &str = env!("CARGO_BIN_EXE_area-scoring");

/// The binary with `args`, in `cwd`, with none of the service's variables
/// (or RUST_LOG) inherited, plus `env`.
pub fn command(args: &[&str], env: &[(&str, &Path)], cwd: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.args(args).current_dir(cwd);
    for var in ["AREA_DB", "AREA_ADDR", "AREA_WORKERS", "RUST_LOG"] {
        c.env_remove(var);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

pub fn run(args: &[&str], env: &[(&str, &Path)], cwd: &Path) -> Output {
    command(args, env, cwd).output().expect("run the binary")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub fn ok(args: &[&str]) -> String {
    let out = run(args, &[], Path::new("/"));
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// A `serve` child process, killed when dropped.
pub struct Served {
    child: Child,
    pub addr: SocketAddr,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    /// Starts `serve --addr 127.0.0.1:0` plus `args`; checks that the first
    /// log line names the address bound, and returns it.
    pub fn start(args: &[&str], env: &[(&str, &Path)], cwd: &Path) -> Served {
        let mut all = vec!["serve", "--addr", "127.0.0.1:0", "--workers", "2"];
        all.extend_from_slice(args);
        let mut child = command(&all, env, cwd)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stderr).lines();
            let _ = tx.send(lines.next().and_then(Result::ok).unwrap_or_default());
            // Keep the pipe drained so logging never blocks the server.
            for _ in lines {}
        });
        let first = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("a first log line");
        let mut served = Served {
            child,
            addr: "127.0.0.1:1".parse().unwrap(),
        };
        let (_, rest) = first
            .split_once("listening on http://")
            .unwrap_or_else(|| panic!("first log line: {first:?}"));
        served.addr = rest
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("an address: {first:?}"));
        assert_eq!(served.addr.ip().to_string(), "127.0.0.1");
        assert_ne!(served.addr.port(), 0, "the port actually bound, not 0");
        served
    }

    pub fn get(&self, target: &str, key: &str) -> Reply {
        let auth = format!("Bearer {key}");
        send(
            self.addr,
            "GET",
            target.as_bytes(),
            &[("Authorization", auth.as_bytes())],
        )
    }
}
