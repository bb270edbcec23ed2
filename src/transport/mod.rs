//! The HTTP/1.1 layer the project owns: httparse reads each request head,
//! and everything around it is here (docs/http-layer.md is its contract).
//! It serves any `Service` and needs nothing else of the crate but the
//! error shape and the calendar (examples/layer_floor.rs runs it alone).
//!
//! The files, in the order a request meets them:
//! - layer.rs starts the layer and holds what its threads share;
//! - listener.rs makes a listener and the switch that stops it accepting;
//! - workers.rs runs the workers, all waiting at once on one readiness set
//!   (epoll.rs, with the tick and the stop event of timers.rs), and sweeps
//!   the timeouts;
//! - accept.rs admits connections into table.rs's table, under the caps of
//!   limits.rs, believing the fronts of trusted_proxies.rs about the client;
//! - conn.rs is one connection's turn, phase.rs the phase it is in (idle,
//!   reading a head, writing, lingering) and its timeouts, linger.rs the
//!   lingering close;
//! - head.rs parses a request head (head_tests.rs tests it);
//! - request.rs and response.rs are what the layer and its service trade,
//!   service.rs the `Service` and the meeting with it, serialize.rs an
//!   answer's bytes;
//! - stream.rs streams an export on a thread of its own, export_pace.rs how slowly
//!   its client may read it;
//! - access_log.rs is the log's thread, log_target.rs what it prints of a
//!   target, counters.rs what the layer counts;
//! - drain.rs stops the layer.
//!
//! The threads are the workers, the access-log writer, and one per export
//! while it streams. An idle connection holds a descriptor and a small
//! buffer, no thread.
//!
//! When stopped, the listeners stop accepting at once (new connections are
//! refused; see `AcceptSwitch`); every complete request already received
//! is answered, the last on its connection with `Connection: close`; idle
//! connections close once nothing has come for `QUIET`; all of it ends
//! within `SHUTDOWN_DEADLINE`.

use std::thread::{self, JoinHandle};

pub use access_log::Logged;
pub use counters::LayerCounts;
pub use drain::{AFTER_DEADLINE, join_within};
pub use layer::{Layer, LayerConfig};
pub use limits::ConnLimits;
pub use log_target::{LOGGED_TARGET_BYTES, loggable_target};
pub use request::{Request, RequestIds, is_safe_request_id};
pub use response::{JSON, Response, Stream};
pub use service::Service;

// epoll, timerfd and eventfd are Linux's.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
compile_error!("the HTTP layer waits on epoll (src/transport/epoll.rs): it builds on Linux only");

mod accept;
mod access_log;
mod conn;
mod counters;
mod drain;
mod epoll;
pub mod export_pace;
pub mod head;
mod layer;
pub mod limits;
mod linger;
pub mod listener;
mod log_target;
mod phase;
mod request;
mod response;
mod serialize;
mod service;
mod stream;
mod table;
mod timers;
pub mod trusted_proxies;
mod workers;

/// Starts a named thread.
pub fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> Result<JoinHandle<()>, String> {
    thread::Builder::new()
        .name(name.into())
        .spawn(f)
        .map_err(|e| format!("cannot start a thread: {e}"))
}
