//! One request from start to finish: authenticate, route, check the method,
//! parse parameters, check the plan, run the handler, and shape the response.
//!
//! The order of the checks is part of the API: the first that fails answers
//! (401, 404 not_found, 405, 400, 403, 404 area_not_found).

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::api;
use crate::auth;
use crate::db::Pool;
use crate::domain::Plan;
use crate::error::{ApiError, ApiResult};
use crate::http::{Request, RequestIds, Response};
use crate::params;
use crate::query::Query;
use crate::router::{self, ALLOWED_METHODS, Method, Route};

pub struct App {
    pool: Pool,
    request_ids: RequestIds,
}

impl App {
    pub fn new(pool: Pool) -> App {
        App {
            pool,
            request_ids: RequestIds::new(),
        }
    }

    /// Answers a request. Never panics: a panicking handler answers 500.
    pub fn handle(&self, req: &Request) -> Response {
        let request_id = self.request_ids.for_request(req.request_id.as_deref());
        let outcome = catch_unwind(AssertUnwindSafe(|| self.dispatch(req)));
        let mut response = match outcome {
            Ok(Ok(response)) => response,
            Ok(Err(err)) => Response::error(&err),
            Err(_) => {
                log::error!("handler panicked on {} (request {request_id})", req.path());
                Response::error(&ApiError::Internal)
            }
        };
        response.headers.push(("X-Request-Id", request_id));
        response
    }

    fn dispatch(&self, req: &Request) -> ApiResult<Response> {
        let conn = self.pool.get()?;
        let plan = auth::authenticate(&conn, req.authorization.as_deref())?;
        let path = req.path();
        let route = router::resolve(path).ok_or_else(|| ApiError::NotFound {
            path: path.to_string(),
        })?;
        if Method::parse(&req.method) == Method::Other {
            return Err(ApiError::MethodNotAllowed {
                allow: ALLOWED_METHODS,
            });
        }
        let query = Query::parse(req.query())?;
        Ok(match route {
            Route::ListAreas => Response::ok(&api::areas::list(&conn, &params::list(query)?)?),
            Route::SearchAreas => {
                Response::ok(&api::search::search(&conn, &params::search(query)?)?)
            }
            Route::CompareAreas => {
                Response::ok(&api::compare::compare(&conn, &params::compare(query)?)?)
            }
            Route::GetArea(id) => {
                let p = params::area(query)?;
                if p.history {
                    auth::require(plan, Plan::Growth)?;
                }
                Response::ok(&api::areas::get(&conn, &id, &p)?)
            }
            Route::AreaHistory(id) => {
                let p = params::history(query)?;
                auth::require(plan, Plan::Growth)?;
                let area_no = api::areas::require_area(&conn, &id)?;
                Response::ok(&api::history::get(&conn, &id, area_no, &p)?)
            }
        })
    }
}
