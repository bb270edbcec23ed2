//! The routes that need no key: the browser pages (app/pages.rs), the
//! OpenAPI document, health, and metrics (on the main listener, or alone on
//! `--metrics-addr`).

use std::sync::LazyLock;

use super::caching::{self, Kept};
use super::http::{Request, Response};
use super::{App, pages, sent, stamp};
use crate::api::params;
use crate::api::query::Query;
use crate::api::router::{ALLOWED_METHODS, Method, Route};
use crate::error::{ApiError, ApiResult};

/// The OpenAPI document, served as is at /v1/openapi.json.
static OPENAPI: LazyLock<Kept> =
    LazyLock::new(|| Kept::new(include_bytes!("../../docs/openapi.json")));

impl App {
    /// Routes that need no key: pages, the OpenAPI document, health and metrics.
    pub(super) fn public(
        &self,
        req: &Request,
        route: &Route,
        method: Method,
    ) -> ApiResult<Response> {
        if method == Method::Other {
            return Err(ApiError::MethodNotAllowed {
                allow: ALLOWED_METHODS,
            });
        }
        if let Route::Page(path) = route {
            return pages::answer(req, path);
        }
        if let Route::PageWithSlash(page) = route {
            return Ok(pages::moved(page));
        }
        params::none(Query::parse(req.query(), route.params())?)?;
        match route {
            Route::OpenApi => Ok(OPENAPI.answer(openapi_head(), req)),
            Route::Health => Ok(caching::encode(self.health()?, req)),
            Route::Metrics if self.metrics_here => {
                Ok(caching::encode(self.metrics_response(), req))
            }
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
            (Method::Get | Method::Head, "/metrics") => {
                caching::encode(self.metrics_response(), req)
            }
            (_, path) => Response::error(&ApiError::NotFound {
                path: path.to_string(),
            }),
        };
        stamp(&mut response, request_id);
        sent::count(
            &self.metrics.body_bytes,
            &mut response,
            req.method == "HEAD",
        );
        response
    }

    /// GET /metrics, on the main listener or on --metrics-addr.
    pub fn metrics_response(&self) -> Response {
        let pool = self.store.current().ok().map(|d| {
            let (requests, exports) = (d.pool.state(), d.export_pool.state());
            let idle = requests.idle_connections + exports.idle_connections;
            (requests.connections + exports.connections - idle, idle)
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
            stream: None,
            caller: None,
        }
    }
}

/// The OpenAPI document's status and headers, cached like an API answer.
fn openapi_head() -> Response {
    let mut response = Response::json(200, Vec::new());
    response.headers.extend([
        ("Cache-Control", caching::PRIVATE_CACHE_CONTROL.into()),
        ("Vary", "Authorization".into()),
    ]);
    response
}
