//! One request from start to finish: size limits, CORS preflight, public
//! routes, then the API pipeline: authenticate, rate-limit, route, check the
//! method, parse parameters, check the plan, run the handler, cache headers.
//!
//! The order of the API checks is part of the contract: the first that fails
//! answers (401, 429, 404 not_found, 405, 400, 403, 404 area_not_found).

pub mod http;
pub mod metrics;

use std::net::IpAddr;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Instant;

use rusqlite::Connection;

use self::http::{Request, RequestIds, Response};
use crate::access::keys::{self, Caller};
use crate::access::ratelimit::{ANONYMOUS_PER_MINUTE, Limiter};
use crate::api;
use crate::api::params;
use crate::api::query::Query;
use crate::api::router::{self, ALLOWED_METHODS, Method, Route};
use crate::app::metrics::Metrics;
use crate::data::dataset::Store;
use crate::domain::Plan;
use crate::error::{ApiError, ApiResult, MAX_HEADER_BYTES, MAX_TARGET_BYTES};

/// The OpenAPI document, served as is at /v1/openapi.json.
const OPENAPI: &str = include_str!("../../docs/openapi.json");

pub struct App {
    pub store: Store,
    pub metrics: Arc<Metrics>,
    limiter: Limiter,
    request_ids: RequestIds,
    /// False when --metrics-addr moves /metrics to a listener of its own.
    metrics_here: bool,
}

type RateHeaders = Vec<(&'static str, String)>;

impl App {
    pub fn new(store: Store, metrics_here: bool) -> App {
        App {
            store,
            metrics: Arc::new(Metrics::new()),
            limiter: Limiter::new(),
            request_ids: RequestIds::new(),
            metrics_here,
        }
    }

    /// Answers a request. Never panics: a panicking handler answers 500.
    pub fn handle(&self, req: &Request) -> Response {
        let started = Instant::now();
        let request_id = self.request_ids.for_request(req.request_id.as_deref());
        let route = router::resolve(req.path());
        let outcome = catch_unwind(AssertUnwindSafe(|| self.respond(req, route.as_ref())));
        let mut response = outcome.unwrap_or_else(|_| {
            log::error!("handler panicked on {} (request {request_id})", req.path());
            Response::error(&ApiError::Internal)
        });
        stamp(&mut response, request_id);
        let label = route.as_ref().map_or("unmatched", Route::label);
        self.metrics
            .record(label, response.status, started.elapsed());
        response
    }

    fn respond(&self, req: &Request, route: Option<&Route>) -> Response {
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
                let result = self.api(req, route, method, &mut rate_headers);
                let mut response = match result {
                    Ok(r) => http::apply_caching(r, req.if_none_match.as_deref()),
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
    ) -> ApiResult<Response> {
        let dataset = self.store.current()?;
        let conn = dataset.pool.get()?;
        // One read transaction for all of a request's statements: one shared
        // lock and one change check, instead of a lock cycle (fcntl, stat of
        // the journal, a read of the header) per statement. It ends, without
        // writing anything, when `_read` drops.
        let _read = ReadTransaction::begin(&conn)?;
        let caller = match keys::authenticate(&conn, req.authorization.as_deref()) {
            Ok(caller) => caller,
            Err(e @ (ApiError::MissingApiKey | ApiError::InvalidApiKey)) => {
                // Without a valid key, count against the client's address.
                let who = req
                    .client
                    .map_or_else(|| "unknown".to_string(), |ip: IpAddr| ip.to_string());
                let budget =
                    self.limiter
                        .take(&format!("ip:{who}"), ANONYMOUS_PER_MINUTE, Instant::now());
                return Err(budget
                    .retry_after_secs
                    .map_or(e, |s| ApiError::RateLimited {
                        retry_after_secs: s,
                    }));
            }
            Err(e) => return Err(e),
        };
        self.take_budget(
            &caller,
            dataset.plan_limits.get(&caller.plan).copied().flatten(),
            rate,
        )?;
        let path = req.path();
        let route = route.ok_or_else(|| ApiError::NotFound {
            path: path.to_string(),
        })?;
        if method == Method::Other {
            return Err(ApiError::MethodNotAllowed {
                allow: ALLOWED_METHODS,
            });
        }
        let query = Query::parse(req.query())?;
        Ok(match route {
            Route::ListAreas => Response::ok(&api::areas::list(&conn, &params::list(query)?)?),
            Route::SearchAreas => Response::ok(&api::search::search(
                &conn,
                &dataset.index,
                &dataset.matches,
                &params::search(query)?,
            )?),
            Route::CompareAreas => {
                Response::ok(&api::compare::compare(&conn, &params::compare(query)?)?)
            }
            #[cfg(feature = "fault-injection")]
            Route::GetArea(id) if id == "_panic" => panic!("fault injection: a handler panics"),
            Route::GetArea(id) => {
                let p = params::area(query)?;
                if p.history {
                    keys::require(caller.plan, Plan::Growth)?;
                }
                Response::json(200, api::areas::get(&conn, &dataset.index, id, &p)?)
            }
            Route::AreaHistory(id) => {
                let p = params::history(query)?;
                keys::require(caller.plan, Plan::Growth)?;
                let area_no = api::areas::require_area(&conn, id)?;
                Response::ok(&api::history::get(&conn, id, area_no, &p)?)
            }
            Route::OpenApi | Route::Health | Route::Metrics => {
                unreachable!("public routes answer before the API")
            }
        })
    }

    /// Takes one request from the caller's bucket; unlimited plans have none.
    fn take_budget(
        &self,
        caller: &Caller,
        per_minute: Option<u32>,
        rate: &mut RateHeaders,
    ) -> ApiResult<()> {
        let Some(per_minute) = per_minute else {
            return Ok(());
        };
        let budget = self
            .limiter
            .take(&caller.key_id, per_minute, Instant::now());
        rate.push(("X-RateLimit-Limit", budget.limit.to_string()));
        rate.push(("X-RateLimit-Remaining", budget.remaining.to_string()));
        rate.push(("X-RateLimit-Reset", budget.reset_secs.to_string()));
        match budget.retry_after_secs {
            None => Ok(()),
            Some(s) => Err(ApiError::RateLimited {
                retry_after_secs: s,
            }),
        }
    }

    /// Routes that need no key: the OpenAPI document, health and metrics.
    fn public(&self, req: &Request, route: &Route, method: Method) -> ApiResult<Response> {
        if method == Method::Other {
            return Err(ApiError::MethodNotAllowed {
                allow: ALLOWED_METHODS,
            });
        }
        params::none(Query::parse(req.query())?)?;
        match route {
            Route::OpenApi => Ok(http::apply_caching(
                Response::json(200, OPENAPI.as_bytes().to_vec()),
                req.if_none_match.as_deref(),
            )),
            Route::Health => self.health(),
            Route::Metrics if self.metrics_here => Ok(self.metrics_response()),
            _ => Err(ApiError::NotFound {
                path: req.path().to_string(),
            }),
        }
    }

    fn health(&self) -> ApiResult<Response> {
        let dataset = self.store.current()?;
        let conn = dataset.pool.get()?;
        // Cached like the API's statements: load balancers poll this often.
        conn.prepare_cached("SELECT 1 FROM areas LIMIT 1")?
            .query_row([], |_| Ok(()))?;
        let body = format!("{{\"status\":\"ok\",\"areas\":{}}}", dataset.area_count);
        let mut response = Response::json(200, body.into_bytes());
        response.headers.push(("Cache-Control", "no-store".into()));
        Ok(response)
    }

    /// The --metrics-addr listener: GET /metrics and nothing else, stamped
    /// like every other answer.
    pub fn handle_metrics_only(&self, req: &Request) -> Response {
        let request_id = self.request_ids.for_request(req.request_id.as_deref());
        let mut response = match (Method::parse(&req.method), req.path()) {
            (Method::Get | Method::Head, "/metrics") => self.metrics_response(),
            (_, path) => Response::error(&ApiError::NotFound {
                path: path.to_string(),
            }),
        };
        stamp(&mut response, request_id);
        response
    }

    /// GET /metrics, on the main listener or on --metrics-addr.
    pub fn metrics_response(&self) -> Response {
        let pool = self.store.current().ok().map(|d| {
            let state = d.pool.state();
            (
                state.connections - state.idle_connections,
                state.idle_connections,
            )
        });
        Response {
            status: 200,
            headers: vec![
                (
                    "Content-Type",
                    "text/plain; version=0.0.4; charset=utf-8".into(),
                ),
                ("Cache-Control", "no-store".into()),
            ],
            body: self.metrics.render(pool).into_bytes(),
        }
    }
}

/// The headers every answer carries: its request id and CORS.
fn stamp(response: &mut Response, request_id: String) {
    response.headers.push(("X-Request-Id", request_id));
    response
        .headers
        .extend(http::CORS_HEADERS.iter().map(|(n, v)| (*n, v.to_string())));
}

/// A read transaction, begun and ended by cached statements: rusqlite's
/// Transaction parses BEGIN and its end anew on every request, which cost
/// about 5 us of a 100 us Get Area (perf, bench/PROFILE.md).
struct ReadTransaction<'c>(&'c Connection);

impl<'c> ReadTransaction<'c> {
    fn begin(conn: &'c Connection) -> rusqlite::Result<ReadTransaction<'c>> {
        conn.prepare_cached("BEGIN")?.execute([])?;
        Ok(ReadTransaction(conn))
    }
}

impl Drop for ReadTransaction<'_> {
    fn drop(&mut self) {
        // Nothing was written, so ending releases the shared lock and no
        // more. SQLite may already have ended it after an error; a
        // connection must never go back to the pool still holding the lock,
        // which would keep `keys` commands from writing.
        let ended = self
            .0
            .prepare_cached("COMMIT")
            .and_then(|mut s| s.execute([]));
        if ended.is_err() && !self.0.is_autocommit() {
            let _ = self.0.execute_batch("ROLLBACK");
        }
    }
}
