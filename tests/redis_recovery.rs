//! Redis set-ups recovering and moving (tests/common/redis_hosts.rs): a
//! revoke made while a server is cut off from Redis takes effect once it
//! reaches Redis again; a server started while Redis is away serves its
//! snapshot and spools its usage; a keys file migrates once however often it is run, and a backup
//! of Redis restores without it; the Redis password shows nowhere.
//!
//! These need a Redis server: `make redis-test` starts one on a free port.

use crate::common::cut_proxy;
use crate::common::redis_hosts;

use std::path::Path;
use std::time::Duration;

use crate::common::bin::{Served, command, text};
use crate::common::db::scratch_dir;
use crate::common::wait::within;
use cut_proxy::{CutProxy, url_addr};
use redis_hosts::*;

#[test]
#[ignore = "needs Redis: make redis-test"]
fn a_revoke_made_while_a_server_is_cut_off_is_not_missed() {
    let url = redis_url(8);
    // Only the server goes through the proxy; the admin host reaches Redis.
    let proxy = CutProxy::start(url_addr(&url));
    let dir = host_dir("cut-off");
    let server = serve(&dir, &proxy.in_url(&url));
    let admin = scratch_dir("cut-off-admin");
    let (id, key) = create_key_at(&url, &admin, "growth");
    crate::common::wait::key_in_force(server.addr, &key);
    let redis_up = |up: u8| {
        let metrics = text(&server.get("/metrics", &key).body);
        metrics
            .contains(&format!("area_redis_up {up}\n"))
            .then_some(())
    };

    proxy.cut();
    within(Duration::from_secs(3), || redis_up(0)).expect("the server notices the cut");
    let out = admin_run(&url, &admin, &["keys", "revoke", &id]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Cut off, the server keeps the keys it last loaded: it cannot know.
    // Nothing happening has no event to wait on; a second is four of the
    // watch's polls, each of which fails while cut.
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(server.get("/v1/key", &key).status, 200, "still cut off");

    proxy.restore();
    within(Duration::from_secs(3), || {
        (server.get("/v1/key", &key).status == 401).then_some(())
    })
    .unwrap_or_else(|| panic!("the revoke is missed: {:?}", server.log.lock().unwrap()));
    assert!(within(Duration::from_secs(1), || redis_up(1)).is_some());
}

#[test]
#[ignore = "needs Redis: make redis-test"]
fn a_server_started_while_redis_is_away_serves_its_snapshot() {
    let mut hosts = Hosts::start("snapshot", 5);
    // Used only while Redis is away: its usage goes through the spool.
    let (spooled_id, spooled) = hosts.create_key("growth");
    let (_, key) = hosts.create_key("growth");
    crate::common::wait::key_in_force(hosts.servers[0].addr, &key);
    // Named by the server's address, port 0 and its process id.
    let snapshot = hosts.dirs[0].join(format!(
        "keys.db.redis-snapshot@127_0_0_1_0-{}",
        hosts.servers[0].child.id()
    ));
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
    let spool = hosts.dirs[0].join(format!("keys.db.usage-spool@127_0_0_1_0-{}", s.child.id()));
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

#[test]
#[ignore = "needs Redis: make redis-test"]
fn a_usage_file_migrated_again_after_more_requests_adds_only_what_is_new() {
    let url = redis_url(13);
    let old = host_dir("migrate-again");
    let admin = scratch_dir("migrate-again-admin");
    let (id, key) = keys_file_key(&old, "growth");
    let ok_in = |out: std::process::Output| -> u64 {
        assert!(out.status.success(), "{}", text(&out.stderr));
        let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        rows.as_array()
            .unwrap()
            .iter()
            .map(|r| r["ok"].as_u64().unwrap())
            .sum()
    };
    let usage_args = ["keys", "usage", "--key", &id, "--format", "json"];
    let in_redis = || ok_in(admin_run(&url, &admin, &usage_args));
    let migrate = || {
        let out = admin_run(&url, &old, &["keys", "migrate", "--db", "areas.db"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stderr)
    };
    // A server of the one-host set-up answers 5, flushed to its usage file.
    let plain = Served::start(&["--db", "areas.db"], &[], &old);
    for _ in 0..5 {
        assert_eq!(plain.get("/v1/key", &key).status, 200);
    }
    let in_file = || {
        let args = [&usage_args[..], &["--db", "areas.db"]].concat();
        ok_in(command(&args, &[], &old).output().unwrap())
    };
    within(Duration::from_secs(5), || (in_file() == 5).then_some(()))
        .expect("the usage file holds the 5");
    migrate();
    assert_eq!(in_redis(), 5);
    // It answers 1 more, still running on the keys it holds, then stops.
    assert_eq!(plain.get("/v1/key", &key).status, 200);
    let mut plain = plain;
    plain.signal("TERM");
    assert!(plain.wait_exit(Duration::from_secs(6)).is_some());
    let again = migrate();
    assert!(again.contains("usage of 1 requests added"), "{again}");
    assert_eq!(in_redis(), 6, "only the new request is added");
    let once_more = migrate();
    assert!(once_more.contains("in Redis already"), "{once_more}");
    assert_eq!(in_redis(), 6);
}

fn keys_file_key(dir: &Path, plan: &str) -> (String, String) {
    let out = command(
        &[
            "keys",
            "create",
            "--db",
            "areas.db",
            "--new-keys-file",
            "--plan",
            plan,
        ],
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
    crate::common::wait::key_in_force(hosts.servers[0].addr, &key);
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
