//! Keys, budgets and usage shared through Redis by servers on two "hosts"
//! and an admin "host" (tests/common/redis_hosts.rs; docs/deployment.md,
//! "More than one host"): a key, a revoke and `plans set` reach both within
//! 1 s, one budget per key, usage added once through SIGTERM, kill -9 and a
//! stalled Redis.
//!
//! These need a Redis server: `make redis-test` starts one on a free port,
//! with a password, and runs them with AREA_TEST_REDIS (its URL) and
//! AREA_TEST_REDIS_PID set. `make test` builds them and leaves them out.

use crate::common::redis_hosts;

use std::time::{Duration, Instant};

use crate::common::bin::Served;
use crate::common::wait::within;
use redis_hosts::*;

#[test]
#[ignore = "needs Redis: make redis-test"]
fn a_key_made_on_the_admin_host_works_on_both_and_a_revoke_and_plans_set_reach_both() {
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
    // A key made a moment ago works on its very first request on either
    // server, not only once the watch has seen it.
    for round in 0..5 {
        let (_, fresh) = hosts.create_key("growth");
        let s = &hosts.servers[round % 2];
        let first = s.get("/v1/areas?limit=1", &fresh);
        assert_eq!(first.status, 200, "round {round}: {}", first.text());
    }
    let all = hosts.admin(&["keys", "list"]);
    assert!(!all.contains(&key), "only hashes are kept");
    let listed = all.lines().find(|l| l.starts_with(&id)).unwrap_or_default();
    assert!(listed.starts_with(&format!("{id}\tstarter\t-\t")), "{all}");
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
            servers[i % 2].get("/v1/areas?limit=1", key).status == 200
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
    for s in &hosts.servers {
        crate::common::wait::key_in_force(s.addr, &free);
    }
    // key_in_force asked GET /v1/key, which spends nothing: the bucket
    // starts full with the first request that does, and W is counted from it.
    let first = Instant::now();
    let (ok, _) = alternate(&hosts.servers, &free, 200, Duration::from_millis(10));
    let seconds = first.elapsed().as_secs_f64();
    let (low, high) = bounds(60.0, seconds, 2.0);
    eprintln!(
        "free: {ok} of 200 answered 200 in {seconds:.2} s over 2 servers (bounds {low:.1}..{high:.1})"
    );
    assert!(
        (low..=high).contains(&(ok as f64)),
        "free: {ok} in {seconds:.2} s; {}",
        said_of_redis(&hosts)
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
    let (ok, seconds) = alternate(&hosts.servers, &starter, 30, Duration::ZERO);
    eprintln!("starter at 5/min: {ok} of 30 answered 200 in {seconds:.2} s");
    assert!(
        ok <= 7 && ok as f64 <= bounds(5.0, seconds, 2.0).1,
        "starter: {ok}"
    );
    // A plan large enough that servers lease tokens a few at a time keeps
    // within the same bounds.
    hosts.admin(&["plans", "set", "growth", "--rpm", "2000"]);
    let (_, growth) = hosts.create_key("growth");
    for s in &hosts.servers {
        within(Duration::from_secs(2), || {
            (s.get("/v1/key", &growth).json()["rate_limit"]["requests_per_minute"] == 2000)
                .then_some(())
        })
        .expect("growth at 2000 a minute on both");
    }
    let first = Instant::now();
    let (ok, _) = alternate(&hosts.servers, &growth, 2400, Duration::ZERO);
    let seconds = first.elapsed().as_secs_f64();
    let (low, high) = bounds(2000.0, seconds, 2.0);
    eprintln!(
        "growth at 2000/min: {ok} of 2400 answered 200 in {seconds:.2} s (bounds {low:.1}..{high:.1})"
    );
    assert!(
        (low..=high).contains(&(ok as f64)),
        "growth: {ok} in {seconds:.2} s"
    );
    // Refusals keep their headers.
    let refused = hosts.servers[0].get("/v1/areas?limit=1", &starter);
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
        crate::common::wait::key_in_force(s.addr, &key);
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
    // A free key used during the stall: what its own bucket lets through
    // meanwhile is taken from the shared one once Redis is back.
    let (_, free) = hosts.create_key("free");
    let free_first = Instant::now();
    for s in &hosts.servers {
        crate::common::wait::key_in_force(s.addr, &free);
    }
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
        // A request that spends: its budget is the one Redis holds.
        let reply = s.get("/v1/areas?limit=1", &key);
        slowest = slowest.max(asked.elapsed());
        sent += 1;
        failed += u64::from(reply.status != 200);
        if sent <= 60 && sent % 2 == 0 {
            let asked = Instant::now();
            failed += u64::from(hosts.servers[0].get("/v1/areas?limit=1", &free).status != 200);
            slowest = slowest.max(asked.elapsed());
        }
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
    // 30 of the free key's 60 were used (key_in_force's GET /v1/key spends
    // nothing): 30 are left, plus the refill.
    let ok = (0..60)
        .filter(|i| hosts.servers[i % 2].get("/v1/areas?limit=1", &free).status == 200)
        .count();
    let most = 60.0 - 30.0 + free_first.elapsed().as_secs_f64() + 2.0;
    eprintln!("free key after the stall: {ok} of 60 answered 200 (at most {most:.1})");
    assert!(
        ok as f64 <= most,
        "{ok}: the stall's requests were taken from the shared bucket"
    );
    let metrics =
        String::from_utf8_lossy(&hosts.servers[0].get("/metrics", &key).body).into_owned();
    assert!(metrics.contains("area_redis_up 1"), "{metrics}");
    assert!(
        !metrics.contains("area_rate_limit_local_total 0\n"),
        "fallbacks counted: {metrics}"
    );
}

/// What the servers logged about Redis, to show with a failure.
fn said_of_redis(hosts: &Hosts) -> String {
    let lines: Vec<String> = hosts
        .servers
        .iter()
        .flat_map(|s| s.log.lock().unwrap().clone())
        .filter(|l| l.contains("Redis"))
        .collect();
    lines.join("\n")
}
