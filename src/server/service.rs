//! The app as the layer's `Service`: a request goes to the app's pipeline
//! (or, on the metrics listener, to /metrics alone), and an answer the
//! layer gives itself carries the app's headers and is counted in /metrics
//! as a request no route matched.

use std::time::Duration;

use crate::app::metrics::UNMATCHED;
use crate::app::{App, stamp};
use crate::transport::{Request, Response, Service};

impl Service for App {
    fn answer(&self, req: &Request, metrics_only: bool) -> Response {
        if metrics_only {
            self.handle_metrics_only(req)
        } else {
            self.handle(req)
        }
    }

    fn stamp(&self, response: &mut Response, request_id: String) {
        stamp(response, request_id);
    }

    fn count_refused(&self, status: u16) {
        self.metrics.record(UNMATCHED, status, Duration::ZERO);
    }
}
