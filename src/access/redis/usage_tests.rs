//! Usage in Redis: rows, spools and snapshots.

use super::*;
use crate::access::redis::instance::Place;
use crate::access::redis::url::RedisUrl;
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

fn row(key: &str, ok: u64) -> Row {
    Row {
        key_id: key.into(),
        day: "2026-11-26".into(),
        counts: (ok, 0, 1),
        last_used: 1_764_115_200,
    }
}

#[test]
fn batches_redis_does_not_take_wait_in_order_and_spool_privately() {
    let dir = std::env::temp_dir().join(format!("area-spool-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let place = Place::new(&dir.join("keys.db"), "a".into());
    let spool = place.spool();
    // Nothing listens on port 1: every send fails at once.
    let away = RedisUrl::parse("redis://127.0.0.1:1").unwrap();
    let redis = Arc::new(Redis::new(&away, Duration::from_millis(200)).unwrap());
    let (usage, _) = SharedUsage::new(redis.clone(), Spools::open(place.clone()).unwrap()).unwrap();
    usage.enqueue(vec![row("key_a", 3)]);
    usage.enqueue(Vec::new());
    usage.enqueue(vec![row("key_a", 2), row("key_b", 1)]);
    assert_eq!(usage.batches(), 2, "an empty flush makes no batch");
    let why = usage.send_all().unwrap_err();
    assert!(why.contains("usage of 9 requests"), "{why}");
    assert_eq!(usage.waiting("key_a", "2026-11-26").ok, 5);
    usage.stop().unwrap();
    let mode = std::fs::metadata(&spool).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let (next, found) = SharedUsage::new(redis, Spools::open(place).unwrap()).unwrap();
    assert_eq!(found.files, [spool]);
    assert_eq!(next.batches(), 2);
    let queue = next.queue.lock().unwrap();
    assert_eq!(
        queue.iter().map(|b| b.seq).collect::<Vec<_>>(),
        [1, 2],
        "each batch keeps its number, so Redis applies it once"
    );
    assert!(queue.iter().all(|b| b.server == usage.server));
    let _ = std::fs::remove_dir_all(&dir);
}
