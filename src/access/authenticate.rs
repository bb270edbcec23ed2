//! The one rule for every store of keys, and what a key the server does not
//! hold may cost.
//!
//! A key held in memory is answered from memory: no I/O, no wait, no
//! keyless token. A key not held (a stranger's) first takes a token from its
//! client's keyless bucket, so a client out of that budget gets 429 at once
//! and costs the store nothing; then it waits for the store's watcher to
//! look for newer keys (access/shared_check.rs: one request at a time,
//! `MAX_WAIT` at most, any other refused at once) and is looked up again.
//! A key made anywhere thus works on its first request while the store
//! answers in time, and when it does, the keyless token goes back: a valid
//! key is never counted as a request without one.
//! A revoked key stays in memory until the next poll, within the second the
//! docs/operations.md ("Keys") promises.

use crate::access::keys::{self, Caller};
use crate::error::ApiError;

/// What authenticating needs of a store of keys, wherever it keeps them.
pub trait KeySource {
    /// The caller of a key's hash, and its plan's requests a minute, from
    /// what is held in memory.
    fn lookup(&self, hash: &[u8; 32]) -> Option<(Caller, Option<u32>)>;
    /// Returns once a look for newer keys that started after this call has
    /// installed what it found, or after `MAX_WAIT` at most; at once while
    /// another request waits for one. Never does I/O itself.
    fn check_newer(&self);
}

/// The budget of one client's requests without a valid key.
pub trait Keyless {
    /// Takes one request from it; 429 when it is spent.
    fn take(&self) -> Result<(), ApiError>;
    /// Gives back the request taken, the key having proved valid.
    fn give_back(&self);
}

/// The caller of the Authorization header's key: 401 when it is missing or
/// unknown, 429 instead when its client's keyless budget is spent.
pub fn authenticate(
    source: &impl KeySource,
    header: Option<&str>,
    keyless: &impl Keyless,
) -> Result<(Caller, Option<u32>), ApiError> {
    let hash = match keys::bearer_key(header) {
        Ok(key) => keys::hash(key),
        Err(missing) => {
            keyless.take()?;
            return Err(missing);
        }
    };
    if let Some(found) = source.lookup(&hash) {
        return Ok(found);
    }
    keyless.take()?;
    source.check_newer();
    let found = source.lookup(&hash).ok_or(ApiError::InvalidApiKey)?;
    keyless.give_back();
    Ok(found)
}

/// A keyless budget that never runs out, for tests of stores of keys.
#[cfg(test)]
pub struct NoLimit;

#[cfg(test)]
impl Keyless for NoLimit {
    fn take(&self) -> Result<(), ApiError> {
        Ok(())
    }

    fn give_back(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Plan;
    use std::cell::{Cell, RefCell};
    use std::collections::HashMap;

    /// Keys in memory, and keys the next check will find.
    #[derive(Default)]
    struct Source {
        held: RefCell<HashMap<[u8; 32], Caller>>,
        newer: RefCell<HashMap<[u8; 32], Caller>>,
        checks: Cell<usize>,
    }

    impl KeySource for Source {
        fn lookup(&self, hash: &[u8; 32]) -> Option<(Caller, Option<u32>)> {
            self.held.borrow().get(hash).map(|c| (c.clone(), Some(60)))
        }

        fn check_newer(&self) {
            self.checks.set(self.checks.get() + 1);
            let newer = std::mem::take(&mut *self.newer.borrow_mut());
            self.held.borrow_mut().extend(newer);
        }
    }

    /// A bucket of `tokens` requests.
    struct Bucket(Cell<u32>);

    impl Keyless for Bucket {
        fn take(&self) -> Result<(), ApiError> {
            let left = self.0.get().checked_sub(1).ok_or(ApiError::RateLimited {
                retry_after_secs: 1,
            })?;
            self.0.set(left);
            Ok(())
        }

        fn give_back(&self) {
            self.0.set(self.0.get() + 1);
        }
    }

    fn caller(id: &str) -> Caller {
        Caller {
            key_id: id.into(),
            plan: Plan::Growth,
        }
    }

    fn header(key: &str) -> String {
        format!("Bearer {key}")
    }

    #[test]
    fn a_held_key_takes_no_keyless_token_and_makes_no_check() {
        let source = Source::default();
        source
            .held
            .borrow_mut()
            .insert(keys::hash("held"), caller("a"));
        let spent = Bucket(Cell::new(0));
        let (found, _) = authenticate(&source, Some(&header("held")), &spent).unwrap();
        assert_eq!((found.key_id.as_str(), source.checks.get()), ("a", 0));
    }

    #[test]
    fn a_stranger_out_of_keyless_budget_gets_429_without_a_check() {
        let source = Source::default();
        let bucket = Bucket(Cell::new(2));
        for _ in 0..2 {
            let refused = authenticate(&source, Some(&header("guess")), &bucket);
            assert_eq!(refused, Err(ApiError::InvalidApiKey));
        }
        let refused = authenticate(&source, Some(&header("guess")), &bucket);
        assert!(matches!(refused, Err(ApiError::RateLimited { .. })));
        assert!(matches!(
            authenticate(&source, None, &bucket),
            Err(ApiError::RateLimited { .. })
        ));
        assert_eq!(source.checks.get(), 2, "one check per token, none after");
    }

    #[test]
    fn a_key_found_by_the_check_is_served_and_its_token_given_back() {
        let source = Source::default();
        source
            .newer
            .borrow_mut()
            .insert(keys::hash("new"), caller("n"));
        let bucket = Bucket(Cell::new(1));
        let (found, _) = authenticate(&source, Some(&header("new")), &bucket).unwrap();
        assert_eq!(found.key_id, "n");
        assert_eq!((bucket.0.get(), source.checks.get()), (1, 1));
    }
}
