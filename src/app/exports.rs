//! Export Areas as an HTTP answer: the plan check, a slot among the
//! `MAX_EXPORTS` that may stream at once (and the `--max-exports-per-key`
//! of one key), the validators and the attachment's name. The body itself is api/export.rs's, streamed by the
//! transport on a thread of its own, so exports never hold a worker.
//!
//! A slot is taken before the body is made and given back when the body is
//! dropped, whether the download finished or the client went away; past the
//! bound an export is refused with 503 and Retry-After instead of queueing.

use std::io::Read;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::http::{Request, Response, Stream, etag_matches, etag_of};
use crate::access::keys::{self, Caller};
use crate::api::contract::EXPORT_PLAN;
use crate::api::export::Export;
use crate::api::format::{Format, Representation};
use crate::api::params::ExportParams;
use crate::data::dataset::Dataset;
use crate::error::{ApiError, ApiResult};

/// Exports streaming at once, at most. Each holds a database connection (of
/// the dataset's export pool, data/dataset.rs) and a thread for as long as
/// its client reads, and takes CPU beside the workers' (measured
/// at four, bench/RESULTS.md): a number to change with a measurement, not
/// a flag. A client too slow to take its export is closed
/// (transport/export_pace.rs), so slow readers do not hold these for long.
pub const MAX_EXPORTS: usize = 4;
/// Exports one key may stream at once by default (`--max-exports-per-key`,
/// 1 to `MAX_EXPORTS`), so that one client cannot hold every slot.
pub const DEFAULT_MAX_EXPORTS_PER_KEY: usize = 2;

/// The exports streaming now, by key (a key with none has no entry), and
/// how many one key may stream.
#[derive(Debug, Clone)]
pub struct ExportSlots {
    running: Arc<Mutex<HashMap<String, usize>>>,
    per_key: usize,
}

impl Default for ExportSlots {
    fn default() -> ExportSlots {
        ExportSlots::new(DEFAULT_MAX_EXPORTS_PER_KEY)
    }
}

impl super::App {
    /// Lets one key stream `per_key` exports at once (`--max-exports-per-key`).
    pub fn with_exports_per_key(mut self, per_key: usize) -> super::App {
        self.exports = ExportSlots::new(per_key);
        self
    }
}

/// One export's slot, given back when dropped.
struct Slot {
    slots: ExportSlots,
    key_id: String,
}

impl ExportSlots {
    pub fn new(per_key: usize) -> ExportSlots {
        ExportSlots {
            running: Arc::default(),
            per_key: per_key.clamp(1, MAX_EXPORTS),
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        // The counts stay whole even if a holder panicked: each change is
        // one step under the lock.
        self.running
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn take(&self, key_id: &str) -> ApiResult<Slot> {
        let mut running = self.running();
        let mine = running.get(key_id).copied().unwrap_or(0);
        if mine >= self.per_key {
            return Err(ApiError::ExportsBusy {
                running: mine,
                per_key: true,
            });
        }
        let all: usize = running.values().sum();
        if all >= MAX_EXPORTS {
            return Err(ApiError::ExportsBusy {
                running: all,
                per_key: false,
            });
        }
        *running.entry(key_id.to_string()).or_default() += 1;
        Ok(Slot {
            slots: self.clone(),
            key_id: key_id.to_string(),
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut running = self.slots.running();
        if let Some(n) = running.get_mut(&self.key_id) {
            *n -= 1;
            if *n == 0 {
                running.remove(&self.key_id);
            }
        }
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
    caller: &Caller,
    (p, chosen): (&ExportParams, Representation),
    slots: &ExportSlots,
) -> ApiResult<Response> {
    keys::require(caller.plan, EXPORT_PLAN, "the export", None)?;
    let format = chosen.format;
    let province = p.province.unwrap_or("");
    // The same dataset file, format and province make the same bytes.
    let geometry = format!("{:?}", p.geometry);
    let tag = etag_of(
        format!(
            "{}/{}/{province}/{geometry}",
            dataset.version,
            format.name()
        )
        .as_bytes(),
    );
    let mut response = Response {
        status: 200,
        headers: vec![
            ("Content-Type", format.content_type().into()),
            ("Content-Disposition", disposition(dataset, format)),
            ("ETag", tag.clone()),
            ("Vary", chosen.vary().into()),
        ],
        body: Vec::new(),
        stream: None,
        caller: None,
    };
    let fresh = req
        .if_none_match
        .as_deref()
        .is_some_and(|h| etag_matches(h, &tag));
    if fresh {
        return Ok(response);
    }
    let total = dataset.list_totals.of(p.province);
    response.headers.push(("X-Total-Count", total.to_string()));
    if req.method == "HEAD" {
        // The same head as a GET's (chunked, no length), and no body.
        response.stream = Some(Stream(Box::new(std::io::empty())));
        return Ok(response);
    }
    let slot = slots.take(&caller.key_id)?;
    let export = Export::new(
        dataset.export_pool.get()?,
        (format, p.geometry),
        p.province,
        total,
    );
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
    fn slots_are_bounded_in_all_and_by_key_and_given_back_when_dropped() {
        let slots = ExportSlots::default();
        let per_key = DEFAULT_MAX_EXPORTS_PER_KEY;
        let a: Vec<Slot> = (0..per_key).map(|_| slots.take("a").unwrap()).collect();
        assert_eq!(
            slots.take("a").err(),
            Some(ApiError::ExportsBusy {
                running: per_key,
                per_key: true
            })
        );
        let b: Vec<Slot> = (0..MAX_EXPORTS - per_key)
            .map(|_| slots.take("b").unwrap())
            .collect();
        assert_eq!(
            slots.take("c").err(),
            Some(ApiError::ExportsBusy {
                running: MAX_EXPORTS,
                per_key: false
            })
        );
        drop(a);
        assert!(slots.take("a").is_ok(), "key a's slots came back");
        drop(b);
        assert!(slots.running().is_empty(), "every slot came back");
    }

    #[test]
    fn the_cap_per_key_is_the_one_configured() {
        let one = ExportSlots::new(1);
        let _a = one.take("a").unwrap();
        assert!(matches!(
            one.take("a"),
            Err(ApiError::ExportsBusy { per_key: true, .. })
        ));
        assert!(one.take("b").is_ok(), "another key has its own");
        let all = ExportSlots::new(MAX_EXPORTS);
        let held: Vec<Slot> = (0..MAX_EXPORTS).map(|_| all.take("a").unwrap()).collect();
        assert!(matches!(
            all.take("b"),
            Err(ApiError::ExportsBusy { per_key: false, .. })
        ));
        drop(held);
    }
}
