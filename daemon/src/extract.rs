//! Extractors: who is calling, and request parts whose rejections answer in our JSON
//! error shape instead of axum's plain text.

use std::sync::Arc;

use axum::extract::rejection::{BytesRejection, JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts};
use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use radar_store::User;

use crate::auth::error::AuthError;
use crate::auth::tokens::Claims;
use crate::error::ApiError;
use crate::state::AppState;

/// A signed-in caller; a request without valid credentials is refused with 401.
#[derive(Debug, Clone)]
pub(crate) struct AuthUser {
    /// The account, shared with the store's cache of parsed accounts.
    pub user: std::sync::Arc<User>,
}

/// A caller who may be anonymous. A bad or expired token is still an error: a client
/// that believes it is signed in must learn that it is not.
#[derive(Debug, Clone)]
pub(crate) struct MaybeAuthUser(pub Option<AuthUser>);

impl FromRequestParts<AppState> for MaybeAuthUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        Self::from_headers(&parts.headers, state).await
    }
}

impl MaybeAuthUser {
    /// The caller a request's headers name, so that the answers served without the
    /// router (see [`crate::front`]) read callers exactly as the handlers do.
    pub(crate) async fn from_headers(
        headers: &HeaderMap,
        state: &AppState,
    ) -> Result<Self, ApiError> {
        let Some(claims) = bearer(headers, state)? else {
            return Ok(Self(None));
        };
        let found = state.store.session_and_user(&claims.session_id).await?;
        match found {
            Some((session, user)) if session.user_id == claims.sub => {
                Ok(Self(Some(AuthUser { user })))
            }
            _ => Err(session_expired()),
        }
    }
}

/// The claims of the request's access token, checked (signature, expiry) but not yet
/// against the store; none without a token or with the install's anonymous key.
fn bearer(headers: &HeaderMap, state: &AppState) -> Result<Option<Arc<Claims>>, ApiError> {
    let Some(header) = headers.get(AUTHORIZATION) else {
        return Ok(None);
    };
    let token = header
        .to_str()
        .ok()
        .and_then(|h| {
            h.strip_prefix("Bearer ")
                .or_else(|| h.strip_prefix("bearer "))
        })
        .map(str::trim)
        .ok_or_else(|| {
            ApiError::unauthorized("The Authorization header must be 'Bearer <access token>'.")
        })?;
    if state.tokens.is_anon_key(token) {
        return Ok(None);
    }
    state
        .tokens
        .verify(token)
        .map(Some)
        .map_err(|_| session_expired())
}

/// A token that is not (or no longer) good: a bad signature, expired, or its session
/// ended.
pub(crate) fn session_expired() -> ApiError {
    ApiError::unauthorized("Your session is invalid or has expired. Please sign in again.")
}

/// A signed-in caller whose token is genuine and unexpired, and whose session is checked
/// by the store call the handler makes with it, in that call's own step (see
/// [`radar_store::Store::change_mark_in_session`]), instead of by a lookup before. For
/// the writes a reader makes most, where that lookup would be half the request's cost
/// on a shared database; every other handler takes [`AuthUser`].
#[derive(Debug, Clone)]
pub(crate) struct SessionCaller(pub Arc<Claims>);

impl SessionCaller {
    /// The caller's account id.
    pub(crate) fn user_id(&self) -> &str {
        &self.0.sub
    }

    /// The session the token belongs to.
    pub(crate) fn session_id(&self) -> &str {
        &self.0.session_id
    }
}

impl FromRequestParts<AppState> for SessionCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        bearer(&parts.headers, state)?
            .map(Self)
            .ok_or_else(|| ApiError::unauthorized("Please sign in to continue."))
    }
}

impl FromRequestParts<AppState> for AuthUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        MaybeAuthUser::from_request_parts(parts, state)
            .await?
            .0
            .ok_or_else(|| ApiError::unauthorized("Please sign in to continue."))
    }
}

/// `axum::Json` with our error shape on a bad body.
#[derive(Debug, Clone, Copy, Default, FromRequest)]
#[from_request(via(axum::Json), rejection(ApiError))]
pub(crate) struct Json<T>(pub T);

impl<T: serde::Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

/// A JSON answer whose bytes were written already (a feed page assembled from the
/// stored items); the handler's annotation still names the schema it follows.
#[derive(Debug, Clone)]
pub(crate) struct RawJson(pub std::sync::Arc<[u8]>);

impl IntoResponse for RawJson {
    fn into_response(self) -> Response {
        (
            [(
                axum::http::header::CONTENT_TYPE,
                axum::http::HeaderValue::from_static("application/json"),
            )],
            axum::body::Bytes::from_owner(self.0),
        )
            .into_response()
    }
}

/// `axum::extract::Query` with our error shape on a bad query string.
#[derive(Debug, Clone, Copy, Default, FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub(crate) struct Query<T>(pub T);

/// `axum::extract::Path` with our error shape on a bad path parameter.
#[derive(Debug, Clone, Copy, Default, FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub(crate) struct Path<T>(pub T);

/// `Json` for `/auth/v1`: a bad body is answered in the auth protocol's error shape.
#[derive(Debug, Clone, Copy, Default, FromRequest)]
#[from_request(via(axum::Json), rejection(AuthError))]
pub(crate) struct AuthJson<T>(pub T);

impl<T: serde::Serialize> IntoResponse for AuthJson<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

/// `Query` for `/auth/v1`, with the auth protocol's error shape.
#[derive(Debug, Clone, Copy, Default, FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(AuthError))]
pub(crate) struct AuthQuery<T>(pub T);

/// A raw request body (signed webhooks), refused in our error shape when too large.
#[derive(Debug, Clone, Default)]
pub(crate) struct RawBody(pub axum::body::Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = ApiError;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, ApiError> {
        Ok(Self(axum::body::Bytes::from_request(req, state).await?))
    }
}

impl From<JsonRejection> for AuthError {
    fn from(r: JsonRejection) -> Self {
        ApiError::from(r).into()
    }
}

impl From<QueryRejection> for AuthError {
    fn from(r: QueryRejection) -> Self {
        ApiError::from(r).into()
    }
}

impl From<BytesRejection> for ApiError {
    fn from(r: BytesRejection) -> Self {
        ApiError::new(r.status(), body_code(r.status()), r.body_text())
    }
}

/// The error code of a body refused with `status`: a body over the limit that declared
/// no length (chunked) is found out while it is read, and gets the same 413
/// `payload_too_large` as one refused by its Content-Length.
fn body_code(status: axum::http::StatusCode) -> &'static str {
    match status {
        axum::http::StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
        _ => "invalid_body",
    }
}

impl From<JsonRejection> for ApiError {
    /// A body that is not JSON, or JSON of the wrong shape, is a bad request (400); a
    /// missing JSON content type (415) and an oversized body (413) keep their own status.
    fn from(r: JsonRejection) -> Self {
        let status = match &r {
            JsonRejection::MissingJsonContentType(_) | JsonRejection::BytesRejection(_) => {
                r.status()
            }
            _ => axum::http::StatusCode::BAD_REQUEST,
        };
        ApiError::new(status, body_code(status), r.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> Self {
        ApiError::bad_request("invalid_query", r.body_text())
    }
}

impl From<PathRejection> for ApiError {
    fn from(r: PathRejection) -> Self {
        ApiError::bad_request("invalid_path", r.body_text())
    }
}
