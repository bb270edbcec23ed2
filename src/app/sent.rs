//! Body bytes of the answers handed to the connections, by content coding,
//! for /metrics (`area_response_body_bytes_total`): a whole body when the
//! answer is made, a streamed one as the transport reads it.

use std::fmt::Write;
use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::encoding::Coding;
use crate::transport::{Response, Stream};

/// Bytes of bodies by coding.
#[derive(Default)]
pub struct BodyBytes {
    identity: AtomicU64,
    gzip: AtomicU64,
}

impl BodyBytes {
    fn of(&self, coding: Coding) -> &AtomicU64 {
        match coding {
            Coding::Identity => &self.identity,
            Coding::Gzip => &self.gzip,
        }
    }

    pub fn add(&self, coding: Coding, bytes: usize) {
        self.of(coding).fetch_add(bytes as u64, Ordering::Relaxed);
    }

    pub fn render(&self, out: &mut String) {
        out.push_str(
            "# HELP area_response_body_bytes_total Bytes of answer bodies sent, by content coding.\n\
             # TYPE area_response_body_bytes_total counter\n",
        );
        for coding in [Coding::Gzip, Coding::Identity] {
            let n = self.of(coding).load(Ordering::Relaxed);
            let name = coding.name();
            let _ = writeln!(
                out,
                "area_response_body_bytes_total{{encoding=\"{name}\"}} {n}"
            );
        }
    }
}

/// Counts `response`'s body: now if whole, as it is read if streamed. A
/// HEAD answer sends none.
pub fn count(counts: &Arc<BodyBytes>, response: &mut Response, head_only: bool) {
    if head_only {
        return;
    }
    let coding = match response.header("Content-Encoding") {
        Some("gzip") => Coding::Gzip,
        _ => Coding::Identity,
    };
    match response.stream.take() {
        Some(Stream(body)) => {
            response.stream = Some(Stream(Box::new(Counted {
                body,
                counts: counts.clone(),
                coding,
            })));
        }
        None => counts.add(coding, response.body.len()),
    }
}

/// A streamed body that counts what is read of it.
struct Counted {
    body: Box<dyn Read + Send>,
    counts: Arc<BodyBytes>,
    coding: Coding,
}

impl Read for Counted {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.body.read(out)?;
        self.counts.add(self.coding, n);
        Ok(n)
    }
}
