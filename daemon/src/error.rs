//! The daemon's one error type. Every failure becomes JSON `{"error", "message"}` with
//! the right status; server faults are logged with their detail and the client gets none.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// An error answered to an HTTP client.
#[derive(Debug)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Stable machine-readable code (`not_found`, `invalid_query`...).
    pub code: &'static str,
    /// A sentence for people: what was wrong and what to do.
    pub message: String,
    /// Seconds to wait, for 429, 503 and 507 answers.
    pub retry_after: Option<u64>,
}

/// The daemon's result type.
pub(crate) type Result<T, E = ApiError> = std::result::Result<T, E>;

pub(crate) use radar_api::ErrorBody;

impl ApiError {
    /// An error with any status and code.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }
    /// 400: the request itself is malformed or breaks a rule.
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }
    /// 401: no valid credentials.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }
    /// 403: authenticated, but not allowed.
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "forbidden", message)
    }
    /// 403 `subscription_required`: only subscribers may do this. Clients read the
    /// account again when they see this code: the subscription may have just ended.
    pub fn subscription_required(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "subscription_required", message)
    }
    /// 404: the named thing does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }
    /// 429 with Retry-After.
    pub fn too_many(code: &'static str, message: impl Into<String>, retry_after: u64) -> Self {
        Self {
            retry_after: Some(retry_after),
            ..Self::new(StatusCode::TOO_MANY_REQUESTS, code, message)
        }
    }
    /// 507 `storage_full`: the server's disk is full, so the write was refused before it
    /// changed anything; reads go on and writes resume by themselves once space is freed.
    pub fn storage_full() -> Self {
        Self {
            retry_after: Some(radar_store::FULL_RETRY_AFTER),
            ..Self::new(
                StatusCode::INSUFFICIENT_STORAGE,
                "storage_full",
                "The server's disk is full, so nothing can be saved right now; reading still \
                 works. Please try again later.",
            )
        }
    }
    /// 503 `storage_failed`: the store cannot write until its operator restarts it. The
    /// detail (what failed, and that a restart recovers) is logged here and never sent.
    pub fn storage_failed(detail: impl std::fmt::Display) -> Self {
        tracing::error!(error = %detail, "the store cannot write: restart radar to recover");
        Self {
            retry_after: Some(60),
            ..Self::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "storage_failed",
                "The server cannot save anything until its operator restarts it; reading may \
                 still work. Please try again later.",
            )
        }
    }
    /// 503 with Retry-After: the shared database cannot be reached right now (down,
    /// restarting, failing over); the daemon reconnects by itself.
    pub fn unreachable(detail: impl std::fmt::Display) -> Self {
        tracing::warn!(error = %detail, "the database cannot be reached");
        Self {
            retry_after: Some(UNREACHABLE_RETRY_AFTER),
            ..Self::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "unavailable",
                "The server cannot reach its database right now. Please try again in a few \
                 seconds.",
            )
        }
    }

    /// 500: our fault. The detail is logged here and never sent.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        tracing::error!(error = %detail, "internal error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "Something went wrong on the server. Please try again later.",
        )
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status.as_u16(),
            self.code,
            self.message
        )
    }
}

impl std::error::Error for ApiError {}

/// Seconds a client waits before asking again while the database cannot be reached: a
/// restart or fail-over takes a few.
pub(crate) const UNREACHABLE_RETRY_AFTER: u64 = 2;

impl From<radar_store::Error> for ApiError {
    fn from(e: radar_store::Error) -> Self {
        use radar_store::Error as E;
        match e {
            E::NotFound(what) => {
                let mut s = what.to_string();
                if let Some(first) = s.get_mut(..1) {
                    first.make_ascii_uppercase();
                }
                Self::not_found(format!("{s} not found"))
            }
            E::Invalid(m) => Self::bad_request("invalid_request", m),
            E::Conflict(m) => Self::new(StatusCode::CONFLICT, "conflict", m),
            E::Forbidden(m) => Self::subscription_required(m),
            E::StorageFull(_) => Self::storage_full(),
            e @ E::Unavailable(_) => Self::storage_failed(e),
            e @ E::Unreachable(_) => Self::unreachable(e),
            // The store met a full disk its guard did not foresee: it refuses writes from
            // now on, until a restart.
            e if e.met_full_disk() => Self::storage_failed(e),
            e @ (E::Locked(_)
            | E::Open(_)
            | E::Storage(_)
            | E::Io(_)
            | E::Corrupt(_)
            | E::Index(_)
            | E::JournalLoss(_)) => Self::internal(e),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error: self.code.to_string(),
            message: self.message,
        };
        let mut res = (self.status, axum::Json(body)).into_response();
        if let Some(secs) = self.retry_after {
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        res
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_is_507_with_retry_after_and_a_store_that_cannot_write_503() {
        let full = ApiError::from(radar_store::Error::StorageFull("/data".into()));
        assert_eq!(full.status, StatusCode::INSUFFICIENT_STORAGE);
        assert_eq!(full.code, "storage_full");
        assert_eq!(full.retry_after, Some(radar_store::FULL_RETRY_AFTER));
        assert!(
            !full.message.contains("/data"),
            "a path is not the client's business"
        );

        let auth =
            crate::auth::error::AuthError::from(radar_store::Error::StorageFull("/data".into()))
                .into_response();
        assert_eq!(auth.status(), StatusCode::INSUFFICIENT_STORAGE);
        assert!(auth.headers().contains_key(header::RETRY_AFTER));

        let failed = ApiError::from(radar_store::Error::Unavailable(
            "the journal could not sync to disk (EIO)".into(),
        ));
        assert_eq!(failed.status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(failed.code, "storage_failed");
        assert!(
            !failed.message.contains("EIO"),
            "the detail is logged, not sent"
        );
    }
}
