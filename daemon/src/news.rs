//! `GET /api/news`: the caller's feed, capped by the server (see `radar_store::feed`).

use axum::Router;
use axum::extract::State;
use axum::routing::get;
use radar_store::{FeedPage, Viewer};
use serde::Deserialize;

use crate::error::Result;
use crate::extract::{Json, MaybeAuthUser, Query};
use crate::state::AppState;

/// The news routes.
pub fn router() -> Router<AppState> {
    Router::new().route("/api/news", get(get_news))
}

/// Query of `GET /api/news`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct NewsQuery {
    /// `nextCursor` of the previous page (subscribers only).
    pub cursor: Option<String>,
}

/// The caller's feed: newest first, without items they hid or read; 5 items for
/// anonymous and free callers, pages of 20 for subscribers.
#[utoipa::path(get, path = "/api/news", params(NewsQuery), responses(
    (status = 200, body = FeedPage),
    (status = 400, body = crate::error::ErrorBody, description = "Malformed query or cursor"),
    (status = 401, body = crate::error::ErrorBody, description = "Invalid or expired token"),
    (status = 403, body = crate::error::ErrorBody, description = "A cursor from a free account"),
))]
pub async fn get_news(
    State(state): State<AppState>,
    MaybeAuthUser(caller): MaybeAuthUser,
    Query(q): Query<NewsQuery>,
) -> Result<Json<FeedPage>> {
    let viewer = match &caller {
        Some(c) => Viewer {
            user_id: Some(c.user.id.clone()),
            subscriber: state.store.is_subscriber(&c.user),
        },
        None => Viewer::default(),
    };
    Ok(Json(state.store.feed_page(&viewer, q.cursor.as_deref())?))
}
