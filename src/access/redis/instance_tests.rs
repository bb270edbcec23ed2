//! Servers' identities, the names of their files, and atomic writes.

use super::*;
use std::os::unix::fs::PermissionsExt;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("area-instance-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_variable_names_the_server_else_its_address() {
    assert_eq!(identity(Some("8081"), "127.0.0.1:8081", 7).unwrap(), "8081");
    assert_eq!(
        identity(None, "127.0.0.1:8081", 7).unwrap(),
        "127_0_0_1_8081"
    );
    assert_eq!(
        identity(Some("  "), "[::1]:8081", 7).unwrap(),
        "___1__8081",
        "an empty variable names none"
    );
    // Two servers on port 0 would otherwise share one name.
    assert_eq!(identity(None, "127.0.0.1:0", 42).unwrap(), "127_0_0_1_0-42");
    assert_eq!(
        identity(Some("../a b.c@d"), "x:1", 7).unwrap(),
        "___a_b_c_d",
        "no path, dot or separator gets through"
    );
    let long = "a".repeat(MAX_INSTANCE_CHARS + 1);
    let why = identity(Some(&long), "x:1", 7).unwrap_err();
    assert!(matches!(why, AccessError::InstanceTooLong(_)), "{why}");
    assert!(why.to_string().contains(INSTANCE_VARIABLE), "{why}");
    assert!(identity(Some(&long[1..]), "x:1", 7).is_ok());
}

#[test]
fn each_server_has_its_own_files_and_finds_its_neighbours() {
    let dir = scratch("names");
    let keys = dir.join("keys.db");
    let a = Place::new(&keys, "8081".into());
    let b = Place::new(&keys, "8082".into());
    assert_eq!(a.spool(), dir.join("keys.db.usage-spool@8081"));
    assert_eq!(a.snapshot(), dir.join("keys.db.redis-snapshot@8081"));
    assert_ne!(a.spool(), b.spool());
    assert_ne!(a.snapshot(), b.snapshot());
    for name in [
        "keys.db.usage-spool@8081",
        "keys.db.usage-spool@8082",
        // From before identities: still this folder's.
        "keys.db.usage-spool",
        // Not spools: a lock, a temporary, one moved aside, another keys file's.
        "keys.db.usage-spool@8081.lock",
        "keys.db.usage-spool@8081.tmp-1-ab",
        "keys.db.usage-spool@8081.bad-1764115200",
        "keys.db.usage-spool.bad-1764115200",
        "keys.db.usage-spool.lock",
        "other.db.usage-spool@8081",
        "keys.db.usage-spool@",
        "keys.db.redis-snapshot@8081",
    ] {
        std::fs::write(dir.join(name), "").unwrap();
    }
    let names = |found: Vec<PathBuf>| -> Vec<String> {
        found
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    let spools = [
        "keys.db.usage-spool",
        "keys.db.usage-spool@8081",
        "keys.db.usage-spool@8082",
    ];
    assert_eq!(names(b.spools()), spools, "every server finds every spool");
    assert_eq!(names(a.snapshots()), ["keys.db.redis-snapshot@8081"]);
    // A keys path with no folder: the working directory.
    let here = Place::new(Path::new("keys.db"), "x".into());
    assert_eq!(here.spool(), Path::new("./keys.db.usage-spool@x"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_is_written_whole_privately_and_under_a_name_of_its_own() {
    let dir = scratch("write");
    let path = dir.join("deeper/keys.db.usage-spool@a");
    write_private(&path, b"first").unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "usage and keys are no one else's to read");
    // A temporary another writer left (a fixed name would be shared): not
    // written through, not removed.
    let other = with_suffix(&path, ".partial");
    std::fs::write(&other, "someone else's").unwrap();
    write_private(&path, b"second").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "someone else's");
    // Writers at once each rename a whole file of their own into place.
    let writers: Vec<_> = (0..8)
        .map(|i| {
            let path = path.clone();
            std::thread::spawn(move || {
                for _ in 0..20 {
                    write_private(&path, format!("[{i}]").repeat(1000).as_bytes()).unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text, text[..3].repeat(1000), "one writer's file, whole");
    let left: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "no temporary left behind: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
