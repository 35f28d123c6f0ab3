//! The premium waitlist of the signed-in user (spec sections 2 and 7): status and an
//! idempotent join that keeps the first date.

use axum::Router;
use axum::extract::State;
use axum::routing::{get, post};
use radar_store::wire::WaitlistStatus;

use crate::error::Result;
use crate::extract::{AuthUser, Json};
use crate::state::AppState;

/// The waitlist routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/waitlist/status", get(get_waitlist_status))
        .route("/api/waitlist/join", post(post_waitlist_join))
}

/// Whether the caller is on the waitlist, and since when.
#[utoipa::path(get, path = "/api/waitlist/status", tag = "waitlist", responses(
    (status = 200, body = WaitlistStatus), (status = 401, body = crate::error::ErrorBody)))]
pub async fn get_waitlist_status(
    State(s): State<AppState>,
    caller: AuthUser,
) -> Result<Json<WaitlistStatus>> {
    Ok(Json(s.store.waitlist_status(&caller.user.id)?))
}

/// Puts the caller on the waitlist; joining again keeps the first date. Answers the status.
#[utoipa::path(post, path = "/api/waitlist/join", tag = "waitlist", responses(
    (status = 200, body = WaitlistStatus), (status = 401, body = crate::error::ErrorBody)))]
pub async fn post_waitlist_join(
    State(s): State<AppState>,
    caller: AuthUser,
) -> Result<Json<WaitlistStatus>> {
    let entry = s.store.join_waitlist(&caller.user)?;
    Ok(Json(Some(&entry).into()))
}
