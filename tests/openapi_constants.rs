//! docs/openapi.json against the Rust constants it describes: `api::contract`
//! (every query parameter's bounds, defaults and words, and which parameters
//! each operation takes), the representations of `api::format`, the
//! vocabulary of `domain` (provinces, dimensions, plans), the errors of
//! `error` (codes, statuses, fields, size limits) and the rate limits'
//! headers.
//!
//! contract/build_openapi.py writes the document with its own copies of these
//! values; these tests are what make a value changed on one side only fail
//! `make test`, without a server or schemathesis. One test per operation or
//! per kind of check, so that one drift does not hide another.
//!
//! - `answers`: the fields of every error body, the RateLimit fields and
//!   which answers carry them, and the headers CORS exposes;
//! - `doc`: reading the document (parameters, schemas, references);
//! - `operations`: each operation's parameters against `api::contract`, and
//!   the search item's `match` and Get Area's `other_names`;
//! - `patterns`: the string parameters' patterns (bbox, ids, dimensions,
//!   include) against the server's own parsers, through `regex`;
//! - `vocabulary`: representations, errors, provinces, dimensions, plans,
//!   docs/api.md's parameter tables and its account of forgiving search.

mod answers;
mod doc;
mod operations;
mod patterns;
mod regex;
mod vocabulary;
