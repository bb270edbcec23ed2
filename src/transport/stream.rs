//! Answers whose body is made as it is sent (the export): written by
//! tiny_http in chunks, on a thread of their own, so that a slow download
//! never holds one of the workers. How many may run at once is the app's
//! business (app/exports.rs); the body gives its slot back when it is dropped.

use tiny_http::{Header, StatusCode};

use crate::app::http::{Response, Stream};

/// Sends `response`, whose `stream` is set, from a new thread.
pub fn send(request: tiny_http::Request, mut response: Response) {
    let Some(Stream(body)) = response.stream.take() else {
        return;
    };
    let mut tiny =
        tiny_http::Response::new(StatusCode(response.status), Vec::new(), body, None, None);
    for (name, value) in &response.headers {
        if let Ok(h) = Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            tiny.add_header(h);
        }
    }
    let started = std::thread::Builder::new()
        .name("stream".into())
        .spawn(move || {
            yield_to_workers();
            // No length is known in advance: HTTP/1.1 clients get chunks.
            if let Err(e) = request.respond(tiny) {
                log::info!("a streamed answer ended early: {e}");
            }
        });
    if let Err(e) = started {
        // Dropping the request unanswered closes its connection; the body
        // and its slot are dropped with the thread's closure.
        log::error!("cannot start a thread to stream an answer: {e}");
    }
}

/// The nice value of a streaming thread. Making an export is CPU work
/// (reading and formatting every area); at nice 0, four of them on two cores
/// took Get Area's p99 from 1.6 ms to 318 ms at 100,000 areas. At a higher
/// nice value the scheduler gives the workers the CPU first and the exports
/// what is left (bench/RESULTS.md, "Export").
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
        log::debug!(
            "a streaming thread keeps its priority: {}",
            std::io::Error::last_os_error()
        );
    }
}

#[cfg(not(target_os = "linux"))]
fn yield_to_workers() {}
