//! Every way a request can fail, and the one body shape that says so.
//!
//! Handlers return `Result<T, ApiError>`; `transport/response.rs` turns an `ApiError` into a
//! response with `status()`, `headers()` and `body()`. No other module builds an
//! error body, so a client always sees
//! `{"error": {"code", "message", "status", "param"?}}` with `status` equal to the
//! HTTP status, and the fields a client's code acts on where an error has
//! them: `allowed` (the words a parameter takes), `required_plan` and `plan`,
//! and `ids` (the unknown area ids). Database and pool errors become `ApiError`s in data/db.rs,
//! which knows which of them are passing outages.

use serde::Serialize;

use crate::domain::Plan;

#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// No Authorization header, or one that is not `Bearer <key>`.
    MissingApiKey,
    /// A key that is unknown or revoked.
    InvalidApiKey,
    /// `feature` needs a plan of higher rank than the key's; `param` is the
    /// query parameter that asked for it, where one did (`include=history`).
    PlanUpgradeRequired {
        feature: &'static str,
        needed: Plan,
        have: Plan,
        param: Option<&'static str>,
    },
    /// A query parameter that is malformed, out of bounds, repeated or
    /// unknown. `allowed` lists the words it may take, where they are a set.
    InvalidParameter {
        param: String,
        message: String,
        allowed: Option<Vec<String>>,
    },
    /// One or more area ids that do not exist, in the order they were asked for.
    AreaNotFound { ids: Vec<String> },
    /// No area is at the point the area at a point was asked for: it lies in
    /// no boundary, near none, and no area without one has its centre within
    /// `radius_km`.
    NoAreaHere { lat: f64, lng: f64, radius_km: f64 },
    /// No route has this path.
    NotFound { path: String },
    /// The path exists but not for this method.
    MethodNotAllowed { allow: &'static str },
    /// The key's plan's budget is spent.
    RateLimited { retry_after_secs: u64 },
    /// The client has spent its budget of requests without a valid key: its
    /// key is unknown, revoked or missing, and waiting will not make it valid.
    TooManyUnknownKeys { retry_after_secs: u64 },
    /// The request target is longer than `MAX_TARGET_BYTES`.
    UriTooLong,
    /// The request headers add up to more than `MAX_HEADER_BYTES`.
    HeadersTooLarge,
    /// The request announces a body (Transfer-Encoding, or a Content-Length
    /// other than 0); the API takes none, and the connection is closed.
    BodyNotAllowed,
    /// A streamed answer (the export) asked for over HTTP/1.0, which has no
    /// chunks to send a body of unknown length in.
    UpgradeRequired,
    /// A request line or head that is not HTTP/1.x syntax, a header folded
    /// over lines, a header name or target with a byte outside ASCII, or
    /// two Authorization headers. The connection is closed.
    BadRequest,
    /// A request line of an HTTP version other than 1.0 and 1.1.
    HttpVersionNotSupported,
    /// An `Expect` header other than `100-continue`.
    ExpectationFailed,
    /// Anything unexpected. The detail is logged, never sent.
    Internal,
    /// The database cannot answer right now (missing, locked, corrupt, pool exhausted).
    ServiceUnavailable,
    /// As many exports as the server streams at once are running, or as many
    /// as one key may (`per_key`).
    ExportsBusy { running: usize, per_key: bool },
}

/// Longest request target answered: 8 KiB.
pub const MAX_TARGET_BYTES: usize = 8 * 1024;
/// Most header bytes (names, values, separators) answered: 16 KiB.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;
/// Seconds a client is asked to wait after a 503.
const UNAVAILABLE_RETRY_SECS: u64 = 5;
/// Seconds a client is asked to wait when every export slot is taken: an
/// export of the seed takes well under a second, of 100,000 areas a few.
const EXPORTS_RETRY_SECS: u64 = 10;

impl ApiError {
    pub fn invalid(param: &str, message: impl Into<String>) -> ApiError {
        ApiError::InvalidParameter {
            param: param.to_string(),
            message: message.into(),
            allowed: None,
        }
    }

    /// A parameter whose value is not one of `allowed`, which the body lists.
    pub fn not_one_of(param: &str, message: impl Into<String>, allowed: &[&str]) -> ApiError {
        ApiError::InvalidParameter {
            param: param.to_string(),
            message: message.into(),
            allowed: Some(allowed.iter().map(|w| w.to_string()).collect()),
        }
    }

    pub fn status(&self) -> u16 {
        match self {
            ApiError::MissingApiKey | ApiError::InvalidApiKey => 401,
            ApiError::PlanUpgradeRequired { .. } => 403,
            ApiError::InvalidParameter { .. } | ApiError::BodyNotAllowed | ApiError::BadRequest => {
                400
            }
            ApiError::ExpectationFailed => 417,
            ApiError::HttpVersionNotSupported => 505,
            ApiError::AreaNotFound { .. }
            | ApiError::NoAreaHere { .. }
            | ApiError::NotFound { .. } => 404,
            ApiError::MethodNotAllowed { .. } => 405,
            ApiError::UriTooLong => 414,
            ApiError::UpgradeRequired => 426,
            ApiError::RateLimited { .. } | ApiError::TooManyUnknownKeys { .. } => 429,
            ApiError::HeadersTooLarge => 431,
            ApiError::Internal => 500,
            ApiError::ServiceUnavailable | ApiError::ExportsBusy { .. } => 503,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            ApiError::MissingApiKey => "missing_api_key",
            ApiError::InvalidApiKey => "invalid_api_key",
            ApiError::PlanUpgradeRequired { .. } => "plan_upgrade_required",
            ApiError::InvalidParameter { .. } => "invalid_parameter",
            ApiError::AreaNotFound { .. } => "area_not_found",
            ApiError::NoAreaHere { .. } => "no_area_here",
            ApiError::NotFound { .. } => "not_found",
            ApiError::MethodNotAllowed { .. } => "method_not_allowed",
            ApiError::UriTooLong => "uri_too_long",
            ApiError::RateLimited { .. } => "rate_limited",
            ApiError::TooManyUnknownKeys { .. } => "too_many_unknown_keys",
            ApiError::HeadersTooLarge => "headers_too_large",
            ApiError::BodyNotAllowed => "body_not_allowed",
            ApiError::UpgradeRequired => "upgrade_required",
            ApiError::BadRequest => "bad_request",
            ApiError::HttpVersionNotSupported => "http_version_not_supported",
            ApiError::ExpectationFailed => "expectation_failed",
            ApiError::Internal => "internal_error",
            ApiError::ServiceUnavailable | ApiError::ExportsBusy { .. } => "service_unavailable",
        }
    }

    pub fn message(&self) -> String {
        match self {
            ApiError::MissingApiKey => {
                "send your API key in the Authorization header as 'Bearer <key>'".into()
            }
            ApiError::InvalidApiKey => "the API key is not valid or has been revoked".into(),
            ApiError::PlanUpgradeRequired {
                feature,
                needed,
                have,
                ..
            } => format!(
                "{feature} needs the {} plan or above; this key is on the {} plan",
                needed.name(),
                have.name()
            ),
            ApiError::InvalidParameter { message, .. } => message.clone(),
            ApiError::AreaNotFound { ids } if ids.len() == 1 => {
                format!("no area has the id '{}'", ids[0])
            }
            ApiError::AreaNotFound { ids } => {
                let quoted: Vec<String> = ids.iter().map(|id| format!("'{id}'")).collect();
                format!("no areas have the ids {}", quoted.join(", "))
            }
            ApiError::NoAreaHere {
                lat,
                lng,
                radius_km,
            } => format!(
                "no area at {lat}, {lng}: the point is in no area's boundary and within \
                 {near_m} m of none, and no area without a boundary has its centre within \
                 {radius_km} km",
                near_m = crate::data::boundary::NEAR_BOUNDARY_KM * 1000.0
            ),
            ApiError::NotFound { path } => format!("no such path: {path}"),
            ApiError::MethodNotAllowed { allow } => {
                format!("this API is read-only: use one of {allow}")
            }
            ApiError::UriTooLong => {
                format!("the request URL is longer than {MAX_TARGET_BYTES} bytes")
            }
            ApiError::RateLimited { retry_after_secs } => format!(
                "too many requests for this plan's rate limit; retry in {retry_after_secs} s"
            ),
            ApiError::TooManyUnknownKeys { retry_after_secs } => format!(
                "too many requests from this client without a valid API key: the key sent is \
                 unknown, revoked or missing, and retrying will not make it valid; send a valid \
                 key as 'Bearer <key>' (requests without one may go on in {retry_after_secs} s)"
            ),
            ApiError::HeadersTooLarge => {
                format!("the request headers are larger than {MAX_HEADER_BYTES} bytes in all")
            }
            ApiError::UpgradeRequired => "the export is sent in chunks, which HTTP/1.0 has not: \
                                           send the request as HTTP/1.1"
                .into(),
            ApiError::BodyNotAllowed => {
                "this API takes no request body: send no Transfer-Encoding and no Content-Length \
                 other than 0"
                    .into()
            }
            ApiError::BadRequest => "the request is not well-formed HTTP/1.1".into(),
            ApiError::HttpVersionNotSupported => {
                "this server speaks HTTP/1.1 (and HTTP/1.0) only".into()
            }
            ApiError::ExpectationFailed => {
                "the only Expect this server takes is 100-continue, and it needs no body".into()
            }
            ApiError::Internal => "something went wrong on our side; please retry".into(),
            ApiError::ServiceUnavailable => {
                format!("the data is unavailable for a moment; retry in {UNAVAILABLE_RETRY_SECS} s")
            }
            ApiError::ExportsBusy {
                running,
                per_key: true,
            } => format!(
                "this key has {running} exports running, as many as one key may at once; \
                 retry in {EXPORTS_RETRY_SECS} s"
            ),
            ApiError::ExportsBusy { running, .. } => format!(
                "{running} exports are running, as many as this server streams at once; \
                 retry in {EXPORTS_RETRY_SECS} s"
            ),
        }
    }

    /// The query parameter at fault, where there is one.
    pub fn param(&self) -> Option<&str> {
        match self {
            ApiError::InvalidParameter { param, .. } => Some(param),
            ApiError::PlanUpgradeRequired { param, .. } => *param,
            _ => None,
        }
    }

    /// Headers the status itself calls for.
    pub fn headers(&self) -> Vec<(&'static str, String)> {
        match self {
            ApiError::MissingApiKey | ApiError::InvalidApiKey => {
                vec![("WWW-Authenticate", "Bearer".into())]
            }
            ApiError::TooManyUnknownKeys { retry_after_secs } => vec![
                ("WWW-Authenticate", "Bearer".into()),
                ("Retry-After", retry_after_secs.to_string()),
            ],
            ApiError::MethodNotAllowed { allow } => vec![("Allow", (*allow).into())],
            ApiError::RateLimited { retry_after_secs } => {
                vec![("Retry-After", retry_after_secs.to_string())]
            }
            ApiError::ServiceUnavailable => {
                vec![("Retry-After", UNAVAILABLE_RETRY_SECS.to_string())]
            }
            ApiError::ExportsBusy { .. } => vec![("Retry-After", EXPORTS_RETRY_SECS.to_string())],
            ApiError::UpgradeRequired => vec![("Upgrade", "HTTP/1.1".into())],
            _ => Vec::new(),
        }
    }

    pub fn body(&self) -> Vec<u8> {
        #[derive(Serialize)]
        struct Body<'a> {
            error: Detail<'a>,
        }
        #[derive(Serialize)]
        struct Detail<'a> {
            code: &'a str,
            message: String,
            status: u16,
            #[serde(skip_serializing_if = "Option::is_none")]
            param: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            allowed: Option<&'a [String]>,
            #[serde(skip_serializing_if = "Option::is_none")]
            required_plan: Option<&'static str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            plan: Option<&'static str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            ids: Option<&'a [String]>,
        }
        let mut detail = Detail {
            code: self.code(),
            message: self.message(),
            status: self.status(),
            param: self.param(),
            allowed: None,
            required_plan: None,
            plan: None,
            ids: None,
        };
        // The fields a client's code acts on, beside the message it prints.
        match self {
            ApiError::InvalidParameter { allowed, .. } => detail.allowed = allowed.as_deref(),
            ApiError::PlanUpgradeRequired { needed, have, .. } => {
                detail.required_plan = Some(needed.name());
                detail.plan = Some(have.name());
            }
            ApiError::AreaNotFound { ids } => detail.ids = Some(ids),
            _ => {}
        }
        let body = Body { error: detail };
        serde_json::to_vec(&body).expect("an error body always serializes")
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
