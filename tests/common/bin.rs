//! The one way to run the built binary: a `Command` with a clean
//! environment, and a `serve` child process (its stderr lines kept, signals
//! sent to it by its own id) that is killed when dropped.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use super::Plan;
use super::client::{Reply, send};
use super::db::{fresh_db, new_key};
use super::wait::within;

/// How long `Served::logged` waits for a line to come through the pipe.
const LOG_LAG: Duration = Duration::from_secs(5);

pub const BIN: &str = env!("CARGO_BIN_EXE_area-scoring");

/// The binary with `args`, in `cwd`, with none of the service's variables
/// (or RUST_LOG) inherited, plus `env`.
pub fn command(args: &[&str], env: &[(&str, &Path)], cwd: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.args(args).current_dir(cwd);
    for var in [
        "AREA_DB",
        "AREA_KEYS",
        "AREA_ADDR",
        "AREA_WORKERS",
        "AREA_REDIS",
        "AREA_REDIS_FILE",
        "AREA_INSTANCE",
        "RUST_LOG",
    ] {
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

/// Creates a key with `keys create` in the keys file beside `db` (made if
/// missing) and checks that stdout is the key and nothing else (one line,
/// one token); returns the key.
pub fn create_key(db: &Path, plan: &str, label: &str) -> String {
    let stdout = ok(&[
        "keys",
        "create",
        "--db",
        db.to_str().unwrap(),
        "--new-keys-file",
        "--plan",
        plan,
        "--label",
        label,
    ]);
    let key = stdout.strip_suffix('\n').unwrap_or(&stdout);
    assert!(
        !key.is_empty() && !key.contains(char::is_whitespace),
        "stdout is only the key: {stdout:?}"
    );
    key.to_string()
}

/// A `serve` child process on a free port, killed when dropped.
pub struct Served {
    pub child: Child,
    pub addr: SocketAddr,
    /// Every stderr line so far.
    pub log: Arc<Mutex<Vec<String>>>,
}

impl Drop for Served {
    fn drop(&mut self) {
        // Only this child, by its own handle.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    /// Starts `serve --addr 127.0.0.1:0 --workers 2` plus `args`; checks that
    /// the first log line names the address bound.
    pub fn start(args: &[&str], env: &[(&str, &Path)], cwd: &Path) -> Served {
        let mut all = vec!["--workers", "2"];
        all.extend_from_slice(args);
        let (served, first) = Served::launch(&all, env, cwd);
        assert!(first, "the first log line names the address");
        assert_eq!(served.addr.ip().to_string(), "127.0.0.1");
        assert_ne!(served.addr.port(), 0, "the port actually bound, not 0");
        served
    }

    /// Serves `db` on a free port with `extra` arguments, from the package
    /// directory.
    pub fn spawn(db_path: &Path, extra: &[&str]) -> Served {
        let db = db_path.to_str().expect("a UTF-8 path");
        let mut all = vec!["--db", db];
        all.extend_from_slice(extra);
        Served::launch(&all, &[], Path::new(env!("CARGO_MANIFEST_DIR"))).0
    }

    /// A fresh database of its own with one key on `plan`, served with
    /// `extra` arguments: (database, key, server).
    pub fn spawn_keyed(name: &str, plan: Plan, extra: &[&str]) -> (PathBuf, String, Served) {
        let db = fresh_db(name);
        let (_, key) = new_key(&db, plan);
        let served = Served::spawn(&db, extra);
        (db, key, served)
    }

    /// Starts `serve --addr 127.0.0.1:0` plus `args` (launch_command).
    fn launch(args: &[&str], env: &[(&str, &Path)], cwd: &Path) -> (Served, bool) {
        let mut all = vec!["serve", "--addr", "127.0.0.1:0"];
        all.extend_from_slice(args);
        Served::launch_command(command(&all, env, cwd))
    }

    /// Serves `db` as `spawn` does, started under a descriptor limit of
    /// `nofile` (util-linux's prlimit, which runs the binary in its place).
    pub fn spawn_under_nofile(db_path: &Path, nofile: u32, extra: &[&str]) -> Served {
        let db = db_path.to_str().expect("a UTF-8 path");
        let limit = format!("--nofile={nofile}:{nofile}");
        let mut all = vec![limit.as_str(), "--", BIN, "serve", "--addr", "127.0.0.1:0"];
        all.extend_from_slice(&["--db", db]);
        all.extend_from_slice(extra);
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut c = Command::new("prlimit");
        c.args(&all).current_dir(dir);
        // The same environment as the binary's own command gives it.
        for (k, v) in command(&[], &[], dir).get_envs() {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
        Served::launch_command(c).0
    }

    /// Starts `c` (a `serve` on port 0) and waits up to 20 s for the line
    /// naming the address; also says whether it was the first line.
    fn launch_command(mut c: Command) -> (Served, bool) {
        let mut child = c
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the binary");
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        let kept = log.clone();
        // Keeps the pipe drained so logging never blocks the server.
        std::thread::spawn(move || {
            let mut first = true;
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some((_, rest)) = line.split_once("listening on http://") {
                    let _ = tx.send((rest.trim().to_string(), first));
                }
                first = false;
                kept.lock().unwrap().push(line);
            }
        });
        let (addr, first) = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("a 'listening on' line");
        let served = Served {
            child,
            addr: addr
                .parse()
                .unwrap_or_else(|_| panic!("an address: {addr:?}")),
            log,
        };
        (served, first)
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

    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -{name}");
    }

    /// The exit status, if the process ends within `limit`.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        within(limit, || self.child.try_wait().ok().flatten())
    }

    /// Whether the server's log holds a line with `needle`, waiting up to
    /// `LOG_LAG` for it: the effect a test saw (a count in /metrics, an
    /// answer) may come an instant before the line passes through the pipe
    /// and the thread that drains it.
    pub fn logged(&self, needle: &str) -> bool {
        self.logged_within(needle, LOG_LAG)
    }

    /// Whether a line with `needle` reaches the log within `limit`: for a
    /// line the server writes some time after the effect a test can see.
    pub fn logged_within(&self, needle: &str, limit: Duration) -> bool {
        within(limit, || {
            let log = self.log.lock().unwrap();
            log.iter().any(|l| l.contains(needle)).then_some(())
        })
        .is_some()
    }
}

/// Waits for `child` to exit, reading its peak resident memory (VmHWM, KiB)
/// as it runs: its exit status, its stderr and that peak. The child's
/// stderr must be piped and small (it is read once the child has ended).
pub fn wait_with_peak_kib(mut child: Child) -> (ExitStatus, String, u64) {
    let mut peak = 0;
    let status = loop {
        // Read before asking whether it ended: a process that has ended has no memory to read.
        if let Some(kib) = vm_hwm_kib(child.id()) {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    (status, err, peak)
}

/// The process's peak resident memory so far, in KiB.
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
