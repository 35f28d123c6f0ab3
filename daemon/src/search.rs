//! `GET /api/search?q=&cursor=`: full-text search for signed-in readers. The syntax, the
//! ranking and how the index keeps up with writes are in `radar_store`'s `search`; the
//! answer's highlights are `[start, end)` code point ranges, never markup (see
//! `radar_api::search::Highlighted`).

use axum::extract::State;
use radar_api::search::{SearchHit, SearchPage};
use radar_store::{SearchQuery, Viewer};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::{ApiError, Result};
use crate::extract::{AuthUser, Json, Query};
use crate::state::AppState;

/// The search routes.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_search))
}

/// Query of `GET /api/search`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchParams {
    /// What to look for: words, "phrases", -exclusions, `source:NAME`,
    /// `after:YYYY-MM-DD`, `before:YYYY-MM-DD` (at most 500 characters).
    pub q: Option<String>,
    /// `nextCursor` of the previous page, with the same `q` (subscribers only).
    pub cursor: Option<String>,
}

/// A malformed query: 400 `invalid_query`, saying what is wrong.
pub(crate) fn invalid_query(e: radar_store::QueryError) -> ApiError {
    ApiError::bad_request("invalid_query", e.to_string())
}

/// Searches every item: best match first, newer first among equals, without the items
/// the reader hid; the best few for free readers (the free allowance), pages for
/// subscribers (the answer's `limit` says how many).
#[utoipa::path(get, path = "/api/search", params(SearchParams), responses(
    (status = 200, body = SearchPage),
    (status = 400, body = crate::error::ErrorBody, description = "A malformed query (`invalid_query`: the message says what is wrong and how to write it) or cursor"),
    (status = 401, body = crate::error::ErrorBody, description = "Not signed in, or an invalid or expired token"),
    (status = 403, body = crate::error::ErrorBody, description = "A cursor from a free account"),
))]
pub(crate) async fn get_search(
    State(state): State<AppState>,
    AuthUser { user, .. }: AuthUser,
    Query(params): Query<SearchParams>,
) -> Result<Json<SearchPage>> {
    let query =
        SearchQuery::parse(params.q.as_deref().unwrap_or_default()).map_err(invalid_query)?;
    let viewer = Viewer {
        subscriber: state.store.is_subscriber(&user),
        user_id: Some(user.id.clone()),
    };
    let found = state
        .store
        .search(&viewer, &query, params.cursor.as_deref())
        .await?;
    let page = SearchPage {
        items: found
            .hits
            .into_iter()
            .map(|(item, highlights)| SearchHit { item, highlights })
            .collect(),
        has_more: found.has_more,
        next_cursor: found.next_cursor,
        limit: found.limit,
        total: found.total,
        subscriber: found.subscriber,
    };
    Ok(Json(page))
}
