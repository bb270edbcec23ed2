//! Least privilege in Redis (docs/deployment.md, "Least privilege"): the
//! servers' ACL user may read keys and plans and write only budgets and
//! usage, so a host running a server cannot mint a key; the admin's user
//! can. Every server of `make redis-test` runs as the servers' user
//! (tests/common/redis_hosts.rs); this shows what it may not do.
//!
//! These need a Redis server: `make redis-test` starts one on a free port.

use crate::common::redis_hosts;

use std::time::Duration;

use crate::common::bin::{command, text};
use crate::common::wait::{key_in_force, within};
use redis_hosts::*;

#[test]
#[ignore = "needs Redis: make redis-test"]
fn the_servers_user_cannot_make_a_key_and_the_servers_serve_as_it() {
    let hosts = Hosts::start("acl", 14);
    let as_servers = url_file(&as_user(&hosts.url, SERVER_USER));
    let out = command(
        &["keys", "create", "--plan", "enterprise"],
        &[("AREA_REDIS_FILE", &as_servers)],
        &hosts.admin,
    )
    .output()
    .unwrap();
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.to_ascii_lowercase().contains("noperm"), "{said}");
    assert!(text(&out.stdout).is_empty(), "no key is printed");

    let as_admin = as_user(&hosts.url, ADMIN_USER);
    let (id, key) = create_key_at(&as_admin, &hosts.admin, "starter");
    key_in_force(hosts.servers[0].addr, &key);
    for _ in 0..5 {
        for s in &hosts.servers {
            assert_eq!(s.get("/v1/key", &key).status, 200);
        }
    }
    // Budgets and usage went through Redis: nothing fell back.
    for s in &hosts.servers {
        let metrics = text(&s.get("/metrics", &key).body);
        assert!(metrics.contains("area_redis_up 1\n"), "{metrics}");
        assert!(
            metrics.contains("area_rate_limit_local_total 0\n"),
            "{metrics}"
        );
    }
    // The 10, and the first request of key_in_force's polling at least.
    within(Duration::from_secs(5), || {
        (hosts.usage_ok(&id) >= 11).then_some(())
    })
    .unwrap_or_else(|| panic!("usage counted: {}", hosts.usage_ok(&id)));
}
