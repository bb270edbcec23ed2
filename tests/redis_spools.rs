//! Replicas sharing one folder (deploy/area-scoring@.service) while Redis is
//! away: each spools its usage to a file of its own, named by
//! AREA_INSTANCE; every spool is added once, by whichever server finds it
//! first once Redis answers, whether it starts then or runs on; a spool of
//! garbage is moved aside and logged, and does not stop a start.
//!
//! These need a Redis server: `make redis-test` starts one on a free port.

use crate::common::cut_proxy;
use crate::common::redis_hosts;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::bin::Served;
use crate::common::wait::within;
use cut_proxy::{CutProxy, url_addr};
use redis_hosts::*;

/// A replica of the folder `dir` named `instance`, with Redis at `url`.
fn replica(dir: &Path, url: &str, instance: &str) -> Served {
    let file = url_file(&as_user(url, SERVER_USER));
    let env = [
        ("AREA_REDIS_FILE", file.as_path()),
        ("AREA_INSTANCE", Path::new(instance)),
    ];
    Served::start(&["--db", "areas.db"], &env, dir)
}

fn spool(dir: &Path, instance: &str) -> PathBuf {
    dir.join(format!("keys.db.usage-spool@{instance}"))
}

/// The spools, files taken from them and those moved aside in `dir`; not
/// the locks of the servers running.
fn spools_in(dir: &Path) -> Vec<String> {
    let mut found = files_in(dir);
    found.retain(|n| n.contains("usage-spool") && !n.ends_with(".lock"));
    found
}

fn stop(servers: &mut [Served]) {
    // All signalled before any is waited for: they spool at the same moment.
    for s in servers.iter() {
        s.signal("TERM");
    }
    for s in servers.iter_mut() {
        let exit = s.wait_exit(Duration::from_secs(6));
        assert!(
            exit.is_some_and(|e| e.success()),
            "{:?}",
            s.log.lock().unwrap()
        );
    }
}

#[test]
#[ignore = "needs Redis: make redis-test"]
fn replicas_spooling_at_once_are_each_counted_once() {
    let url = redis_url(9);
    let proxy = CutProxy::start(url_addr(&url));
    let dir = host_dir("spools-at-once");
    let mut servers = [
        replica(&dir, &proxy.in_url(&url), "8081"),
        replica(&dir, &proxy.in_url(&url), "8082"),
    ];
    let admin = crate::common::db::scratch_dir("spools-at-once-admin");
    let (id, key) = create_key_at(&url, &admin, "enterprise");
    let usage_ok = || ok_of(&url, &admin, &id);
    for s in &servers {
        crate::common::wait::key_in_force(s.addr, &key);
    }
    within(Duration::from_secs(3), || (usage_ok() == 2).then_some(()))
        .expect("the first requests in Redis");

    proxy.cut();
    for s in &servers {
        within(Duration::from_secs(3), || {
            let metrics = crate::common::client::get(s.addr, "/metrics", None).body;
            String::from_utf8_lossy(&metrics)
                .contains("area_redis_up 0\n")
                .then_some(())
        })
        .expect("each replica notices Redis is away");
    }
    let mut made = 2;
    for (s, n) in servers.iter().zip([7, 11]) {
        for _ in 0..n {
            assert_eq!(s.get("/v1/key", &key).status, 200);
        }
        made += n;
    }
    stop(&mut servers);
    for instance in ["8081", "8082"] {
        let path = spool(&dir, instance);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{} is private", path.display());
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            serde_json::from_str::<serde_json::Value>(&text).is_ok(),
            "{text}"
        );
    }
    assert_eq!(
        spools_in(&dir),
        ["keys.db.usage-spool@8081", "keys.db.usage-spool@8082"],
        "one spool each, no temporary left"
    );
    let locks: Vec<String> = files_in(&dir)
        .into_iter()
        .filter(|n| n.ends_with(".lock"))
        .collect();
    assert!(
        locks.is_empty(),
        "a server that stopped holds nothing: {locks:?}"
    );

    // Redis is back; two replicas start at the same moment, and each spool
    // is added by one of them.
    proxy.restore();
    let back = [replica(&dir, &url, "8081"), replica(&dir, &url, "8083")];
    within(Duration::from_secs(5), || {
        (usage_ok() == made).then_some(())
    })
    .unwrap_or_else(|| panic!("{made} requests in Redis, read {}", usage_ok()));
    within(Duration::from_secs(3), || {
        spools_in(&dir).is_empty().then_some(())
    })
    .unwrap_or_else(|| panic!("the spools go once sent: {:?}", spools_in(&dir)));
    drop(back);
    assert_eq!(usage_ok(), made, "each request counted once");
}

#[test]
#[ignore = "needs Redis: make redis-test"]
fn a_running_replica_adds_the_spool_of_one_that_stopped_once_redis_is_back() {
    let url = redis_url(15);
    let proxy = CutProxy::start(url_addr(&url));
    let dir = host_dir("spools-left");
    let staying = replica(&dir, &proxy.in_url(&url), "8081");
    let mut leaving = [replica(&dir, &proxy.in_url(&url), "8082")];
    let admin = crate::common::db::scratch_dir("spools-left-admin");
    let (id, key) = create_key_at(&url, &admin, "enterprise");
    crate::common::wait::key_in_force(staying.addr, &key);
    crate::common::wait::key_in_force(leaving[0].addr, &key);

    proxy.cut();
    for _ in 0..6 {
        assert_eq!(leaving[0].get("/v1/key", &key).status, 200);
        assert_eq!(staying.get("/v1/key", &key).status, 200);
    }
    stop(&mut leaving);
    assert!(spool(&dir, "8082").exists());
    // The replica that stopped never comes back: the one running adds its
    // spool with its own counts once Redis answers.
    proxy.restore();
    within(Duration::from_secs(6), || {
        (ok_of(&url, &admin, &id) == 14).then_some(())
    })
    .unwrap_or_else(|| panic!("14 in Redis, read {}", ok_of(&url, &admin, &id)));
    assert!(spools_in(&dir).is_empty(), "{:?}", spools_in(&dir));
    assert!(staying.logged("keys.db.usage-spool@8082 is taken by this server"));
    let mut staying = [staying];
    stop(&mut staying);
    assert_eq!(ok_of(&url, &admin, &id), 14, "counted once");
}

#[test]
#[ignore = "needs Redis: make redis-test"]
fn a_spool_of_garbage_is_moved_aside_and_logged_and_the_server_starts() {
    let url = redis_url(0);
    let dir = host_dir("spools-garbage");
    std::fs::write(spool(&dir, "8082"), "[{\"server\": \"srv_x\", \"seq\":").unwrap();
    let admin = crate::common::db::scratch_dir("spools-garbage-admin");
    let (_, key) = create_key_at(&url, &admin, "growth");
    let s = replica(&dir, &url, "8081");
    assert_eq!(s.get("/v1/key", &key).status, 200, "it serves");
    // The line is written before the first answer, but reaches the test
    // through a pipe and a draining thread: `logged` waits for it.
    let said = "keys.db.usage-spool@8082 is not a usage spool";
    assert!(s.logged(said), "{:?}", s.log.lock().unwrap());
    let log = s.log.lock().unwrap().join("\n");
    let line = log.lines().find(|l| l.contains(said)).unwrap_or_default();
    assert!(
        line.contains("ERROR") && line.contains("moved aside to"),
        "{line}"
    );
    let bad = spool(&dir, "8082");
    assert!(!bad.exists());
    let aside = spools_in(&dir);
    assert!(
        aside.len() == 1 && aside[0].starts_with("keys.db.usage-spool@8082.bad-"),
        "kept aside for the operator: {aside:?}"
    );
}

/// ok requests of `id`, as `keys usage` reads them from Redis.
fn ok_of(url: &str, admin: &Path, id: &str) -> u64 {
    let out = admin_run(
        url,
        admin,
        &["keys", "usage", "--key", id, "--format", "json"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| r["ok"].as_u64().unwrap())
        .sum()
}
