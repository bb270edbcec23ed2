//! One request from tiny_http's queue to its answer on the wire: which thread
//! answers it (conns.rs), a body refused before the app sees the request, and
//! a client that stops reading handed to a thread of its own so that it holds
//! no worker (docs/http-layer.md, "Pipelining" and "Request bodies").

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use tiny_http::Request;

use super::Shared;
use super::conns::Arrival;
use super::wire::{self, Body, to_request};
use super::write::{Pending, Written};
use crate::app::App;
use crate::app::http::{self, Response};
use crate::app::stamp;
use crate::error::ApiError;

/// Connections at most whose answers wait, each on a thread of its own, for
/// a client that stopped reading. Past that, such a connection is given up at
/// once: its answer is cut short and its later requests are dropped.
pub(super) const MAX_SLOW_WRITERS: usize = 64;

/// Counts a thread as busy while it lives, also if the app panics.
pub(super) struct Busy<'a>(&'a AtomicUsize);

impl<'a> Busy<'a> {
    pub(super) fn enter(count: &'a AtomicUsize) -> Busy<'a> {
        count.fetch_add(1, Ordering::SeqCst);
        Busy(count)
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

pub(super) fn serve(app: &Arc<App>, shared: &Arc<Shared>, request: Request) {
    let _busy = Busy::enter(&shared.busy);
    let Some(peer) = request.remote_addr().copied() else {
        // Not a TCP connection (no peer to key it by): answer it as it is.
        if let Some(pending) = prepare(app, shared, None, request) {
            pending.finish(shared.client_timeout);
        }
        return;
    };
    match shared.conns.arrive(peer, request) {
        Arrival::Refused(request) => wire::discard(request),
        Arrival::Parked => {}
        Arrival::Serve(request) => own(app, shared, peer, request),
    }
}

/// Answers `first`, then each request parked on `peer` meanwhile.
fn own(app: &Arc<App>, shared: &Arc<Shared>, peer: SocketAddr, first: Request) {
    let mut next = Some(first);
    while let Some(request) = next {
        if let Some(pending) = prepare(app, shared, Some(peer), request) {
            // A streamed answer (the export) is written by a thread of its
            // own from the start: however fast its client, it would hold a
            // worker for as long as the whole body takes.
            if pending.is_streamed() {
                return hand_off(app, shared, peer, pending);
            }
            if let Written::Stalled(pending) = pending.push() {
                return hand_off(app, shared, peer, pending);
            }
        }
        next = shared.conns.next(peer);
    }
}

/// Leaves a stalled or streamed answer, and the connection with it, to a
/// thread of its own. Streams are bounded by the app (app/exports.rs), the
/// stalled ones here.
fn hand_off(app: &Arc<App>, shared: &Arc<Shared>, peer: SocketAddr, pending: Pending) {
    let streamed = pending.is_streamed();
    if shared.slow.fetch_add(1, Ordering::SeqCst) >= MAX_SLOW_WRITERS && !streamed {
        shared.slow.fetch_sub(1, Ordering::SeqCst);
        log::warn!(
            "{peer} stopped reading and {MAX_SLOW_WRITERS} others wait already; giving it up"
        );
        return give_up(shared, peer);
    }
    let (app2, shared2) = (app.clone(), shared.clone());
    let spawned = std::thread::Builder::new()
        .name(if streamed { "stream" } else { "slow-writer" }.into())
        .spawn(move || {
            // Counted from before the spawn, so that shutdown never misses it.
            let _slow = Busy(&shared2.slow);
            if streamed {
                yield_to_workers();
            }
            keep_writing(&app2, &shared2, peer, pending);
        });
    if let Err(e) = spawned {
        shared.slow.fetch_sub(1, Ordering::SeqCst);
        log::error!("cannot start a thread for {peer}, which stopped reading: {e}");
        give_up(shared, peer);
    }
}

/// Writes for as long as the client takes a byte every `--client-timeout`,
/// then answers the connection's parked requests the same way.
fn keep_writing(app: &Arc<App>, shared: &Arc<Shared>, peer: SocketAddr, first: Pending) {
    let mut pending = Some(first);
    loop {
        if let Some(p) = pending.take() {
            let streamed = p.is_streamed();
            if !p.finish(shared.client_timeout) {
                log::warn!("{peer}'s answer was not finished; dropping its queued requests");
                give_up(shared, peer);
            } else if streamed {
                // A streamed answer says Connection: close; the client
                // sends nothing more here (tiny_http closes the connection
                // once its read times out).
                return give_up(shared, peer);
            }
        }
        let Some(request) = shared.conns.next(peer) else {
            return;
        };
        pending = prepare(app, shared, Some(peer), request);
    }
}

/// Refuses the rest of `peer`'s requests and drops those parked.
fn give_up(shared: &Shared, peer: SocketAddr) {
    for request in shared.conns.refuse(peer) {
        wire::discard(request);
    }
}

/// The answer to `request`, ready to write; None if there is none to write.
fn prepare(
    app: &App,
    shared: &Shared,
    peer: Option<SocketAddr>,
    request: Request,
) -> Option<Pending> {
    let body = wire::body(&request);
    // Refused before the request (and the body reader in it) is let go: what
    // tiny_http reads next on the connection may be the body, as a request.
    if let (Body::Refused | Body::Unread, Some(peer)) = (&body, peer) {
        give_up(shared, peer);
    }
    if body == Body::Unread {
        wire::abandon(request);
        return None;
    }
    let started = Instant::now();
    let ours = to_request(&request);
    let mut response = match body {
        Body::None => app.handle(&ours),
        _ => refusal(shared, &ours, &ApiError::BodyNotAllowed),
    };
    if let (Some(_), Some(refused)) = (&response.stream, stream_refused(&request, shared)) {
        // Dropping the streamed answer gives its export slot back.
        response = refusal(shared, &ours, &refused);
    }
    log::info!(
        "{} {} {} {:.2}ms {}",
        ours.method,
        http::loggable_target(&ours.target),
        response.status,
        started.elapsed().as_secs_f64() * 1000.0,
        response.header("X-Request-Id").unwrap_or("-"),
    );
    // Read at the write: a request taken before the signal may be answered after it.
    let closing = body != Body::None || shared.stopping.load(Ordering::SeqCst);
    if response.stream.is_some() {
        return Some(wire::streamed(request, response));
    }
    let (bytes, writer) = wire::answer(request, response, closing);
    Some(Pending::new(bytes, writer))
}

/// An error answered by the transport, with the headers every answer carries.
fn refusal(shared: &Shared, req: &http::Request, err: &ApiError) -> Response {
    let mut response = Response::error(err);
    stamp(
        &mut response,
        shared.request_ids.for_request(req.request_id.as_deref()),
    );
    response
}

/// Why a streamed answer cannot be sent, if it cannot: HTTP/1.0 has no
/// chunks, and an export begun while the server stops would be cut off at
/// the shutdown deadline.
fn stream_refused(request: &Request, shared: &Shared) -> Option<ApiError> {
    if *request.http_version() < tiny_http::HTTPVersion(1, 1) {
        Some(ApiError::UpgradeRequired)
    } else if shared.stopping.load(Ordering::SeqCst) {
        Some(ApiError::ServiceUnavailable)
    } else {
        None
    }
}

/// The metrics listener answers GET /metrics and nothing else, one at a time.
pub(super) fn serve_metrics(app: &App, shared: &Shared, request: Request) {
    if wire::body(&request) == Body::Unread {
        return wire::abandon(request);
    }
    let response = app.handle_metrics_only(&to_request(&request));
    let closing = shared.stopping.load(Ordering::SeqCst);
    let (bytes, writer) = wire::answer(request, response, closing);
    Pending::new(bytes, writer).finish(shared.client_timeout);
}

/// The nice value of a thread that streams an answer. Making an export is
/// CPU work (reading and formatting every area); at nice 0, four of them on
/// two cores took Get Area's p99 beside them from 1.6 ms to 318 ms at
/// 100,000 areas, and at nice 10 to 20 ms (bench/RESULTS.md, "Export"): the
/// scheduler gives the workers the CPU first, and the exports what is left.
const STREAM_NICE: i32 = 10;

/// Lowers the calling thread's priority. On Linux the nice value belongs to
/// each thread, and setpriority with PRIO_PROCESS and 0 sets the caller's.
#[cfg(target_os = "linux")]
fn yield_to_workers() {
    const PRIO_PROCESS: i32 = 0;
    unsafe extern "C" {
        fn setpriority(which: i32, who: u32, prio: i32) -> i32;
    }
    // SAFETY: setpriority takes no pointer and changes only the scheduling
    // priority of this thread.
    if unsafe { setpriority(PRIO_PROCESS, 0, STREAM_NICE) } != 0 {
        let e = std::io::Error::last_os_error();
        log::debug!("a streaming thread keeps its priority: {e}");
    }
}

#[cfg(not(target_os = "linux"))]
fn yield_to_workers() {}
