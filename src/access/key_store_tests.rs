//! The keys file's store: a key made after the last read works at once, a
//! revoked one goes at the next tick, a refused file is not read again, a
//! locked one is never waited for; a held store asks its refresh.

use super::*;
use crate::access::authenticate::NoLimit;
use crate::access::keys;

/// A watcher's period no test waits for: every look it makes is asked for.
const NEVER: Duration = Duration::from_secs(3600);
const UNKNOWN: &str = "ask_000000000000000000000000000000000000000000000000";

/// Runs `f` while `store`'s watcher runs on a thread of its own.
fn watched<T>(store: &KeyStore, f: impl FnOnce() -> T) -> T {
    std::thread::scope(|s| {
        s.spawn(|| store.watch(NEVER));
        let out = f();
        store.close();
        out
    })
}

fn keys_file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("key-store-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("keys.db");
    key_file::open(&path).unwrap();
    path
}

fn create(path: &Path) -> (String, String) {
    key_file::change(path, |c| keys::create(c, Plan::Growth, "t")).unwrap()
}

fn bearer(key: &str) -> String {
    format!("Bearer {key}")
}

#[test]
fn a_key_made_after_the_last_read_is_found_on_its_first_use() {
    let path = keys_file("new");
    let store = KeyStore::open(&path).unwrap();
    let (id, key) = create(&path);
    watched(&store, || {
        let (caller, _) = store.authenticate(Some(&bearer(&key)), &NoLimit).unwrap();
        assert_eq!(caller.key_id, id);
        assert_eq!(
            store.authenticate(Some(&bearer(UNKNOWN)), &NoLimit),
            Err(ApiError::InvalidApiKey)
        );
    });
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn a_revoked_key_goes_at_the_next_tick() {
    let path = keys_file("revoked");
    let (id, key) = create(&path);
    let store = KeyStore::open(&path).unwrap();
    key_file::change(&path, |c| keys::revoke(c, &id)).unwrap();
    assert!(
        store.authenticate(Some(&bearer(&key)), &NoLimit).is_ok(),
        "in memory"
    );
    store.look(Look::Tick);
    assert_eq!(
        store.authenticate(Some(&bearer(&key)), &NoLimit),
        Err(ApiError::InvalidApiKey)
    );
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn a_refused_file_is_remembered_as_it_is_so_unknown_keys_do_not_read_it_again() {
    let path = keys_file("refused");
    let store = KeyStore::open(&path).unwrap();
    std::fs::write(&path, b"not a keys file").unwrap();
    assert!(!store.read_if_moved(Look::Asked), "refused");
    let refused = store.seen().refused;
    assert!(refused.is_some() && refused == stamp(&path));
    assert!(!store.seen().wants(stamp(&path), Look::Asked));
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

/// Holds the file at `path` under an exclusive lock, as a long transaction
/// or a backup tool may, until dropped.
fn lock(path: &Path) -> Connection {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch("BEGIN EXCLUSIVE").unwrap();
    conn
}

#[test]
fn a_locked_file_is_not_waited_for_and_read_once_it_is_free() {
    let path = keys_file("locked");
    let (_, held) = create(&path);
    let store = KeyStore::open(&path).unwrap();
    let (id, key) = create(&path);
    let locked = lock(&path);
    watched(&store, || {
        let asked = Instant::now();
        assert_eq!(
            store.authenticate(Some(&bearer(&key)), &NoLimit),
            Err(ApiError::InvalidApiKey),
            "a change behind a lock is not read"
        );
        assert!(asked.elapsed() < MAX_WAIT * 5, "{:?}", asked.elapsed());
        assert!(store.authenticate(Some(&bearer(&held)), &NoLimit).is_ok());
    });
    let ticked = Instant::now();
    assert!(!store.read_if_moved(Look::Tick), "still locked");
    assert!(ticked.elapsed() < MAX_WAIT * 5, "{:?}", ticked.elapsed());
    let now = stamp(&path);
    assert!(
        store.seen().wants(now, Look::Tick),
        "the next tick tries it again"
    );
    assert!(
        store.seen().wants(now, Look::Asked),
        "and so does a request"
    );
    drop(locked);
    assert!(store.read_if_moved(Look::Tick), "read once free");
    let (caller, _) = store.authenticate(Some(&bearer(&key)), &NoLimit).unwrap();
    assert_eq!(caller.key_id, id);
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn a_lock_is_logged_once_when_it_keeps_a_change_past_its_second() {
    let path = Path::new("keys.db");
    let (mut seen, start) = (Seen::default(), Instant::now());
    let locked = Err(Unread::Locked("database is locked".into()));
    let at = |ms: u64| start + Duration::from_millis(ms);
    let said: Vec<_> = [0, 250, 500, 1000, 1250, 5000]
        .into_iter()
        .map(|ms| seen.after((path, None), &locked, at(ms)).map(|(l, _)| l))
        .collect();
    let warn = Some(log::Level::Warn);
    assert_eq!(said, [None, None, None, warn, None, None]);
    let (level, line) = seen
        .after((path, None), &Ok(KeyTable::default()), at(5250))
        .unwrap();
    assert_eq!(level, log::Level::Info);
    assert!(line.contains("no longer locked"), "{line}");
    // Locked again later: a new wait, said again past its own second.
    assert_eq!(seen.after((path, None), &locked, at(6000)), None);
    assert!(seen.after((path, None), &locked, at(7000)).is_some());
}

/// A store held elsewhere (Redis) whose refresh installs `table` when asked.
fn held_with(refresh: impl Fn(&KeyStore) + Send + Sync + 'static) -> Arc<KeyStore> {
    let store = Arc::new(KeyStore::held(KeyTable::default()));
    let weak = Arc::downgrade(&store);
    store.refresh_with(move || refresh(&weak.upgrade().unwrap()));
    store
}

fn table_of(key: &str, id: &str) -> KeyTable {
    let caller = Caller {
        key_id: id.into(),
        plan: Plan::Growth,
    };
    KeyTable::new([(keys::hash(key), caller)].into(), Limits::default())
}

#[test]
fn a_held_store_refreshes_on_the_watcher_when_asked_and_not_on_ticks() {
    let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = asked.clone();
    let store = held_with(move |store| {
        counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        store.replace(table_of("ask_new", "key_new"));
    });
    store.look(Look::Tick);
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 0);
    let (caller, _) = watched(&store, || {
        store.authenticate(Some(&bearer("ask_new")), &NoLimit)
    })
    .unwrap();
    assert_eq!(caller.key_id, "key_new");
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[test]
fn a_held_store_that_does_not_answer_refuses_after_the_wait_at_most() {
    let (release, stalled) = std::sync::mpsc::channel::<()>();
    let stalled = Mutex::new(stalled);
    let store = held_with(move |store| {
        // Redis that answers only once the test is over.
        let _ = stalled.lock().unwrap().recv();
        store.replace(table_of("ask_new", "key_new"));
    });
    let asked = Instant::now();
    let refused = watched(&store, || {
        let refused = store.authenticate(Some(&bearer("ask_new")), &NoLimit);
        release.send(()).unwrap();
        refused
    });
    assert_eq!(refused, Err(ApiError::InvalidApiKey));
    let waited = asked.elapsed();
    assert!(waited >= MAX_WAIT && waited < MAX_WAIT * 10, "{waited:?}");
}
