//! Export Areas as an HTTP answer: the plan check, a slot among the
//! `MAX_EXPORTS` that may stream at once, the validators and the
//! attachment's name. The body itself is api/export.rs's, streamed by the
//! transport on a thread of its own, so exports never hold a worker.
//!
//! A slot is taken before the body is made and given back when the body is
//! dropped, whether the download finished or the client went away; past the
//! bound an export is refused with 503 and Retry-After instead of queueing.

use std::io::Read;

use rusqlite::Connection;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::http::{Request, Response, Stream, etag_matches, etag_of};
use crate::access::keys::{self, Caller};
use crate::api::contract::{EXPORT_FORMATS, EXPORT_PLAN};
use crate::api::export::Export;
use crate::api::format::{Format, negotiate};
use crate::api::params::ExportParams;
use crate::data::dataset::Dataset;
use crate::error::{ApiError, ApiResult};

/// Exports streaming at once, at most. Each holds a database connection and
/// a thread for as long as its client reads, so the pool is made larger by
/// as many (transport/mod.rs).
pub const MAX_EXPORTS: usize = 4;

/// The exports streaming now.
#[derive(Debug, Default, Clone)]
pub struct ExportSlots(Arc<AtomicUsize>);

/// One export's slot, given back when dropped.
struct Slot(Arc<AtomicUsize>);

impl ExportSlots {
    fn take(&self) -> ApiResult<Slot> {
        self.0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < MAX_EXPORTS).then_some(n + 1)
            })
            .map(|_| Slot(self.0.clone()))
            .map_err(|running| ApiError::ExportsBusy { running })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The export's body with its slot: the slot lives as long as the stream.
struct Slotted {
    export: Export,
    _slot: Slot,
}

impl Read for Slotted {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        self.export.read(out)
    }
}

pub fn answer(
    req: &Request,
    dataset: &Dataset,
    conn: &Connection,
    caller: &Caller,
    p: &ExportParams,
    slots: &ExportSlots,
) -> ApiResult<Response> {
    keys::require(caller.plan, EXPORT_PLAN, "the export")?;
    let format = negotiate(p.format, req.accept.as_deref(), &EXPORT_FORMATS);
    let province = p.province.unwrap_or("");
    // The same dataset file, format and province make the same bytes.
    let tag = etag_of(format!("{}/{}/{province}", dataset.version, format.name()).as_bytes());
    let mut response = Response {
        status: 200,
        headers: vec![
            ("Content-Type", format.content_type().into()),
            ("Content-Disposition", disposition(dataset, format)),
            ("ETag", tag.clone()),
            ("Vary", "Authorization, Accept".into()),
        ],
        body: Vec::new(),
        stream: None,
    };
    let fresh = req
        .if_none_match
        .as_deref()
        .is_some_and(|h| etag_matches(h, &tag));
    if fresh {
        return Ok(response);
    }
    let total = crate::api::areas::count(conn, p.province)?;
    response.headers.push(("X-Total-Count", total.to_string()));
    if req.method == "HEAD" {
        // The same head as a GET's (chunked, no length), and no body.
        response.stream = Some(Stream(Box::new(std::io::empty())));
        return Ok(response);
    }
    let slot = slots.take()?;
    let export = Export::new(dataset.pool.get()?, format, p.province, total);
    response.stream = Some(Stream(Box::new(Slotted {
        export,
        _slot: slot,
    })));
    Ok(response)
}

/// `attachment; filename="areas-YYYY-MM-DD.EXT"`, dated by the dataset's
/// latest updated_at.
fn disposition(dataset: &Dataset, format: Format) -> String {
    let day = dataset.latest_update.get(..10).unwrap_or("");
    let stem = if day.is_empty() {
        "areas".to_string()
    } else {
        format!("areas-{day}")
    };
    format!("attachment; filename=\"{stem}.{}\"", format.extension())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_bounded_and_given_back_when_dropped() {
        let slots = ExportSlots::default();
        let taken: Vec<Slot> = (0..MAX_EXPORTS).map(|_| slots.take().unwrap()).collect();
        assert_eq!(
            slots.take().err(),
            Some(ApiError::ExportsBusy {
                running: MAX_EXPORTS
            })
        );
        drop(taken);
        assert!(slots.take().is_ok(), "every slot came back");
    }
}
