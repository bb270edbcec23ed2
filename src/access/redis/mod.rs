//! Keys, plans, rate-limit state and usage shared by every server on every
//! host through Redis, used only when Redis is named (`AREA_REDIS` or
//! `--redis`; docs/deployment.md, "More than one host"). Without it the
//! keys file and buckets in the process serve, as on one host.
//!
//! `url` reads the URL and keeps its password out of every printed form,
//! `url_file` reads it from the file `AREA_REDIS_FILE` names;
//! `conn` bounds each call by a timeout and knows whether Redis is up;
//! `keys` holds keys and plans, `budget` each key's one bucket, `usage` the
//! counts (sent as a `batch`); `invalid_values` what is found there that no command wrote; `live` is a
//! server's link (loads, watch, snapshot); `instance` names each server's
//! snapshot and spool files, and `spools` has each spool sent by one server
//! only; `files` moves a keys file into Redis and Redis back into files (migrate, backup),
//! `file_usage` a usage file's counts by difference.

pub mod batch;
pub mod budget;
pub mod conn;
pub mod file_usage;
pub mod files;
pub mod instance;
pub mod invalid_values;
pub mod keys;
pub mod live;
pub mod spools;
pub mod url;
pub mod url_file;
pub mod usage;

pub use conn::RedisError;
