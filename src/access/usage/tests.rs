//! Tests of the usage module (mod.rs): the usage file's name and mode,
//! flushes from two servers adding up, a failed flush's counts kept for the
//! next, the bound on what waits, and reading a day while flushes run.
use super::*;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("usage-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("keys.db")
}

#[test]
fn the_usage_file_is_named_after_the_keys_file() {
    assert_eq!(
        usage_path(Path::new("/x/keys.db")),
        Path::new("/x/keys-usage.db")
    );
    assert_eq!(usage_path(Path::new("/x/keys")), Path::new("/x/keys-usage"));
}

#[test]
fn flushes_from_two_servers_add_up() {
    let keys = scratch("add");
    let day = 20_000;
    let (a, b) = (Usage::new(&keys), Usage::new(&keys));
    for _ in 0..3 {
        a.count("key_a", 200, day * 86_400 + 5);
    }
    b.count("key_a", 404, day * 86_400 + 9);
    b.count("key_a", 429, day * 86_400 + 7);
    a.flush(BUSY_TIMEOUT).unwrap();
    b.flush(BUSY_TIMEOUT).unwrap();
    a.count("key_a", 200, day * 86_400 + 3);
    a.flush(BUSY_TIMEOUT).unwrap();
    let got =
        crate::access::usage::report::day(a.path(), "key_a", &dates::format_date(day)).unwrap();
    assert_eq!(
        got,
        Counts {
            ok: 4,
            client_errors: 1,
            rate_limited: 1,
            ..Counts::default()
        }
    );
    let summary = crate::access::usage::report::summary(a.path(), "1970-01-01").unwrap();
    assert_eq!(
        summary["key_a"],
        (Some(dates::format_timestamp(day * 86_400 + 9)), 6)
    );
    assert_eq!(
        a.waiting("key_a", day),
        Counts::default(),
        "nothing left waiting"
    );
}

#[test]
fn a_failed_flush_keeps_the_counts_for_the_next() {
    let keys = scratch("fail");
    let usage = Usage::new(&keys);
    // A directory where the file should be: every open fails.
    std::fs::create_dir_all(usage.path()).unwrap();
    usage.count("key_a", 200, 86_400);
    usage.count("key_a", 500, 86_400);
    assert!(usage.flush(BUSY_TIMEOUT).is_err());
    usage.count("key_a", 200, 86_400);
    assert_eq!(
        usage.waiting("key_a", 1),
        Counts {
            ok: 2,
            server_errors: 1,
            rate_limited: 0,
            ..Counts::default()
        }
    );
    std::fs::remove_dir(usage.path()).unwrap();
    usage.flush(BUSY_TIMEOUT).unwrap();
    let got = crate::access::usage::report::day(usage.path(), "key_a", "1970-01-02").unwrap();
    assert_eq!(
        got,
        Counts {
            ok: 2,
            server_errors: 1,
            rate_limited: 0,
            ..Counts::default()
        }
    );
}

#[test]
fn waiting_key_hours_are_bounded() {
    let usage = Usage::new(&scratch("bound"));
    for hour in 0..(MAX_WAITING as i64 + 10) {
        usage.count("key_a", 200, hour * 3_600);
    }
    let waiting = usage.waiting.lock().unwrap();
    assert_eq!(waiting.key_hours, MAX_WAITING);
    assert_eq!(waiting.dropped, 10);
}

#[test]
fn the_usage_file_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let usage = Usage::new(&scratch("mode"));
    usage.count("key_a", 200, 0);
    usage.flush(BUSY_TIMEOUT).unwrap();
    let mode = std::fs::metadata(usage.path())
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, crate::access::key_file::PRIVATE_MODE);
}

#[test]
fn a_day_read_while_a_flush_waits_for_a_locked_file_neither_waits_nor_counts_twice() {
    let usage = Usage::new(&scratch("read-locked"));
    let (day, at) = (20_000, 20_000 * 86_400);
    usage.count("key_a", 200, at);
    usage.count("key_a", 200, at);
    usage.flush(BUSY_TIMEOUT).unwrap();
    for _ in 0..3 {
        usage.count("key_a", 404, at);
    }
    let five = Counts {
        ok: 2,
        client_errors: 3,
        rate_limited: 0,
        ..Counts::default()
    };
    // Another writer holds the file while the flush waits for it.
    let holder = Connection::open(usage.path()).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
    std::thread::scope(|s| {
        let flush = s.spawn(|| usage.flush(Duration::from_secs(30)));
        while usage.flight().taken.is_none() {
            std::thread::yield_now();
        }
        let asked = std::time::Instant::now();
        assert_eq!(
            usage.day("key_a", day).unwrap(),
            five,
            "the flight's counts"
        );
        assert!(
            asked.elapsed() < Duration::from_secs(5),
            "no wait on the flush"
        );
        holder.execute_batch("ROLLBACK").unwrap();
        flush.join().unwrap().unwrap();
    });
    assert_eq!(usage.day("key_a", day).unwrap(), five, "now in the file");
}

#[test]
fn reads_racing_flushes_see_every_request_counted_before_them_and_none_twice() {
    use std::sync::atomic::{AtomicU64, Ordering};
    let usage = Usage::new(&scratch("race"));
    let counted = AtomicU64::new(0);
    let (day, at) = (20_000, 20_000 * 86_400);
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..400 {
                usage.count("key_a", 200, at);
                counted.fetch_add(1, Ordering::SeqCst);
                if i % 20 == 0 {
                    usage.flush(BUSY_TIMEOUT).unwrap();
                }
            }
        });
        while counted.load(Ordering::SeqCst) < 400 {
            let at_least = counted.load(Ordering::SeqCst);
            let got = usage.day("key_a", day).unwrap().ok;
            let at_most = counted.load(Ordering::SeqCst);
            assert!(
                (at_least..=at_most).contains(&got),
                "{got} not in {at_least}..={at_most}"
            );
        }
    });
    assert_eq!(usage.day("key_a", day).unwrap().ok, 400);
}

#[test]
fn days_counted_before_hours_are_kept_and_read_beside_them() {
    let keys = scratch("old-days");
    let path = usage_path(&keys);
    // A usage file as a build that counted per UTC day left it.
    let old = Connection::open(&path).unwrap();
    old.execute_batch(
        "CREATE TABLE usage (key_id TEXT NOT NULL, day TEXT NOT NULL,
             ok INTEGER NOT NULL DEFAULT 0, errors INTEGER NOT NULL DEFAULT 0,
             rate_limited INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (key_id, day)) WITHOUT ROWID;
         CREATE TABLE last_used (key_id TEXT PRIMARY KEY, at TEXT NOT NULL) WITHOUT ROWID;
         INSERT INTO usage VALUES ('key_a', '1970-01-01', 4, 2, 1);",
    )
    .unwrap();
    drop(old);
    let usage = Usage::new(&keys);
    usage.count("key_a", 200, 3 * 3_600 + 5);
    usage.count("key_a", 503, 3 * 3_600 + 6);
    usage.flush(BUSY_TIMEOUT).unwrap();
    let rows = crate::access::usage::report::rows(&path, "1970-01-01", "1970-01-01", None).unwrap();
    let periods: Vec<(&str, [u64; 4])> = rows
        .iter()
        .map(|r| (r.period.as_str(), r.counts.values()))
        .collect();
    assert_eq!(
        periods,
        [
            ("1970-01-01", [4, 2, 1, 0]),
            ("1970-01-01T03", [1, 0, 0, 1])
        ],
        "the old day's errors are client errors"
    );
    assert_eq!(usage.day("key_a", 0).unwrap().values(), [5, 2, 1, 1]);
}
