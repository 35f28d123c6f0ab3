//! The signed-in user's key for the public news API (docs/product.md §2 and §7): created on
//! the first `GET /api/key`, the same afterwards, and replaced by `POST /api/key/rotate`
//! when it leaks (the old key stops working at once; the day's quota is not reset).

use axum::extract::State;
use radar_api::account::ApiKeyBody;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::Result;
use crate::extract::{AuthUser, Json};
use crate::state::AppState;

/// The API key routes.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_api_key))
        .routes(routes!(post_api_key_rotate))
}

/// The caller's API key, created on first request.
#[utoipa::path(get, path = "/api/key", tag = "api key", responses(
    (status = 200, body = ApiKeyBody), (status = 401, body = crate::error::ErrorBody)))]
pub(crate) async fn get_api_key(
    State(s): State<AppState>,
    caller: AuthUser,
) -> Result<Json<ApiKeyBody>> {
    Ok(Json(ApiKeyBody {
        api_key: s.store.api_key(&caller.user.id).await?,
    }))
}

/// Replaces the caller's API key with a new one.
#[utoipa::path(post, path = "/api/key/rotate", tag = "api key", responses(
    (status = 200, body = ApiKeyBody), (status = 401, body = crate::error::ErrorBody)))]
pub(crate) async fn post_api_key_rotate(
    State(s): State<AppState>,
    caller: AuthUser,
) -> Result<Json<ApiKeyBody>> {
    Ok(Json(ApiKeyBody {
        api_key: s.store.rotate_api_key(&caller.user.id).await?,
    }))
}
