//! The OpenAPI document: docs/openapi.json is what `area-scoring openapi`
//! prints and the server serves, and what the document says holds of the
//! server. The document is built from the contract's own values
//! (src/api/openapi/), so these tests check what building cannot: that the
//! committed file is current, and that the document agrees with what the
//! server does.
//!
//! - `answers`: every error body the server writes against its schema, the
//!   RateLimit fields the server sends against their patterns, and which
//!   answers carry which headers;
//! - `api_page`: docs/api.md's parameter tables and its account of
//!   forgiving search against the contract;
//! - `doc`: reading the document (parameters, schemas, references);
//! - `errors`: every error the server can write is documented;
//! - `generated`: docs/openapi.json is the binary's document, and the one served;
//! - `parsers`: the parsers take every documented parameter and no other;
//! - `patterns`: the string parameters' patterns (bbox, ids, dimensions,
//!   include, q) against the server's own parsers, through `regex`.

mod answers;
mod api_page;
mod doc;
mod errors;
mod generated;
mod parsers;
mod patterns;
mod regex;
