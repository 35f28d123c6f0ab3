//! `GET /api/trends`: the named things and topics rising and falling this week, for
//! signed-in readers (the first few for free readers, more for subscribers). How terms
//! are found, counted and ranked is `radar_store`'s `trends`; the public API's
//! `GET /api/v1/trends` is in `public_api`.

use axum::extract::State;
use chrono::Utc;
use radar_api::trends::TrendsPage;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::Result;
use crate::extract::{AuthUser, Json};
use crate::state::AppState;

/// The trends routes.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_trends))
}

/// This week's rising and falling terms (the 7 days ending now against the four weeks
/// before), ranked by change rather than size, each with its weekly counts and a few of
/// its stories; `limit` says how many each list holds for the caller.
#[utoipa::path(get, path = "/api/trends", tag = "trends", responses(
    (status = 200, body = TrendsPage),
    (status = 401, body = crate::error::ErrorBody, description = "Not signed in, or an invalid or expired token"),
))]
pub(crate) async fn get_trends(
    State(state): State<AppState>,
    AuthUser { user, .. }: AuthUser,
) -> Result<Json<TrendsPage>> {
    let subscriber = state.store.is_subscriber(&user);
    Ok(Json(state.store.trends(subscriber, Utc::now()).await?))
}
