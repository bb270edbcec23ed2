//! The routes that need no key: the browser pages (app/pages.rs), the
//! OpenAPI document, health, and metrics (on the main listener, or alone on
//! `--metrics-addr`).

use std::sync::LazyLock;

use serde::Serialize;

use super::caching::{self, Kept};
use super::http::{Request, Response};
use super::metrics::ServerState;
use super::{App, pages, sent, stamp};
use crate::api::params;
use crate::api::query::Query;
use crate::api::router::{ALLOWED_METHODS, Method, Route};
use crate::data::dataset::Dataset;
use crate::data::identity::Identity;
use crate::dates;
use crate::error::{ApiError, ApiResult};

/// The OpenAPI document, served as is at /v1/openapi.json: docs/openapi.json,
/// built in rather than built at the first request, which `make test` checks
/// is what `openapi::text` (and `area-scoring openapi`) makes.
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
        let mut response = Response::json(200, health_body(&dataset, self.store.degraded()));
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
        let dataset = self.store.current().ok();
        let pool = dataset.as_ref().map(|d| {
            let (requests, exports) = (d.pool.state(), d.export_pool.state());
            let idle = requests.idle_connections + exports.idle_connections;
            (requests.connections + exports.connections - idle, idle)
        });
        let state = ServerState {
            dataset: dataset.map(|d| (d.loaded_at, d.area_count)),
            reload_failures: self.store.reload_failures(),
            keys_loaded: self.keys.table().live_keys(),
            usage_backlog: self.usage.backlog(),
        };
        let mut body = self.metrics.render(pool);
        self.metrics.render_state(&state, &mut body);
        Response {
            status: 200,
            headers: vec![
                (
                    "Content-Type",
                    "text/plain; version=0.0.4; charset=utf-8".into(),
                ),
                ("Cache-Control", "no-store".into()),
            ],
            body: body.into_bytes(),
            stream: None,
            caller: None,
        }
    }
}

/// /healthz's body: "ok", or "degraded" with the reason while a refused
/// reload leaves the previous data serving (still 200, so that a balancer
/// keeps the server), the area count, and the served dataset's identity.
fn health_body(dataset: &Dataset, degraded: Option<String>) -> Vec<u8> {
    let body = Health {
        status: if degraded.is_some() { "degraded" } else { "ok" },
        reason: degraded,
        areas: dataset.area_count,
        dataset: Served {
            identity: &dataset.identity,
            loaded_at: dates::format_timestamp(dataset.loaded_at),
        },
    };
    serde_json::to_vec(&body).unwrap_or_default()
}

#[derive(Serialize)]
struct Health<'a> {
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    areas: i64,
    dataset: Served<'a>,
}

/// The served dataset: what its file says, and when this server opened it.
#[derive(Serialize)]
struct Served<'a> {
    #[serde(flatten)]
    identity: &'a Identity,
    loaded_at: String,
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
