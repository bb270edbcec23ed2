//! Bad values in Redis, written there by hand as a mistaken operator or a
//! broken tool would: a key record that does not parse, a version that is
//! not a number, a bucket that is not tokens and a time. Each shows in
//! /metrics (`area_redis_errors_total`) and in the log with its key, none
//! takes the server out of Redis mode, and the next good version is picked
//! up.
//!
//! These need a Redis server: `make redis-test` starts one on a free port.

use crate::common::redis_hosts;

use std::time::Duration;

use crate::common::bin::{Served, text};
use crate::common::db::scratch_dir;
use crate::common::wait::{key_in_force, within};
use redis_hosts::*;

/// How long a change in Redis may take to show: a few of the watch's polls.
const SHOWS_WITHIN: Duration = Duration::from_secs(3);

fn redis(url: &str, args: &[&str]) {
    let info = area_scoring::access::redis::url::RedisUrl::parse(url).unwrap();
    let mut conn = redis::Client::open(info.connection_info())
        .and_then(|c| c.get_connection())
        .expect("the test Redis answers");
    let mut cmd = redis::cmd(args[0]);
    for a in &args[1..] {
        cmd.arg(*a);
    }
    cmd.query::<redis::Value>(&mut conn).unwrap();
}

/// A line of the server's /metrics, by its name and labels.
fn metric(server: &Served, key: &str, name: &str) -> Option<u64> {
    let metrics = text(&server.get("/metrics", key).body);
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

fn errors(server: &Served, key: &str, kind: &str) -> u64 {
    let name = format!("area_redis_errors_total{{kind=\"{kind}\"}}");
    metric(server, key, &name).unwrap_or_else(|| panic!("{name} in /metrics"))
}

/// Waits until the count of bad values of `kind` is above zero.
fn shows(server: &Served, key: &str, kind: &str) {
    within(SHOWS_WITHIN, || {
        (errors(server, key, kind) > 0).then_some(())
    })
    .unwrap_or_else(|| panic!("a bad {kind} is counted: {:?}", server.log.lock().unwrap()));
}

#[test]
#[ignore = "needs Redis: make redis-test"]
fn bad_values_in_redis_are_counted_and_said_and_the_next_good_version_is_taken() {
    let url = redis_url(12);
    let server = serve(&host_dir("garbage"), &url);
    let admin = scratch_dir("garbage-admin");
    let (id, key) = create_key_at(&url, &admin, "starter");
    key_in_force(server.addr, &key);
    for kind in ["key_record", "version", "bucket", "plan"] {
        assert_eq!(errors(&server, &key, kind), 0, "{kind}");
    }

    // A key record that does not parse: said with its key, left out.
    redis(&url, &["HSET", "area:keys", "key_bad", "{not json"]);
    redis(&url, &["INCR", "area:version"]);
    shows(&server, &key, "key_record");
    assert!(
        server.logged("area:keys field key_bad"),
        "the log names the record"
    );
    assert_eq!(
        server.get("/v1/key", &key).status,
        200,
        "the good key stays"
    );

    // A version that is not a number: said once with its key, counted, and
    // Redis is not taken for away.
    redis(&url, &["SET", "area:version", "x"]);
    shows(&server, &key, "version");
    assert!(server.logged("area:version"), "the log names the version");
    // A few polls meet the bad version; none may change the mode.
    let seen = errors(&server, &key, "version");
    within(SHOWS_WITHIN, || {
        (errors(&server, &key, "version") > seen + 2).then_some(())
    })
    .expect("the watch goes on reading the version");
    assert_eq!(metric(&server, &key, "area_redis_up"), Some(1));
    assert_eq!(
        metric(&server, &key, "area_rate_limit_local_total"),
        Some(0)
    );
    assert_eq!(server.get("/v1/key", &key).status, 200);

    // The next good version is picked up: a key made after it works.
    redis(&url, &["SET", "area:version", "100"]);
    let (_, newer) = create_key_at(&url, &admin, "starter");
    key_in_force(server.addr, &newer);

    // A bucket that is not tokens and a time: said, and it starts full.
    redis(
        &url,
        &[
            "HSET",
            &format!("area:bucket:{id}"),
            "tokens",
            "x",
            "at",
            "y",
        ],
    );
    // A request that spends reads the bucket (GET /v1/key only looks).
    assert_eq!(server.get("/v1/areas?limit=1", &key).status, 200);
    shows(&server, &key, "bucket");
    assert!(server.logged(&format!("area:bucket:{id}")));

    // A plan's limit that is not one: said, and the plan keeps its default.
    redis(&url, &["HSET", "area:plans", "starter", "lots"]);
    redis(&url, &["INCR", "area:version"]);
    shows(&server, &key, "plan");
    assert!(server.logged("area:plans field starter"));
    assert_eq!(metric(&server, &key, "area_redis_up"), Some(1));
}
