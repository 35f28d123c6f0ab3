//! Error answers of `/auth/v1` in the protocol's own forms, which depend on the
//! request's `X-Supabase-Api-Version` header as GoTrue's `errors.go` has them: without
//! it (or with a date before 2024-01-01, or not a date) `{"code": <HTTP status>,
//! "error_code", "msg"}`; with `2024-01-01` or later `{"code": <error code>, "message"}`
//! and the version echoed in the response header. Either way the `x-sb-error-code`
//! header carries the code. auth-js sends the header, so it reads the newer form.
//!
//! An error renders the older form and leaves its parts in the response's extensions;
//! [`versioned_errors`], a layer on the `/auth/v1` router, rewrites the body when the
//! request asked for the newer one (an `IntoResponse` cannot see the request). The rest
//! of the daemon keeps `{"error", "message"}`; this wraps the same [`ApiError`].

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use radar_api::auth::{AuthErrorBody, AuthErrorCode, AuthWeakPassword};

use crate::error::ApiError;

/// The request and response header naming the API version of the error form.
pub(crate) const API_VERSION_HEADER: HeaderName = HeaderName::from_static("x-supabase-api-version");
/// The newest API version Radar speaks.
pub(crate) const API_VERSION: HeaderValue = HeaderValue::from_static("2024-01-01");
/// The response header with an error's code, in both forms.
pub(crate) const ERROR_CODE_HEADER: HeaderName = HeaderName::from_static("x-sb-error-code");

/// An error of the auth service.
#[derive(Debug)]
pub struct AuthError {
    /// Status, code and message.
    pub inner: ApiError,
    /// Why a password was refused, for `weak_password`.
    pub weak_password: Option<Vec<String>>,
}

/// The auth service's result type.
pub(crate) type AuthResult<T> = std::result::Result<T, AuthError>;

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
            weak_password: Some(
                reasons
                    .iter()
                    .map(std::string::ToString::to_string)
                    .collect(),
            ),
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

/// What [`versioned_errors`] needs to write an error in the newer form.
#[derive(Debug, Clone)]
struct ErrorParts {
    code: &'static str,
    message: String,
    weak_password: Option<AuthWeakPassword>,
}

impl IntoResponse for AuthError {
    fn into_response(self) -> Response {
        let e = self.inner;
        let weak_password = self
            .weak_password
            .map(|reasons| AuthWeakPassword { reasons });
        let body = AuthErrorBody {
            code: AuthErrorCode::Status(e.status.as_u16()),
            error_code: Some(e.code.to_string()),
            msg: Some(e.message.clone()),
            message: None,
            weak_password: weak_password.clone(),
        };
        let mut res = (e.status, axum::Json(body)).into_response();
        res.headers_mut()
            .insert(ERROR_CODE_HEADER, HeaderValue::from_static(e.code));
        if let Some(secs) = e.retry_after {
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        res.extensions_mut().insert(ErrorParts {
            code: e.code,
            message: e.message,
            weak_password,
        });
        res
    }
}

/// Whether a request's `X-Supabase-Api-Version` asks for the 2024-01-01 error form:
/// a date (`YYYY-MM-DD`) on or after it. Anything else is the initial version, as
/// GoTrue's `DetermineClosestAPIVersion` reads it.
pub(crate) fn wants_2024_errors(value: Option<&HeaderValue>) -> bool {
    value
        .and_then(|v| v.to_str().ok())
        .and_then(|v| chrono::NaiveDate::parse_from_str(v.trim(), "%Y-%m-%d").ok())
        .is_some_and(|d| d >= chrono::NaiveDate::from_ymd_opt(2024, 1, 1).expect("a date"))
}

/// The `/auth/v1` layer that writes errors in the form the request's API version asks
/// for (see the module docs); answers that are not errors pass untouched.
pub(crate) async fn versioned_errors(req: Request, next: Next) -> Response {
    let newer = wants_2024_errors(req.headers().get(API_VERSION_HEADER));
    let mut res = next.run(req).await;
    if !newer {
        return res;
    }
    let Some(parts) = res.extensions_mut().remove::<ErrorParts>() else {
        return res;
    };
    let body = AuthErrorBody {
        code: AuthErrorCode::Code(parts.code.to_string()),
        error_code: None,
        msg: None,
        message: Some(parts.message),
        weak_password: parts.weak_password,
    };
    let (mut head, _) = res.into_parts();
    head.headers.remove(header::CONTENT_LENGTH);
    head.headers.insert(API_VERSION_HEADER, API_VERSION);
    let fresh = axum::Json(body).into_response();
    Response::from_parts(head, fresh.into_body())
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    #[tokio::test]
    async fn errors_have_the_initial_form_and_the_code_header() {
        let res =
            AuthError::weak_password("Password should be at least 6 characters.", &["length"])
                .into_response();
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert!(res.headers().get(API_VERSION_HEADER).is_none());
        assert_eq!(res.headers()[ERROR_CODE_HEADER], "weak_password");
        let body: serde_json::Value =
            serde_json::from_slice(&res.into_body().collect().await.unwrap().to_bytes()).unwrap();
        assert_eq!(body["code"], 422);
        assert_eq!(body["error_code"], "weak_password");
        assert_eq!(body["weak_password"]["reasons"][0], "length");
        assert!(body["msg"].as_str().unwrap().contains("6 characters"));
        assert!(body.get("message").is_none());
    }

    #[test]
    fn api_versions_are_dates_on_or_after_2024_01_01() {
        let v = |s: &'static str| wants_2024_errors(Some(&HeaderValue::from_static(s)));
        assert!(v("2024-01-01"));
        assert!(v("2025-06-30"));
        assert!(!v("2023-12-31"));
        assert!(!v("latest"));
        assert!(!wants_2024_errors(None));
    }

    #[test]
    fn shared_extractor_codes_become_protocol_codes() {
        let e: AuthError = ApiError::bad_request("invalid_body", "x").into();
        assert_eq!(e.inner.code, "bad_json");
    }
}
