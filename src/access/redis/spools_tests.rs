//! Spools held by one server at a time, and garbage moved aside.

use super::*;
use crate::access::redis::batch::Row;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("area-spools-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn batch(server: &str, seq: u64) -> Batch {
    Batch {
        server: server.into(),
        seq,
        rows: vec![Row {
            key_id: "key_a".into(),
            period: "2026-11-26T09".into(),
            counts: crate::access::usage::counts::Counts {
                ok: 1,
                ..Default::default()
            },
            last_used: 1_764_115_200,
        }],
    }
}

#[test]
fn a_spool_is_taken_by_one_server_at_a_time() {
    let dir = scratch("once");
    let keys = dir.join("keys.db");
    let place = |name: &str| Place::new(&keys, name.into());
    let a = Spools::open(place("a")).unwrap();
    let why = Spools::open(place("a")).err().unwrap();
    assert!(matches!(&why, AccessError::InstanceRunning { instance, .. } if instance == "a"));
    assert!(why.to_string().contains("another server named a"), "{why}");
    // b stops with batches Redis did not take.
    let b = Spools::open(place("b")).unwrap();
    b.write(&[&batch("srv_b", 1), &batch("srv_b", 2)]).unwrap();
    assert!(
        a.take_all().batches.is_empty(),
        "b runs: its spool is its own"
    );
    b.release();
    let c = Spools::open(place("c")).unwrap();
    let found = a.take_all();
    assert_eq!(found.batches, [batch("srv_b", 1), batch("srv_b", 2)]);
    assert_eq!(found.files, [place("b").spool()]);
    assert!(c.take_all().batches.is_empty(), "a's until sent");
    assert!(a.take_all().batches.is_empty(), "a reads it once");
    // b may start again at once, and finds nothing of its own to send.
    let b = Spools::open(place("b")).unwrap();
    assert!(b.take_all().batches.is_empty());
    a.sent();
    assert!(c.take_all().batches.is_empty(), "sent, so gone");
    drop(b);
    // a stops with what it took from c not sent: all of it in a's spool.
    c.write(&[&batch("srv_c", 1)]).unwrap();
    c.release();
    assert_eq!(a.take_all().batches, [batch("srv_c", 1)]);
    a.write(&[&batch("srv_c", 1), &batch("srv_a", 1)]).unwrap();
    a.release();
    let d = Spools::open(place("d")).unwrap();
    assert_eq!(d.take_all().batches, [batch("srv_c", 1), batch("srv_a", 1)]);
    // d stops without sending or writing (kill -9): what it took is found
    // by the next start, under d's name.
    drop(d);
    let e = Spools::open(place("e")).unwrap();
    let found = e.take_all();
    assert_eq!(found.batches, [batch("srv_c", 1), batch("srv_a", 1)]);
    assert!(
        found.files[0]
            .to_string_lossy()
            .contains("usage-spool@d.taken-")
    );
    e.sent();
    e.release();
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "no spool or lock left: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_spool_that_does_not_parse_is_moved_aside_and_said() {
    let dir = scratch("garbage");
    let keys = dir.join("keys.db");
    let bad = Place::new(&keys, "b".into()).spool();
    std::fs::write(&bad, "{\"half\": [").unwrap();
    let good = Place::new(&keys, "c".into());
    std::fs::write(
        good.spool(),
        serde_json::to_string(&[batch("srv_c", 1)]).unwrap(),
    )
    .unwrap();
    let a = Spools::open(Place::new(&keys, "a".into())).unwrap();
    let found = a.take_all();
    assert_eq!(found.batches, [batch("srv_c", 1)], "the others still count");
    assert_eq!(found.errors.len(), 1, "{:?}", found.errors);
    assert!(
        found.errors[0].contains(&format!("{} is not a usage spool", bad.display()))
            && found.errors[0].contains("moved aside to"),
        "{}",
        found.errors[0]
    );
    assert!(!bad.exists());
    let aside: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("keys.db.usage-spool@b.bad-"))
        .collect();
    assert_eq!(aside.len(), 1, "kept for the operator to look at");
    assert!(a.take_all().errors.is_empty(), "said once");
    let _ = std::fs::remove_dir_all(&dir);
}
