//! Keys, budgets and usage shared through Redis by servers on two "hosts"
//! (each a folder with its own dataset copy, no file in common) and an admin
//! "host" (a folder with no dataset): docs/deployment.md, "More than one host".
//!
//! These need a Redis server: `make redis-test` starts one on a free port,
//! with a password, and runs them with AREA_TEST_REDIS (its URL) and
//! AREA_TEST_REDIS_PID set. `make test` builds them and leaves them out.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use common::bin::{Served, command, text};
use common::db::{fresh_db, scratch_dir};
use common::wait::within;
use serde_json::Value;

const NEEDS: &str = "needs Redis: make redis-test";

/// The test Redis's URL with its password, on database `db` of its own, so
/// each test starts from an empty Redis.
fn redis_url(db: u8) -> String {
    let url = std::env::var("AREA_TEST_REDIS").expect("AREA_TEST_REDIS names the test Redis");
    let url = format!("{}/{db}", url.trim_end_matches('/'));
    let info = area_scoring::access::redis::url::RedisUrl::parse(&url).unwrap();
    let mut conn = redis::Client::open(info.connection_info())
        .and_then(|c| c.get_connection())
        .expect("the test Redis answers");
    redis::cmd("FLUSHDB").query::<()>(&mut conn).unwrap();
    url
}

fn password() -> String {
    let url = std::env::var("AREA_TEST_REDIS").unwrap();
    let info = area_scoring::access::redis::url::RedisUrl::parse(&url).unwrap();
    info.password
        .expect("the test Redis has a password")
        .expose()
        .to_string()
}

/// Two servers, each in its own folder with its own dataset copy, and an
/// admin folder with nothing in it, all naming one Redis.
struct Hosts {
    url: String,
    admin: PathBuf,
    dirs: [PathBuf; 2],
    servers: [Served; 2],
}

impl Hosts {
    fn start(name: &str, db: u8) -> Hosts {
        let url = redis_url(db);
        let dirs = [
            host_dir(&format!("{name}-a")),
            host_dir(&format!("{name}-b")),
        ];
        let servers = [serve(&dirs[0], &url), serve(&dirs[1], &url)];
        Hosts {
            url,
            admin: scratch_dir(&format!("{name}-admin")),
            dirs,
            servers,
        }
    }

    /// A command run from the admin folder; fails the test unless it exits 0.
    fn admin(&self, args: &[&str]) -> String {
        let out = admin_run(&self.url, &self.admin, args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        text(&out.stdout)
    }

    fn create_key(&self, plan: &str) -> (String, String) {
        let out = admin_run(&self.url, &self.admin, &["keys", "create", "--plan", plan]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let key = text(&out.stdout).trim().to_string();
        let said = text(&out.stderr);
        let id = said
            .split_whitespace()
            .find(|w| w.starts_with("key_"))
            .expect("the id is said")
            .to_string();
        (id, key)
    }

    /// ok requests of `id` today, as `keys usage` reads them from Redis.
    fn usage_ok(&self, id: &str) -> u64 {
        let rows: Value =
            serde_json::from_str(&self.admin(&["keys", "usage", "--key", id, "--format", "json"]))
                .unwrap();
        rows.as_array()
            .unwrap()
            .iter()
            .map(|r| r["ok"].as_u64().unwrap())
            .sum()
    }
}

fn host_dir(name: &str) -> PathBuf {
    fresh_db(name).parent().unwrap().to_path_buf()
}

fn serve(dir: &Path, url: &str) -> Served {
    Served::start(
        &["--db", "areas.db"],
        &[("AREA_REDIS", Path::new(url))],
        dir,
    )
}

fn admin_run(url: &str, dir: &Path, args: &[&str]) -> Output {
    command(args, &[("AREA_REDIS", Path::new(url))], dir)
        .output()
        .expect("run the binary")
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
#[ignore = "needs Redis: make redis-test"]
fn a_key_made_on_the_admin_host_works_on_both_and_a_revoke_and_plans_set_reach_both() {
    let _ = NEEDS;
    let hosts = Hosts::start("reach", 1);
    let (id, key) = hosts.create_key("starter");
    let made = Instant::now();
    for s in &hosts.servers {
        let took = within(Duration::from_secs(2), || {
            (s.get("/v1/key", &key).status == 200).then(Instant::now)
        })
        .expect("the key works on both servers");
        assert!(
            took - made <= Duration::from_secs(1),
            "in force after {:?}",
            took - made
        );
    }
    hosts.admin(&["plans", "set", "starter", "--rpm", "7"]);
    let set = Instant::now();
    for s in &hosts.servers {
        let took = within(Duration::from_secs(2), || {
            let r = s.get("/v1/key", &key);
            (r.json()["rate_limit"]["requests_per_minute"] == 7).then(Instant::now)
        })
        .expect("plans set reaches both");
        assert!(
            took - set <= Duration::from_secs(1),
            "after {:?}",
            took - set
        );
    }
    hosts.admin(&["keys", "revoke", &id]);
    let revoked = Instant::now();
    for s in &hosts.servers {
        let took = within(Duration::from_secs(2), || {
            (s.get("/v1/key", &key).status == 401).then(Instant::now)
        })
        .expect("the revoke reaches both");
        assert!(
            took - revoked <= Duration::from_secs(1),
            "after {:?}",
            took - revoked
        );
    }
    let listed = hosts.admin(&["keys", "list"]);
    assert!(
        listed.starts_with(&format!("{id}\tstarter\t-\t")),
        "{listed}"
    );
    assert!(!listed.contains(&key), "only hashes are kept");
    assert!(
        files_in(&hosts.admin).is_empty(),
        "the admin host needs no file: {:?}",
        files_in(&hosts.admin)
    );
    for dir in &hosts.dirs {
        assert!(
            !dir.join("keys.db").exists(),
            "no keys file is made with Redis"
        );
    }
    hosts.admin(&["init", "--db", "new/areas.db"]);
    assert!(hosts.admin.join("new/areas.db").exists());
    assert!(
        !hosts.admin.join("new/keys.db").exists(),
        "init makes no keys file with Redis"
    );
}

/// Sends `count` requests in turn to the servers, `gap` apart (the bounds
/// are of the time they actually took); returns how many were answered 200
/// and the seconds it took.
fn alternate(servers: &[Served; 2], key: &str, count: usize, gap: Duration) -> (usize, f64) {
    let started = Instant::now();
    let ok = (0..count)
        .filter(|i| {
            std::thread::sleep(gap);
            servers[i % 2].get("/v1/key", key).status == 200
        })
        .count();
    (ok, started.elapsed().as_secs_f64())
}

/// The bound for a full bucket of `capacity` a minute, `seconds`
/// long, over `n` servers: 0.98·B − N ..= B + N, B = C·(1 + W/60).
fn bounds(capacity: f64, seconds: f64, n: f64) -> (f64, f64) {
    let b = capacity * (1.0 + seconds / 60.0);
    (0.98 * b - n, b + n)
}

#[test]
#[ignore = "needs Redis: make redis-test"]
fn one_budget_per_key_across_both_servers() {
    let hosts = Hosts::start("budget", 2);
    let (_, free) = hosts.create_key("free");
    // The bucket starts full with the first request: W is counted from here.
    let first = Instant::now();
    for s in &hosts.servers {
        common::wait::key_in_force(s.addr, &free);
    }
    // key_in_force took one request on each.
    let (ok, _) = alternate(&hosts.servers, &free, 198, Duration::from_millis(10));
    let (ok, seconds) = (ok + 2, first.elapsed().as_secs_f64());
    let (low, high) = bounds(60.0, seconds, 2.0);
    eprintln!(
        "free: {ok} of 200 answered 200 in {seconds:.2} s over 2 servers (bounds {low:.1}..{high:.1})"
    );
    assert!(
        (low..=high).contains(&(ok as f64)),
        "free: {ok} in {seconds:.2} s"
    );
    if seconds <= 3.0 {
        assert!((55..=64).contains(&ok), "free: {ok}");
    }

    hosts.admin(&["plans", "set", "starter", "--rpm", "5"]);
    let (_, starter) = hosts.create_key("starter");
    for s in &hosts.servers {
        within(Duration::from_secs(2), || {
            (s.get("/v1/key", &starter).json()["rate_limit"]["requests_per_minute"] == 5)
                .then_some(())
        })
        .expect("starter at 5 a minute on both");
    }
    let (ok, seconds) = alternate(&hosts.servers, &starter, 28, Duration::ZERO);
    let ok = ok + 2;
    eprintln!("starter at 5/min: {ok} of 30 answered 200 in {seconds:.2} s");
    assert!(
        ok <= 7 && ok as f64 <= bounds(5.0, seconds, 2.0).1,
        "starter: {ok}"
    );
    // A plan large enough that servers lease tokens a few at a time keeps
    // within the same bounds.
    hosts.admin(&["plans", "set", "growth", "--rpm", "2000"]);
    let (_, growth) = hosts.create_key("growth");
    let first = Instant::now();
    for s in &hosts.servers {
        within(Duration::from_secs(2), || {
            (s.get("/v1/key", &growth).json()["rate_limit"]["requests_per_minute"] == 2000)
                .then_some(())
        })
        .expect("growth at 2000 a minute on both");
    }
    let (ok, _) = alternate(&hosts.servers, &growth, 2398, Duration::ZERO);
    let (ok, seconds) = (ok + 2, first.elapsed().as_secs_f64());
    let (low, high) = bounds(2000.0, seconds, 2.0);
    eprintln!(
        "growth at 2000/min: {ok} of 2400 answered 200 in {seconds:.2} s (bounds {low:.1}..{high:.1})"
    );
    assert!(
        (low..=high).contains(&(ok as f64)),
        "growth: {ok} in {seconds:.2} s"
    );
    // Refusals keep their headers.
    let refused = hosts.servers[0].get("/v1/key", &starter);
    assert_eq!(refused.status, 429);
    assert!(
        refused.header("Retry-After").is_some() && refused.header("X-RateLimit-Limit") == Some("5")
    );
}

#[test]
#[ignore = "needs Redis: make redis-test"]
fn usage_of_both_servers_adds_up_and_survives_sigterm_and_kill_9() {
    let mut hosts = Hosts::start("usage", 3);
    let (id, key) = hosts.create_key("enterprise");
    for (server, n) in [(0, 25), (1, 15)] {
        let s = &hosts.servers[server];
        common::wait::key_in_force(s.addr, &key);
        for _ in 1..n {
            assert_eq!(s.get("/v1/key", &key).status, 200);
        }
    }
    within(Duration::from_secs(3), || {
        (hosts.usage_ok(&id) == 40).then_some(())
    })
    .unwrap_or_else(|| panic!("40 within 3 s, read {}", hosts.usage_ok(&id)));
    let listed = hosts.admin(&["keys", "list"]);
    assert!(listed.trim_end().ends_with("\t40"), "{listed}");
    let today = hosts.servers[1].get("/v1/key", &key).json();
    assert!(
        today["usage_today"]["ok"].as_u64().unwrap() >= 40,
        "{today}"
    );

    // SIGTERM: the last counts are added as the server stops.
    for s in &hosts.servers {
        for _ in 0..5 {
            assert_eq!(s.get("/v1/key", &key).status, 200);
        }
    }
    for s in &mut hosts.servers {
        s.signal("TERM");
        assert!(
            s.wait_exit(Duration::from_secs(6))
                .is_some_and(|e| e.success())
        );
    }
    // /v1/key on server 1 above was one more.
    assert_eq!(hosts.usage_ok(&id), 51);

    // kill -9 loses at most what came after the last flush.
    let s = serve(&hosts.dirs[0], &hosts.url);
    for _ in 0..10 {
        assert_eq!(s.get("/v1/key", &key).status, 200);
    }
    within(Duration::from_secs(3), || {
        (hosts.usage_ok(&id) == 61).then_some(())
    })
    .expect("a running server's counts within 3 s");
    for _ in 0..5 {
        assert_eq!(s.get("/v1/key", &key).status, 200);
    }
    s.signal("KILL");
    let after = hosts.usage_ok(&id);
    assert!((61..=66).contains(&after), "{after}");
}

#[test]
#[ignore = "needs Redis: make redis-test"]
fn a_stalled_redis_fails_no_request_and_its_seconds_are_counted_once() {
    let hosts = Hosts::start("stall", 4);
    let (id, key) = hosts.create_key("growth");
    hosts.admin(&["plans", "set", "growth", "--rpm", "1000000"]);
    // Every request sent is counted here, to compare with what Redis adds up.
    let sent = std::cell::Cell::new(0u64);
    for s in &hosts.servers {
        within(Duration::from_secs(2), || {
            let reply = s.get("/v1/key", &key);
            sent.set(sent.get() + u64::from(reply.status != 401));
            (reply.json()["rate_limit"]["requests_per_minute"] == 1_000_000).then_some(())
        })
        .expect("growth unlimited in practice");
    }
    let before = sent.get();
    within(Duration::from_secs(3), || {
        (hosts.usage_ok(&id) == before).then_some(())
    })
    .expect("the first requests counted");
    let pid = std::env::var("AREA_TEST_REDIS_PID").expect("AREA_TEST_REDIS_PID");
    let kill = |sig: &str| {
        assert!(
            std::process::Command::new("kill")
                .args([sig, &pid])
                .status()
                .unwrap()
                .success()
        )
    };
    kill("-STOP");
    let stopped = Instant::now();
    let (mut sent, mut failed, mut slowest) = (0u64, 0u64, Duration::ZERO);
    while stopped.elapsed() < Duration::from_secs(5) {
        let s = &hosts.servers[sent as usize % 2];
        let asked = Instant::now();
        let reply = s.get("/v1/key", &key);
        slowest = slowest.max(asked.elapsed());
        sent += 1;
        failed += u64::from(reply.status != 200);
    }
    kill("-CONT");
    eprintln!("Redis stopped 5 s: {sent} requests, {failed} failed, slowest {slowest:?}");
    assert_eq!(failed, 0);
    assert!(slowest <= Duration::from_millis(500), "slowest {slowest:?}");
    let want = before + sent;
    within(Duration::from_secs(8), || {
        (hosts.usage_ok(&id) >= want).then_some(())
    })
    .unwrap_or_else(|| panic!("{want} counted after SIGCONT, read {}", hosts.usage_ok(&id)));
    // Two more flush periods: a flush that timed out and was sent again, or
    // arrived late, is not counted twice.
    std::thread::sleep(Duration::from_secs(5));
    assert_eq!(hosts.usage_ok(&id), want, "each request counted once");
    let metrics =
        String::from_utf8_lossy(&hosts.servers[0].get("/metrics", &key).body).into_owned();
    assert!(metrics.contains("area_redis_up 1"), "{metrics}");
    assert!(
        !metrics.contains("area_rate_limit_local_total 0\n"),
        "fallbacks counted: {metrics}"
    );
}

#[test]
#[ignore = "needs Redis: make redis-test"]
fn a_server_started_while_redis_is_away_serves_its_snapshot() {
    let mut hosts = Hosts::start("snapshot", 5);
    // Used only while Redis is away: its usage goes through the spool.
    let (spooled_id, spooled) = hosts.create_key("growth");
    let (_, key) = hosts.create_key("growth");
    common::wait::key_in_force(hosts.servers[0].addr, &key);
    let snapshot = hosts.dirs[0].join("keys.db.redis-snapshot");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&snapshot).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the snapshot is private");
    for s in &mut hosts.servers {
        s.signal("KILL");
        assert!(s.wait_exit(Duration::from_secs(5)).is_some());
    }
    // Nothing listens on port 1: Redis is away.
    let away = format!("redis://:{}@127.0.0.1:1/5", password());
    let s = serve(&hosts.dirs[0], &away);
    assert_eq!(s.get("/v1/key", &key).status, 200);
    assert!(s.logged("may be stale"));
    // Usage counted while Redis is away waits in a 0600 spool at shutdown,
    // and the next start with Redis adds it once.
    for _ in 0..5 {
        assert_eq!(s.get("/v1/key", &spooled).status, 200);
    }
    let mut s = s;
    s.signal("TERM");
    assert!(s.wait_exit(Duration::from_secs(6)).is_some());
    let spool = hosts.dirs[0].join("keys.db.usage-spool");
    let mode = std::fs::metadata(&spool).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the spool is private");
    let back = serve(&hosts.dirs[0], &hosts.url);
    within(Duration::from_secs(3), || {
        (hosts.usage_ok(&spooled_id) == 5).then_some(())
    })
    .unwrap_or_else(|| panic!("the spool added, read {}", hosts.usage_ok(&spooled_id)));
    assert!(within(Duration::from_secs(3), || (!spool.exists()).then_some(())).is_some());
    drop(back);
    assert_eq!(hosts.usage_ok(&spooled_id), 5, "added once");
    // The CLI gives up with a clear message, naming no password.
    let out = admin_run(&away, &hosts.admin, &["keys", "list"]);
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out.stderr);
    assert!(
        said.contains("Redis at redis://:***@127.0.0.1:1/5"),
        "{said}"
    );
    assert!(!said.contains(&password()));
}

#[test]
#[ignore = "needs Redis: make redis-test"]
fn a_keys_file_migrates_once_however_often_it_is_run_and_backs_up() {
    let url = redis_url(6);
    // A keys file and usage file made by the embedded set-up.
    let old = host_dir("migrate-old");
    let (kept_id, kept) = keys_file_key(&old, "growth");
    let (gone_id, gone) = keys_file_key(&old, "free");
    let plain = Served::start(&["--db", "areas.db"], &[], &old);
    for _ in 0..3 {
        assert_eq!(plain.get("/v1/key", &kept).status, 200);
    }
    let mut plain = plain;
    plain.signal("TERM");
    assert!(plain.wait_exit(Duration::from_secs(6)).is_some());
    let out = command(&["keys", "revoke", &gone_id, "--db", "areas.db"], &[], &old)
        .output()
        .unwrap();
    assert!(out.status.success());
    let migrate = || {
        let out = admin_run(&url, &old, &["keys", "migrate", "--db", "areas.db"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stderr)
    };
    let first = migrate();
    assert!(
        first.contains("2 new in Redis") && first.contains("3 requests added"),
        "{first}"
    );
    assert!(old.join("keys.db.migrated").exists() && !old.join("keys.db").exists());
    let listed = |dir: &Path| text(&admin_run(&url, dir, &["keys", "list"]).stdout);
    let usage = |dir: &Path| text(&admin_run(&url, dir, &["keys", "usage"]).stdout);
    let (list1, usage1) = (listed(&old), usage(&old));
    let second = migrate();
    assert!(
        second.contains("0 new in Redis") && second.contains("in Redis already"),
        "{second}"
    );
    assert_eq!((listed(&old), usage(&old)), (list1.clone(), usage1));
    assert!(
        list1.contains(&kept_id) && list1.contains(&gone_id),
        "{list1}"
    );

    let host = host_dir("migrate-new");
    let s = serve(&host, &url);
    assert_eq!(s.get("/v1/key", &kept).status, 200);
    assert_eq!(s.get("/v1/key", &gone).status, 401, "a revocation migrates");

    // backup DIR with Redis writes files the embedded set-up serves.
    let backup = scratch_dir("migrate-backup");
    let out = admin_run(&url, &backup, &["backup", "out"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(files_in(&backup.join("out")), ["keys-usage.db", "keys.db"]);
    std::fs::copy(host.join("areas.db"), backup.join("out/areas.db")).unwrap();
    let restored = Served::start(&["--db", "out/areas.db"], &[], &backup);
    assert_eq!(restored.get("/v1/key", &kept).status, 200);
    assert_eq!(restored.get("/v1/key", &gone).status, 401);
}

fn keys_file_key(dir: &Path, plan: &str) -> (String, String) {
    let out = command(
        &["keys", "create", "--db", "areas.db", "--plan", plan],
        &[],
        dir,
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stderr);
    let id = said
        .split_whitespace()
        .find(|w| w.starts_with("key_"))
        .unwrap()
        .to_string();
    (id, text(&out.stdout).trim().to_string())
}

#[test]
#[ignore = "needs Redis: make redis-test"]
fn the_password_shows_nowhere() {
    let hosts = Hosts::start("secret", 7);
    let password = password();
    let (_, key) = hosts.create_key("growth");
    common::wait::key_in_force(hosts.servers[0].addr, &key);
    let metrics =
        String::from_utf8_lossy(&hosts.servers[0].get("/metrics", &key).body).into_owned();
    assert!(metrics.contains("area_redis_up 1"), "{metrics}");
    let errors = [
        admin_run(
            &hosts.url,
            &hosts.admin,
            &["keys", "revoke", "key_000000000000"],
        ),
        admin_run(
            &hosts.url,
            &hosts.admin,
            &["keys", "list", "--redis", &hosts.url],
        ),
        admin_run(
            &hosts.url,
            &hosts.admin,
            &["import", &format!("--redix={}", hosts.url)],
        ),
        admin_run(&hosts.url, &hosts.admin, &["--help"]),
        admin_run(&hosts.url, &hosts.admin, &["serve", "--help"]),
    ];
    assert!(!errors[0].status.success() && !errors[1].status.success());
    for s in &hosts.servers {
        let argv = std::fs::read(format!("/proc/{}/cmdline", s.child.id())).unwrap();
        assert!(!String::from_utf8_lossy(&argv).contains(&password));
    }
    let mut seen = vec![metrics];
    seen.extend(errors.iter().map(|o| text(&o.stderr) + &text(&o.stdout)));
    for s in &hosts.servers {
        seen.extend(s.log.lock().unwrap().iter().cloned());
    }
    assert!(
        seen.iter().any(|t| t.contains("Redis")),
        "something names Redis"
    );
    for t in &seen {
        assert!(!t.contains(&password), "the password shows: {t}");
    }
}
