//! Every way a request can fail, and the one body shape that says so.
//!
//! Handlers return `Result<T, ApiError>`; `http.rs` turns an `ApiError` into a
//! response with `status()`, `headers()` and `body()`. No other module builds an
//! error body, so a client always sees
//! `{"error": {"code", "message", "status", "param"?}}` with `status` equal to the
//! HTTP status.

use serde::Serialize;

#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// No Authorization header, or one that is not `Bearer <key>`.
    MissingApiKey,
    /// A key that is unknown or revoked.
    InvalidApiKey,
    /// The route needs a plan of higher rank than the key's.
    PlanUpgradeRequired { needed: &'static str, have: String },
    /// A query parameter that is malformed, out of bounds, repeated or unknown.
    InvalidParameter { param: String, message: String },
    /// One or more area ids that do not exist, in the order they were asked for.
    AreaNotFound { ids: Vec<String> },
    /// No route has this path.
    NotFound { path: String },
    /// The path exists but not for this method.
    MethodNotAllowed { allow: &'static str },
    /// Anything unexpected. The detail is logged, never sent.
    Internal,
}

impl ApiError {
    pub fn invalid(param: &str, message: impl Into<String>) -> ApiError {
        ApiError::InvalidParameter {
            param: param.to_string(),
            message: message.into(),
        }
    }

    pub fn status(&self) -> u16 {
        match self {
            ApiError::MissingApiKey | ApiError::InvalidApiKey => 401,
            ApiError::PlanUpgradeRequired { .. } => 403,
            ApiError::InvalidParameter { .. } => 400,
            ApiError::AreaNotFound { .. } | ApiError::NotFound { .. } => 404,
            ApiError::MethodNotAllowed { .. } => 405,
            ApiError::Internal => 500,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            ApiError::MissingApiKey => "missing_api_key",
            ApiError::InvalidApiKey => "invalid_api_key",
            ApiError::PlanUpgradeRequired { .. } => "plan_upgrade_required",
            ApiError::InvalidParameter { .. } => "invalid_parameter",
            ApiError::AreaNotFound { .. } => "area_not_found",
            ApiError::NotFound { .. } => "not_found",
            ApiError::MethodNotAllowed { .. } => "method_not_allowed",
            ApiError::Internal => "internal_error",
        }
    }

    pub fn message(&self) -> String {
        match self {
            ApiError::MissingApiKey => {
                "send your API key in the Authorization header as 'Bearer <key>'".into()
            }
            ApiError::InvalidApiKey => "the API key is not valid or has been revoked".into(),
            ApiError::PlanUpgradeRequired { needed, have } => format!(
                "score history needs the {needed} plan or above; this key is on the {have} plan"
            ),
            ApiError::InvalidParameter { message, .. } => message.clone(),
            ApiError::AreaNotFound { ids } if ids.len() == 1 => {
                format!("no area has the id '{}'", ids[0])
            }
            ApiError::AreaNotFound { ids } => {
                let quoted: Vec<String> = ids.iter().map(|id| format!("'{id}'")).collect();
                format!("no areas have the ids {}", quoted.join(", "))
            }
            ApiError::NotFound { path } => format!("no such path: {path}"),
            ApiError::MethodNotAllowed { allow } => {
                format!("this API is read-only: use one of {allow}")
            }
            ApiError::Internal => "something went wrong on our side; please retry".into(),
        }
    }

    /// The query parameter at fault, where there is one.
    pub fn param(&self) -> Option<&str> {
        match self {
            ApiError::InvalidParameter { param, .. } => Some(param),
            _ => None,
        }
    }

    /// Headers the status itself calls for.
    pub fn headers(&self) -> Vec<(&'static str, String)> {
        match self {
            ApiError::MissingApiKey | ApiError::InvalidApiKey => {
                vec![("WWW-Authenticate", "Bearer".into())]
            }
            ApiError::MethodNotAllowed { allow } => vec![("Allow", (*allow).into())],
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
        }
        let body = Body {
            error: Detail {
                code: self.code(),
                message: self.message(),
                status: self.status(),
                param: self.param(),
            },
        };
        serde_json::to_vec(&body).expect("an error body always serializes")
    }
}

/// Database failures are unexpected by definition: log the detail, answer 500.
impl From<rusqlite::Error> for ApiError {
    fn from(err: rusqlite::Error) -> ApiError {
        log::error!("database error: {err}");
        ApiError::Internal
    }
}

impl From<r2d2::Error> for ApiError {
    fn from(err: r2d2::Error) -> ApiError {
        log::error!("connection pool error: {err}");
        ApiError::Internal
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
