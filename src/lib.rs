//! The Area Scoring API: a read-only HTTP JSON service over scored areas.
//!
//! The folders are the subsystems; each depends only on those listed after it:
//! - `cli`: the commands, their flags and help;
//! - `server`: the app on the HTTP layer: what it opens, its threads, signals, the stop;
//! - `app`: one request from start to finish, CORS, metrics, the OpenAPI document;
//! - `transport`: the HTTP/1.1 layer (on httparse) over any `Service`, with the
//!   `Request` and `Response` it trades and its own counters: the listener,
//!   the workers, each connection's phase, the layer's stop;
//! - `api`: routes, query parameters and the endpoint handlers;
//! - `access`: API keys, plans and rate limits;
//! - `data`: database files, the served dataset, building and importing data;
//! - `search`: what is kept in memory about every area, and searching it;
//! - `domain`, `dates`, `error`, `file_error`: the vocabulary, calendar, error
//!   shape and failed file all share.

pub mod access;
pub mod api;
pub mod app;
pub mod cli;
pub mod data;
pub mod dates;
pub mod domain;
pub mod error;
pub mod file_error;
pub mod search;
pub mod server;
pub mod transport;
