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
