//! A keys file held locked by another connection holds up no request
//! (docs/operations.md "Keys"), against the real binary: while a change
//! waits behind an exclusive lock and made-up keys arrive from more clients
//! than the server has workers, a valid key and `/healthz` are answered at
//! once, the made-up keys get 401, and the change is read once the lock is
//! gone.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use area_scoring::access::keys;
use rusqlite::Connection;

use crate::common::bin::Served;
use crate::common::client::{Reply, get};
use crate::common::wait::key_in_force;
use crate::common::{Plan, assert_error_shape, fresh_db, keys_path, new_key};
use crate::serial;

/// How long the keys file stays locked: longer than SQLite's usual busy
/// timeouts, so that any wait on the file shows.
const LOCK_HELD: Duration = Duration::from_secs(10);
const WORKERS: usize = 4;
/// Clients sending made-up keys at once: more than the workers.
const SENDERS: usize = 8;
const MADE_UP: usize = 50;
/// What the valid key asks for: a route that reads the dataset, and one that
/// reads the usage file.
const VALID_KEYS_ROUTES: [&str; 2] = ["/v1/areas?limit=1", "/v1/key"];
/// What "at once" is allowed on a loaded machine: a wait on the lock would
/// be its whole length.
const PROMPT: Duration = Duration::from_secs(1);

/// Commits a new key to the keys file and, in the same breath, takes an
/// exclusive lock on it, as a long hand-edit or a backup tool would: the
/// server sees the file changed but cannot read it. Returns the key and the
/// connection holding the lock.
fn change_then_lock(keys_file: &Path) -> (String, Connection) {
    let conn = Connection::open(keys_file).unwrap();
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    let (_, key) = keys::create(&conn, Plan::Growth, "made before the lock").unwrap();
    conn.execute_batch("COMMIT; BEGIN EXCLUSIVE").unwrap();
    (key, conn)
}

fn made_up(n: usize) -> String {
    format!("ask_{n:048x}")
}

fn timed(ask: impl FnOnce() -> Reply) -> (Reply, Duration) {
    let asked = Instant::now();
    let reply = ask();
    (reply, asked.elapsed())
}

/// One client's share of the made-up keys, spread over the lock: each is
/// refused with 401, promptly.
fn send_made_up(addr: SocketAddr, client: usize) {
    let share: Vec<usize> = (client..MADE_UP).step_by(SENDERS).collect();
    let pace = LOCK_HELD / (share.len() as u32 + 1);
    for n in share {
        let (reply, took) = timed(|| get(addr, "/v1/key", Some(&made_up(n))));
        assert_error_shape(&reply, 401, "invalid_api_key");
        assert!(took < PROMPT, "made-up key {n} answered after {took:?}");
        std::thread::sleep(pace);
    }
}

#[test]
fn a_locked_keys_file_holds_up_no_valid_key_and_no_health_check() {
    let _serial = serial();
    let db = fresh_db("keys-lock");
    let (_, valid) = new_key(&db, Plan::Growth);
    let server = Served::spawn(&db, &["--workers", &WORKERS.to_string()]);
    let addr = server.addr;
    key_in_force(addr, &valid);
    let (made_before, lock) = change_then_lock(&keys_path(&db));
    let locked = Instant::now();
    // The server cannot have read the change: else the lock tests nothing.
    let refused = get(addr, "/v1/key", Some(&made_before));
    assert_eq!(refused.status, 401, "the change was read before the lock");
    let (mut slowest_valid, mut slowest_health) = (Duration::ZERO, Duration::ZERO);
    std::thread::scope(|s| {
        for client in 0..SENDERS {
            s.spawn(move || send_made_up(addr, client));
        }
        for route in VALID_KEYS_ROUTES.iter().cycle() {
            if locked.elapsed() >= LOCK_HELD {
                break;
            }
            let (reply, took) = timed(|| get(addr, route, Some(&valid)));
            assert_eq!(reply.status, 200, "{}", reply.text());
            slowest_valid = slowest_valid.max(took);
            let (reply, took) = timed(|| get(addr, "/healthz", None));
            assert_eq!(reply.status, 200, "{}", reply.text());
            slowest_health = slowest_health.max(took);
            assert!(
                slowest_valid < PROMPT && slowest_health < PROMPT,
                "while locked, a valid key took {slowest_valid:?}, /healthz {slowest_health:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    lock.execute_batch("ROLLBACK").unwrap();
    let released = Instant::now();
    drop(lock);
    key_in_force(addr, &made_before);
    eprintln!(
        "locked {:?}: slowest valid key {slowest_valid:?}, slowest /healthz {slowest_health:?}; \
         the key made before the lock in force {:?} after",
        released - locked,
        released.elapsed()
    );
    let said: Vec<String> = server.log.lock().unwrap().clone();
    let waits = said
        .iter()
        .filter(|l| l.contains("holds it locked"))
        .count();
    assert_eq!(
        waits, 1,
        "the lock is logged once, not each tick: {said:#?}"
    );
    assert!(server.logged("no longer locked"), "and its end");
}
