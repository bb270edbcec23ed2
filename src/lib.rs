//! The Area Scoring API: a read-only HTTP JSON service over scored areas.
//!
//! `cli` runs the commands; `server` listens and hands requests to `app`,
//! which authenticates (`auth`), routes (`router`), parses parameters
//! (`query`, `params`) and calls a handler in `api`. `db` opens the database
//! that `load` builds from `seed`.

pub mod api;
pub mod app;
pub mod area_index;
pub mod auth;
pub mod circle_search;
pub mod cli;
pub mod config;
pub mod dataset;
pub mod dates;
pub mod db;
pub mod domain;
pub mod error;
pub mod file_swap;
pub mod geo;
pub mod http;
pub mod import;
pub mod listener;
pub mod load;
pub mod match_cache;
pub mod metrics;
pub mod params;
pub mod query;
pub mod ratelimit;
pub mod router;
pub mod seed;
pub mod server;
pub mod synthetic;
pub mod usage;
