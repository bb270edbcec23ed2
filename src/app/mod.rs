//! One request from start to finish: size limits, CORS preflight, public
//! routes, then the API pipeline: authenticate, rate-limit, route, check the
//! method, parse parameters, check the plan, run the handler, cache headers.
//!
//! The order of the API checks is part of the contract: the first that fails
//! answers (401, 429, 404 not_found, 405, 400, 403, 404 area_not_found).
//! `public` answers the routes that need no key (`pages` the browser's,
//! `openapi` the document that describes every answer);
//! `endpoints` calls the
//! handler of an API route; `http` adds CORS to the layer's `Request` and
//! `Response` (src/transport/);
//! `caching` tags and encodes a successful answer (`encoding`, `gzip`);
//! `sent` counts the body bytes handed to the connection.

mod caching;
pub mod encoding;
mod endpoints;
pub mod exports;
pub mod gzip;
pub mod http;
mod key_info;
mod listing;
pub mod metrics;
pub mod openapi;
mod pages;
mod public;
pub mod redis_link;
mod sent;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Instant;

use self::http::{Request, RequestIds, Response};
use crate::access::buckets::REFILL;
use crate::access::key_store::KeyStore;
use crate::access::keys::Caller;
use crate::access::ratelimit::{Budget, Limiter};
use crate::access::usage::Usage;
use crate::api::query::Query;
use crate::api::router::{self, ALLOWED_METHODS, Method, Route};
use crate::app::metrics::Metrics;
use crate::data::dataset::Store;
use crate::dates;
use crate::error::{ApiError, ApiResult, MAX_HEADER_BYTES, MAX_TARGET_BYTES};

pub struct App {
    pub store: Store,
    /// The live keys and plan limits, read from the keys file.
    pub keys: KeyStore,
    /// Requests per key and day not yet in the usage file.
    pub usage: Usage,
    pub metrics: Arc<Metrics>,
    limiter: Limiter,
    request_ids: RequestIds,
    exports: exports::ExportSlots,
    /// False when --metrics-addr moves /metrics to a listener of its own.
    metrics_here: bool,
}

type RateHeaders = Vec<(&'static str, String)>;

impl App {
    pub fn new(store: Store, keys: KeyStore, usage: Usage, metrics_here: bool) -> App {
        App {
            store,
            keys,
            usage,
            metrics: Arc::new(Metrics::new()),
            limiter: Limiter::new(),
            request_ids: RequestIds::new(),
            exports: exports::ExportSlots::default(),
            metrics_here,
        }
    }

    /// Answers a request. Never panics: a panicking handler answers 500.
    pub fn handle(&self, req: &Request) -> Response {
        let started = Instant::now();
        let request_id = self.request_ids.for_request(req.request_id.as_deref());
        let route = router::resolve(req.path());
        // The caller is known before the handler runs, so that a key's
        // request is counted however it was answered, a panic's 500 too.
        let mut caller = None;
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            self.respond(req, route.as_ref(), &mut caller)
        }));
        let mut response = outcome.unwrap_or_else(|_| {
            log::error!("handler panicked on {} (request {request_id})", req.path());
            Response::error(&ApiError::Internal)
        });
        if let Some(caller) = caller {
            self.usage
                .count(&caller.key_id, response.status, dates::now_unix());
            response.caller = Some(caller.key_id);
        }
        stamp(&mut response, request_id);
        sent::count(
            &self.metrics.body_bytes,
            &mut response,
            req.method == "HEAD",
        );
        let label = route.as_ref().map_or(metrics::UNMATCHED, Route::label);
        self.metrics
            .record(label, response.status, started.elapsed());
        response
    }

    fn respond(
        &self,
        req: &Request,
        route: Option<&Route>,
        caller: &mut Option<Caller>,
    ) -> Response {
        if req.target.len() > MAX_TARGET_BYTES {
            return Response::error(&ApiError::UriTooLong);
        }
        if req.header_bytes > MAX_HEADER_BYTES {
            return Response::error(&ApiError::HeadersTooLarge);
        }
        let method = Method::parse(&req.method);
        match (route, method) {
            (Some(_), Method::Options) => http::preflight(ALLOWED_METHODS),
            (None, Method::Options) => Response::error(&ApiError::NotFound {
                path: req.path().into(),
            }),
            (Some(r), _) if r.is_public() => self
                .public(req, r, method)
                .unwrap_or_else(|e| Response::error(&e)),
            _ => {
                let mut rate_headers = RateHeaders::new();
                let result = self.api(req, route, method, &mut rate_headers, caller);
                let mut response = match result {
                    Ok(r) => caching::apply_caching(r, req),
                    Err(e) => Response::error(&e),
                };
                response.headers.extend(rate_headers);
                response
            }
        }
    }

    fn api(
        &self,
        req: &Request,
        route: Option<&Route>,
        method: Method,
        rate: &mut RateHeaders,
        counted: &mut Option<Caller>,
    ) -> ApiResult<Response> {
        // From memory: no SQL runs to authenticate (access/key_store.rs). A
        // request without a valid key counts against its client's keyless
        // budget, so that guessing keys is rate-limited too, and one past it
        // costs nothing more (access/authenticate.rs). Its answer announces
        // that budget.
        let keyless = self.limiter.keyless(req.client);
        let (caller, per_minute) = self
            .keys
            .authenticate(req.authorization.as_deref(), &keyless)
            .inspect_err(|_| {
                if let Some(budget) = keyless.last() {
                    push_rate_headers(rate, KEYLESS_POLICY, &budget, false);
                }
            })?;
        let caller = counted.insert(caller);
        // Asking what is left of a budget spends none of it.
        let spends = route != Some(&Route::Key);
        let budget = self.take_budget(caller, per_minute, spends, rate)?;
        let path = req.path();
        let route = route.ok_or_else(|| ApiError::NotFound {
            path: path.to_string(),
        })?;
        if method == Method::Other {
            return Err(ApiError::MethodNotAllowed {
                allow: ALLOWED_METHODS,
            });
        }
        let query = Query::parse(req.query(), route.params())?;
        if *route == Route::Key {
            crate::api::params::none(query)?;
            return Ok(key_info::answer(caller, budget.as_ref(), &self.usage));
        }
        let dataset = self.store.current()?;
        let conn = dataset.pool.get()?;
        // Every file served is read as immutable (db.rs, `open_pool`): a
        // statement takes no lock and makes no change check, so a request
        // needs no read transaction around its statements.
        let call = endpoints::Call {
            req,
            dataset: &dataset,
            conn: &conn,
            caller,
            exports: &self.exports,
        };
        endpoints::answer(&call, route, query)
    }

    /// Takes one request from the caller's bucket, or only reads it where
    /// the request `spends` nothing; unlimited plans have none.
    fn take_budget(
        &self,
        caller: &Caller,
        per_minute: Option<u32>,
        spends: bool,
        rate: &mut RateHeaders,
    ) -> ApiResult<Option<Budget>> {
        let Some(per_minute) = per_minute else {
            return Ok(None);
        };
        let now = Instant::now();
        let budget = if spends {
            self.limiter.take_key(&caller.key_id, per_minute, now)
        } else {
            self.limiter.peek_key(&caller.key_id, per_minute, now)
        };
        push_rate_headers(rate, caller.plan.name(), &budget, true);
        match budget.retry_after_secs {
            None => Ok(Some(budget)),
            Some(s) => Err(ApiError::RateLimited {
                retry_after_secs: s,
            }),
        }
    }
}

/// The policy name the RateLimit fields give the budget of requests without
/// a valid key; a key's budget is named by its plan.
const KEYLESS_POLICY: &str = "keyless";

/// A budget's headers: the IETF draft's `RateLimit-Policy` and `RateLimit`
/// fields (docs/api.md, "Rate limits"), and, for a key's budget, the
/// `X-RateLimit-*` headers that today's clients read. A token bucket's
/// window is the time it takes to fill from empty, and its reset (`t`) the
/// seconds until it is full.
fn push_rate_headers(rate: &mut RateHeaders, policy: &str, budget: &Budget, keyed: bool) {
    let window = REFILL.as_secs();
    rate.push((
        "RateLimit-Policy",
        format!("\"{policy}\";q={};w={window}", budget.limit),
    ));
    rate.push((
        "RateLimit",
        format!(
            "\"{policy}\";r={};t={}",
            budget.remaining, budget.reset_secs
        ),
    ));
    if keyed {
        rate.push(("X-RateLimit-Limit", budget.limit.to_string()));
        rate.push(("X-RateLimit-Remaining", budget.remaining.to_string()));
        rate.push(("X-RateLimit-Reset", budget.reset_secs.to_string()));
    }
}

/// The headers every answer carries: its request id and CORS.
pub fn stamp(response: &mut Response, request_id: String) {
    response.headers.push(("X-Request-Id", request_id));
    response
        .headers
        .extend(http::CORS_HEADERS.iter().map(|(n, v)| (*n, v.to_string())));
}
