//! Error answers of `/auth/v1` in the protocol's own form, `{"code", "error_code", "msg"}`
//! with `X-Supabase-Api-Version: 2024-01-01` (auth-js then reads the string `code`). The
//! rest of the daemon keeps `{"error", "message"}`; this wraps the same [`ApiError`].

use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use radar_api::auth::{AuthErrorBody, AuthWeakPassword};

use crate::error::ApiError;

/// The response header that tells auth-js which error form to read.
pub const API_VERSION_HEADER: HeaderName = HeaderName::from_static("x-supabase-api-version");
/// The API version Radar speaks.
pub const API_VERSION: HeaderValue = HeaderValue::from_static("2024-01-01");

/// An error of the auth service.
#[derive(Debug)]
pub struct AuthError {
    /// Status, code and message.
    pub inner: ApiError,
    /// Why a password was refused, for `weak_password`.
    pub weak_password: Option<Vec<String>>,
}

/// The auth service's result type.
pub type AuthResult<T> = std::result::Result<T, AuthError>;

impl AuthError {
    /// An error with any status and code.
    pub fn new(status: StatusCode, code: &'static str, msg: impl Into<String>) -> Self {
        Self {
            inner: ApiError::new(status, code, msg),
            weak_password: None,
        }
    }
    /// 400.
    pub fn bad_request(code: &'static str, msg: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, msg)
    }
    /// 422.
    pub fn unprocessable(code: &'static str, msg: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, code, msg)
    }
    /// 401.
    pub fn unauthorized(code: &'static str, msg: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, code, msg)
    }
    /// 403.
    pub fn forbidden(code: &'static str, msg: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, code, msg)
    }
    /// 422 `weak_password` with its reasons.
    pub fn weak_password(msg: impl Into<String>, reasons: &[&str]) -> Self {
        Self {
            weak_password: Some(reasons.iter().map(|r| r.to_string()).collect()),
            ..Self::unprocessable("weak_password", msg)
        }
    }
    /// 500; the detail is logged, never sent.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        ApiError::internal(detail).into()
    }
}

impl From<ApiError> for AuthError {
    fn from(mut e: ApiError) -> Self {
        // The daemon's shared extractors name their failures in its own words; use the
        // protocol's names for the same things.
        e.code = match e.code {
            "invalid_body" => "bad_json",
            "invalid_query" | "invalid_path" | "invalid_request" => "validation_failed",
            "internal" => "unexpected_failure",
            other => other,
        };
        Self {
            inner: e,
            weak_password: None,
        }
    }
}

impl From<radar_store::Error> for AuthError {
    fn from(e: radar_store::Error) -> Self {
        ApiError::from(e).into()
    }
}

impl IntoResponse for AuthError {
    fn into_response(self) -> Response {
        let e = self.inner;
        let body = AuthErrorBody {
            code: e.code.to_string(),
            error_code: e.code.to_string(),
            msg: e.message,
            weak_password: self
                .weak_password
                .map(|reasons| AuthWeakPassword { reasons }),
        };
        let mut res = (e.status, axum::Json(body)).into_response();
        res.headers_mut().insert(API_VERSION_HEADER, API_VERSION);
        if let Some(secs) = e.retry_after {
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        res
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    #[tokio::test]
    async fn errors_have_the_protocol_form_and_version_header() {
        let res =
            AuthError::weak_password("Password should be at least 6 characters.", &["length"])
                .into_response();
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(res.headers()[API_VERSION_HEADER], "2024-01-01");
        let body: serde_json::Value =
            serde_json::from_slice(&res.into_body().collect().await.unwrap().to_bytes()).unwrap();
        assert_eq!(body["code"], "weak_password");
        assert_eq!(body["error_code"], "weak_password");
        assert_eq!(body["weak_password"]["reasons"][0], "length");
        assert!(body["msg"].as_str().unwrap().contains("6 characters"));
    }

    #[test]
    fn shared_extractor_codes_become_protocol_codes() {
        let e: AuthError = ApiError::bad_request("invalid_body", "x").into();
        assert_eq!(e.inner.code, "bad_json");
    }
}
