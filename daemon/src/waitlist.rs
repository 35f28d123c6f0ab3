//! The premium waitlist of the signed-in user (docs/product.md §2 and §7): status and an
//! idempotent join that keeps the first date.

use axum::extract::State;
use radar_api::account::WaitlistStatus;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::Result;
use crate::extract::{AuthUser, Json};
use crate::state::AppState;

/// The waitlist routes.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_waitlist_status))
        .routes(routes!(post_waitlist_join))
}

/// Whether the caller is on the waitlist, and since when.
#[utoipa::path(get, path = "/api/waitlist/status", tag = "waitlist", responses(
    (status = 200, body = WaitlistStatus), (status = 401, body = crate::error::ErrorBody)))]
pub(crate) async fn get_waitlist_status(
    State(s): State<AppState>,
    caller: AuthUser,
) -> Result<Json<WaitlistStatus>> {
    Ok(Json(s.store.waitlist_status(&caller.user.id).await?))
}

/// Puts the caller on the waitlist; joining again keeps the first date. Answers the status.
#[utoipa::path(post, path = "/api/waitlist/join", tag = "waitlist", responses(
    (status = 200, body = WaitlistStatus), (status = 401, body = crate::error::ErrorBody)))]
pub(crate) async fn post_waitlist_join(
    State(s): State<AppState>,
    caller: AuthUser,
) -> Result<Json<WaitlistStatus>> {
    let entry = s.store.join_waitlist(&caller.user).await?;
    Ok(Json(radar_store::WaitlistEntry::status(Some(&entry))))
}
