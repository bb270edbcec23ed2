//! Hosts of the Redis tests (tests/redis_shared.rs, tests/redis_recovery.rs):
//! two servers, each in its own folder with its own dataset copy and no file
//! in common, and an admin folder with no dataset, all naming one Redis.
//! The test Redis is named by AREA_TEST_REDIS, set by `make redis-test`;
//! servers and commands get its URL as operators' do, from a file of mode
//! 0640 named by AREA_REDIS_FILE. Servers connect as the ACL user of
//! docs/deployment.md that may read keys and plans and write only budgets
//! and usage (`SERVER_USER`); commands as the one given.
//! Each test binary uses a part of this.
#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use crate::common::bin::{Served, command, text};
use crate::common::db::{fresh_db, scratch_dir};

/// The servers' ACL user, as docs/deployment.md ("Least privilege") sets it
/// up, and the admin's; their passwords are the test Redis's, suffixed.
pub const SERVER_USER: &str = "area-server";
pub const ADMIN_USER: &str = "area-admin";
const SERVER_RULES: &str = "resetkeys %R~area:keys %R~area:plans %R~area:version \
     ~area:bucket:* ~area:usage ~area:usage:flushed ~area:usage:last_used resetchannels \
     -@all +@connection +@transaction +@read +@write +@scripting +time +select -@dangerous";
const ADMIN_RULES: &str = "resetkeys ~area:* resetchannels \
     -@all +@connection +@transaction +@read +@write +@scripting +time +select -@dangerous";

/// The test Redis's URL with its password, on database `db` of its own, so
/// each test starts from an empty Redis; the ACL users are made afresh.
pub fn redis_url(db: u8) -> String {
    let url = std::env::var("AREA_TEST_REDIS").expect("AREA_TEST_REDIS names the test Redis");
    let url = format!("{}/{db}", url.trim_end_matches('/'));
    let info = area_scoring::access::redis::url::RedisUrl::parse(&url).unwrap();
    let mut conn = redis::Client::open(info.connection_info())
        .and_then(|c| c.get_connection())
        .expect("the test Redis answers");
    redis::cmd("FLUSHDB").query::<()>(&mut conn).unwrap();
    for (user, rules) in [(SERVER_USER, SERVER_RULES), (ADMIN_USER, ADMIN_RULES)] {
        let mut acl = redis::cmd("ACL");
        acl.arg("SETUSER").arg(user).arg("reset").arg("on");
        acl.arg(format!(">{}", user_password(user)));
        for rule in rules.split_whitespace() {
            acl.arg(rule);
        }
        acl.query::<()>(&mut conn).unwrap();
    }
    url
}

fn user_password(user: &str) -> String {
    format!("{}-{user}", password())
}

/// `url` (redis://[user:password@]host:port[/db]) as the ACL user `user`.
pub fn as_user(url: &str, user: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap();
    let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
    format!("{scheme}://{user}:{}@{rest}", user_password(user))
}

pub fn password() -> String {
    let url = std::env::var("AREA_TEST_REDIS").unwrap();
    let info = area_scoring::access::redis::url::RedisUrl::parse(&url).unwrap();
    info.password
        .expect("the test Redis has a password")
        .expose()
        .to_string()
}

/// Two servers, each in its own folder with its own dataset copy, and an
/// admin folder with nothing in it, all naming one Redis.
pub struct Hosts {
    pub url: String,
    pub admin: PathBuf,
    pub dirs: [PathBuf; 2],
    pub servers: [Served; 2],
}

impl Hosts {
    pub fn start(name: &str, db: u8) -> Hosts {
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
    pub fn admin(&self, args: &[&str]) -> String {
        let out = admin_run(&self.url, &self.admin, args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        text(&out.stdout)
    }

    pub fn create_key(&self, plan: &str) -> (String, String) {
        create_key_at(&self.url, &self.admin, plan)
    }

    /// ok requests of `id` today, as `keys usage` reads them from Redis.
    pub fn usage_ok(&self, id: &str) -> u64 {
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

pub fn host_dir(name: &str) -> PathBuf {
    fresh_db(name).parent().unwrap().to_path_buf()
}

/// `url` in a file of its own, of mode 0640, outside every host's folder.
pub fn url_file(url: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("redis-urls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}.url", NEXT.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&path, format!("{url}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    path
}

/// A server on `dir` with Redis at `url`, as the servers' ACL user.
pub fn serve(dir: &Path, url: &str) -> Served {
    let file = url_file(&as_user(url, SERVER_USER));
    Served::start(&["--db", "areas.db"], &[("AREA_REDIS_FILE", &file)], dir)
}

pub fn admin_run(url: &str, dir: &Path, args: &[&str]) -> Output {
    command(args, &[("AREA_REDIS_FILE", &url_file(url))], dir)
        .output()
        .expect("run the binary")
}

pub fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `keys create --plan PLAN` from the admin folder `admin`: (id, key).
pub fn create_key_at(url: &str, admin: &Path, plan: &str) -> (String, String) {
    let out = admin_run(url, admin, &["keys", "create", "--plan", plan]);
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
