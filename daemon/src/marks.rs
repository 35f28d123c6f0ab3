//! Favourites, Trash (hidden), read and shared items of the signed-in user
//! (docs/product.md §7). The mutual exclusion of the three marks is the store's rule.

use axum::extract::State;
use radar_api::{
    ItemMarks, Mark, MarkResult, NewsItem, ReadCheck, ShareBody, ShareResult, SharedItem,
};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::{ApiError, Result};
use crate::extract::{AuthUser, Json, Path, SessionCaller, session_expired};
use crate::state::AppState;

/// The mark routes.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_favorites))
        .routes(routes!(post_favorite, delete_favorite))
        .routes(routes!(get_hidden))
        .routes(routes!(post_hidden, delete_hidden))
        .routes(routes!(get_read))
        .routes(routes!(post_read, delete_read))
        .routes(routes!(get_read_check))
        .routes(routes!(get_shared))
        .routes(routes!(post_shared))
}

async fn list(state: &AppState, caller: &AuthUser, mark: Mark) -> Result<Json<Vec<NewsItem>>> {
    Ok(Json(state.store.marked_items(&caller.user.id, mark).await?))
}

/// The answer of a stored change: the item's marks now, so a client can draw them.
fn stored(marks: ItemMarks) -> Json<MarkResult> {
    Json(MarkResult {
        success: true,
        client_side_only: false,
        marks,
    })
}

/// Sets (`on`) or clears a mark, answering once the change is durable; meanwhile the
/// request waits without holding a thread, so concurrent writers share one sync. The
/// caller's session is checked by the change itself.
async fn change(
    state: &AppState,
    caller: &SessionCaller,
    item: &str,
    mark: Mark,
    on: bool,
) -> Result<Json<MarkResult>> {
    let marks = state
        .store
        .change_mark_in_session(caller.session_id(), caller.user_id(), item, mark, on)
        .await
        .map_err(|e| match e {
            radar_store::Error::NotFound("session") => session_expired(),
            e => e.into(),
        })?;
    Ok(stored(marks))
}

/// The caller's favourites, most recently added first.
#[utoipa::path(get, path = "/api/favorites", responses((status = 200, body = [NewsItem]), (status = 401, body = crate::error::ErrorBody)))]
pub(crate) async fn get_favorites(
    State(s): State<AppState>,
    caller: AuthUser,
) -> Result<Json<Vec<NewsItem>>> {
    list(&s, &caller, Mark::Favorite).await
}

/// Favourites an item (and takes it out of Trash and Read).
#[utoipa::path(post, path = "/api/favorites/{news_id}", responses((status = 200, body = MarkResult), (status = 404, body = crate::error::ErrorBody)))]
pub(crate) async fn post_favorite(
    State(s): State<AppState>,
    caller: SessionCaller,
    Path(id): Path<String>,
) -> Result<Json<MarkResult>> {
    change(&s, &caller, &id, Mark::Favorite, true).await
}

/// Unfavourites an item.
#[utoipa::path(delete, path = "/api/favorites/{news_id}", responses((status = 200, body = MarkResult), (status = 404, body = crate::error::ErrorBody)))]
pub(crate) async fn delete_favorite(
    State(s): State<AppState>,
    caller: SessionCaller,
    Path(id): Path<String>,
) -> Result<Json<MarkResult>> {
    change(&s, &caller, &id, Mark::Favorite, false).await
}

/// The caller's Trash, most recently hidden first.
#[utoipa::path(get, path = "/api/hidden", responses((status = 200, body = [NewsItem]), (status = 401, body = crate::error::ErrorBody)))]
pub(crate) async fn get_hidden(
    State(s): State<AppState>,
    caller: AuthUser,
) -> Result<Json<Vec<NewsItem>>> {
    list(&s, &caller, Mark::Hidden).await
}

/// Moves an item to Trash (and out of Favs and Read).
#[utoipa::path(post, path = "/api/hidden/{news_id}", responses((status = 200, body = MarkResult), (status = 404, body = crate::error::ErrorBody)))]
pub(crate) async fn post_hidden(
    State(s): State<AppState>,
    caller: SessionCaller,
    Path(id): Path<String>,
) -> Result<Json<MarkResult>> {
    change(&s, &caller, &id, Mark::Hidden, true).await
}

/// Restores an item from Trash.
#[utoipa::path(delete, path = "/api/hidden/{news_id}", responses((status = 200, body = MarkResult), (status = 404, body = crate::error::ErrorBody)))]
pub(crate) async fn delete_hidden(
    State(s): State<AppState>,
    caller: SessionCaller,
    Path(id): Path<String>,
) -> Result<Json<MarkResult>> {
    change(&s, &caller, &id, Mark::Hidden, false).await
}

/// The caller's read items, most recently read first.
#[utoipa::path(get, path = "/api/read", responses((status = 200, body = [NewsItem]), (status = 401, body = crate::error::ErrorBody)))]
pub(crate) async fn get_read(
    State(s): State<AppState>,
    caller: AuthUser,
) -> Result<Json<Vec<NewsItem>>> {
    list(&s, &caller, Mark::Read).await
}

/// Marks an item read (and takes it out of Favs and Trash).
#[utoipa::path(post, path = "/api/read/{news_id}", responses((status = 200, body = MarkResult), (status = 404, body = crate::error::ErrorBody)))]
pub(crate) async fn post_read(
    State(s): State<AppState>,
    caller: SessionCaller,
    Path(id): Path<String>,
) -> Result<Json<MarkResult>> {
    change(&s, &caller, &id, Mark::Read, true).await
}

/// Marks an item unread.
#[utoipa::path(delete, path = "/api/read/{news_id}", responses((status = 200, body = MarkResult), (status = 404, body = crate::error::ErrorBody)))]
pub(crate) async fn delete_read(
    State(s): State<AppState>,
    caller: SessionCaller,
    Path(id): Path<String>,
) -> Result<Json<MarkResult>> {
    change(&s, &caller, &id, Mark::Read, false).await
}

/// Whether the caller has read an item.
#[utoipa::path(get, path = "/api/read/check/{news_id}", responses((status = 200, body = ReadCheck), (status = 404, body = crate::error::ErrorBody)))]
pub(crate) async fn get_read_check(
    State(s): State<AppState>,
    caller: AuthUser,
    Path(id): Path<String>,
) -> Result<Json<ReadCheck>> {
    if !s.store.item_exists(&id).await? {
        return Err(ApiError::not_found("Item not found"));
    }
    Ok(Json(ReadCheck {
        read: s.store.has_mark(&caller.user.id, &id, Mark::Read).await?,
    }))
}

/// Records that the caller shared an item.
#[utoipa::path(post, path = "/api/shared/{news_id}", request_body = ShareBody, responses(
    (status = 200, body = ShareResult), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub(crate) async fn post_shared(
    State(s): State<AppState>,
    caller: AuthUser,
    Path(id): Path<String>,
    Json(body): Json<ShareBody>,
) -> Result<Json<ShareResult>> {
    s.store
        .record_share(&caller.user.id, &id, body.platform.as_str())
        .await?;
    Ok(Json(ShareResult { success: true }))
}

/// The caller's shared items, newest share first.
#[utoipa::path(get, path = "/api/shared", responses((status = 200, body = [SharedItem]), (status = 401, body = crate::error::ErrorBody)))]
pub(crate) async fn get_shared(
    State(s): State<AppState>,
    caller: AuthUser,
) -> Result<Json<Vec<SharedItem>>> {
    Ok(Json(s.store.shared_items(&caller.user.id).await?))
}
