//! Who may call the API, how often, and how much they did: the keys file
//! (`key_file`) with its API keys (`keys`), plan limits (`plans`) and each
//! key's plans over time (`plan_history`), moved
//! out of old dataset files by `migrate`; the live keys held in memory
//! (`key_store`), and what a key not held costs (`authenticate`, with the
//! watcher's look for newer keys that it may wait for, `shared_check`);
//! each plan's request budget (`ratelimit`, its buckets in `buckets`); and
//! the requests
//! counted per key and UTC hour (`usage`: each key-hour's `counts`, read
//! back by `report`, added up for an invoice by `invoice` over the days of
//! a zone, `period`); the lock servers hold on the keys
//! file so that `restore` never swaps it under one (`serving_lock`); with
//! Redis named, all of it shared across hosts (`redis`). Every way these
//! fail is an `AccessError` (`error`).

pub mod authenticate;
pub mod buckets;
mod error;
pub mod key_file;
pub mod key_store;
pub mod keys;
pub mod migrate;
pub mod plan_history;
pub mod plans;
pub mod ratelimit;
pub mod redis;
pub mod serving_lock;
pub mod shared_check;
pub mod usage;

pub use error::AccessError;
