//! The keys file's store: a key made after the last read works at once, a
//! revoked one goes at the next poll, a refused file is not read again.

use super::*;
use crate::access::authenticate::NoLimit;
use crate::access::keys;

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
    let (caller, _) = store.authenticate(Some(&bearer(&key)), &NoLimit).unwrap();
    assert_eq!(caller.key_id, id);
    let unknown = bearer("ask_000000000000000000000000000000000000000000000000");
    assert_eq!(
        store.authenticate(Some(&unknown), &NoLimit),
        Err(ApiError::InvalidApiKey)
    );
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn a_revoked_key_goes_at_the_next_poll() {
    let path = keys_file("revoked");
    let (id, key) = create(&path);
    let store = KeyStore::open(&path).unwrap();
    key_file::change(&path, |c| keys::revoke(c, &id)).unwrap();
    assert!(
        store.authenticate(Some(&bearer(&key)), &NoLimit).is_ok(),
        "in memory"
    );
    store.poll();
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
    assert!(!store.read_if_moved(true), "refused");
    let refused = store.seen.lock().unwrap().refused;
    assert!(refused.is_some() && refused == stamp(&path));
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}
