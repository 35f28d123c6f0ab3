//! `GET /api/user/metadata` (docs/product.md §3 and §7): the caller's subscription.
//!
//! `isActive` is the server's verdict of docs/product.md §4's rule (complimentary accounts
//! included), and `customerId` is given only while that verdict holds (see
//! `Store::subscription_status`). Clients apply the same rule to these two fields
//! ("isActive, or a customerId exists"), so a revoked or ended subscription must not
//! leave a customer id behind for them to see.

use axum::extract::State;
use radar_api::account::UserMetadata;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::Result;
use crate::extract::{AuthUser, Json};
use crate::state::AppState;

/// The user metadata route.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_user_metadata))
}

/// The caller's subscription state.
#[utoipa::path(get, path = "/api/user/metadata", tag = "subscription", responses(
    (status = 200, body = UserMetadata), (status = 401, body = crate::error::ErrorBody)))]
pub(crate) async fn get_user_metadata(
    State(s): State<AppState>,
    caller: AuthUser,
) -> Result<Json<UserMetadata>> {
    Ok(Json(UserMetadata {
        subscription: s.store.subscription_status(&caller.user),
    }))
}
