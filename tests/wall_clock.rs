//! Tests bound by wall-clock time (timeouts, "within N ms"), one module per
//! subject under tests/wall_clock/.

mod common;

// A crate root finds its modules beside it (tests/), hence the paths.
#[path = "wall_clock/http_layer.rs"]
mod http_layer;
