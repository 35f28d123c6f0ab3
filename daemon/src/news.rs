//! The reader's stream: `GET /api/news` (the caller's feed, capped by the server, see
//! `radar_store::feed`), one item for the in-app reader, and its key takeaways.

use axum::extract::State;
use radar_api::{
    FeedPage, MarkOlderBody, NewsItem, OlderThan, OpenBody, Opened, ReadBeforeBody,
    ReadBeforeState, Takeaways, UnreadCount,
};
use radar_store::ReadBefore;
use radar_store::Viewer;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::Result;
use crate::extract::{AuthUser, Json, MaybeAuthUser, Path, Query, RawJson};
use crate::state::AppState;

/// The news routes.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_news))
        .routes(routes!(get_news_item))
        .routes(routes!(get_takeaways))
        .routes(routes!(post_open))
        .routes(routes!(get_unread))
        .routes(routes!(post_read_before, put_read_before))
}

/// Query of `GET /api/news`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewsQuery {
    /// `nextCursor` of the previous page (subscribers only).
    pub cursor: Option<String>,
}

/// Who is asking, as the store's rules see them; the server decides on every request.
fn viewer(state: &AppState, caller: Option<&AuthUser>) -> Viewer {
    match caller {
        Some(c) => Viewer {
            user_id: Some(c.user.id.clone()),
            subscriber: state.store.is_subscriber(&c.user),
        },
        None => Viewer::default(),
    }
}

/// The caller's feed: newest first, without items they hid or read; the free allowance
/// for anonymous and free callers, pages for subscribers (the answer's `limit` says how
/// many). The answer says how to go on (see `FeedPage`), so clients need not know either
/// number.
#[utoipa::path(get, path = "/api/news", tag = "news", params(NewsQuery), responses(
    (status = 200, body = FeedPage),
    (status = 400, body = crate::error::ErrorBody, description = "Malformed query or cursor"),
    (status = 401, body = crate::error::ErrorBody, description = "Invalid or expired token"),
    (status = 403, body = crate::error::ErrorBody, description = "A cursor from a caller who is not a subscriber (`subscription_required`)"),
))]
pub(crate) async fn get_news(
    State(state): State<AppState>,
    MaybeAuthUser(caller): MaybeAuthUser,
    Query(q): Query<NewsQuery>,
) -> Result<RawJson> {
    feed(&state, caller.as_ref(), q.cursor.as_deref()).await
}

/// The caller's feed page after `cursor`, as `GET /api/news` answers it.
pub(crate) async fn feed(
    state: &AppState,
    caller: Option<&AuthUser>,
    cursor: Option<&str>,
) -> Result<RawJson> {
    let viewer = viewer(state, caller);
    Ok(RawJson(state.store.feed_page_json(&viewer, cursor).await?))
}

/// One item, for the in-app reader and its deep links. Subscribers may open any item;
/// other callers the items of their first feed page and those in their own lists.
#[utoipa::path(get, path = "/api/news/{news_id}", tag = "news", params(("news_id" = String, Path)), responses(
    (status = 200, body = NewsItem),
    (status = 401, body = crate::error::ErrorBody, description = "Invalid or expired token"),
    (status = 403, body = crate::error::ErrorBody, description = "Beyond a free caller's allowance (`subscription_required`)"),
    (status = 404, body = crate::error::ErrorBody, description = "No such item"),
))]
pub(crate) async fn get_news_item(
    State(state): State<AppState>,
    MaybeAuthUser(caller): MaybeAuthUser,
    Path(id): Path<String>,
) -> Result<Json<NewsItem>> {
    let viewer = viewer(&state, caller.as_ref());
    Ok(Json(state.store.readable_item(&viewer, &id).await?))
}

/// Personalised key takeaways of an item (subscribers), ranked by the reader's resume.
#[utoipa::path(get, path = "/api/news/{news_id}/takeaways", tag = "news", params(("news_id" = String, Path)), responses(
    (status = 200, body = Takeaways),
    (status = 401, body = crate::error::ErrorBody, description = "Not signed in"),
    (status = 403, body = crate::error::ErrorBody, description = "Not a subscriber (`subscription_required`)"),
    (status = 404, body = crate::error::ErrorBody, description = "No such item"),
))]
pub(crate) async fn get_takeaways(
    State(state): State<AppState>,
    caller: AuthUser,
    Path(id): Path<String>,
) -> Result<Json<Takeaways>> {
    Ok(Json(state.store.takeaways(&caller.user, &id).await?))
}

/// The caller opened an item (the in-app reader, the terminal's reader view): the server
/// decides what that does to its marks (read, when it had none, was opened from the feed,
/// Drops, TV or search, and the caller keeps mark-on-open on) and answers them.
#[utoipa::path(post, path = "/api/news/{news_id}/open", tag = "news", params(("news_id" = String, Path)), request_body = OpenBody, responses(
    (status = 200, body = Opened),
    (status = 400, body = crate::error::ErrorBody, description = "Not a JSON object with a known `from`"),
    (status = 401, body = crate::error::ErrorBody, description = "Not signed in"),
    (status = 404, body = crate::error::ErrorBody, description = "No such item"),
))]
pub(crate) async fn post_open(
    State(state): State<AppState>,
    caller: AuthUser,
    Path(id): Path<String>,
    Json(body): Json<OpenBody>,
) -> Result<Json<Opened>> {
    let opening = state
        .store
        .open_item(&caller.user.id, &id, body.from)
        .await?;
    Ok(Json(Opened {
        marked_read: opening.marked_read,
        marks: opening.marks,
    }))
}

/// How many items the caller may still read in their feed, for the unread counts of the
/// Feed tab, the page title and the terminal's header.
#[utoipa::path(get, path = "/api/unread", tag = "news", responses(
    (status = 200, body = UnreadCount),
    (status = 401, body = crate::error::ErrorBody, description = "Not signed in"),
))]
pub(crate) async fn get_unread(
    State(state): State<AppState>,
    caller: AuthUser,
) -> Result<Json<UnreadCount>> {
    let viewer = viewer(&state, Some(&caller));
    Ok(Json(UnreadCount {
        unread: state.store.unread_count(&viewer).await?,
    }))
}

/// "Mark as read": every item (or every item older than a day or a week) that carries no
/// mark counts as read from now on, in one write however many items there are; marked
/// items keep their marks. The answer holds the previous cut-off, for an undo.
#[utoipa::path(post, path = "/api/read-before", tag = "news", request_body = MarkOlderBody, responses(
    (status = 200, body = ReadBeforeState),
    (status = 400, body = crate::error::ErrorBody, description = "Not a JSON object with olderThan all, day or week"),
    (status = 401, body = crate::error::ErrorBody, description = "Not signed in"),
))]
pub(crate) async fn post_read_before(
    State(state): State<AppState>,
    caller: AuthUser,
    Json(body): Json<MarkOlderBody>,
) -> Result<Json<ReadBeforeState>> {
    let older_than = match body.older_than {
        OlderThan::All => chrono::Duration::zero(),
        OlderThan::Day => chrono::Duration::days(1),
        OlderThan::Week => chrono::Duration::days(7),
    };
    let changed = state
        .store
        .mark_read_before(&caller.user.id, older_than)
        .await?;
    read_before_state(&state, &caller, changed).await
}

/// Sets the caller's cut-off exactly (null: none), as an undo of `POST /api/read-before`.
#[utoipa::path(put, path = "/api/read-before", tag = "news", request_body = ReadBeforeBody, responses(
    (status = 200, body = ReadBeforeState),
    (status = 400, body = crate::error::ErrorBody, description = "Not a JSON object with readBefore a date or null"),
    (status = 401, body = crate::error::ErrorBody, description = "Not signed in"),
))]
pub(crate) async fn put_read_before(
    State(state): State<AppState>,
    caller: AuthUser,
    Json(body): Json<ReadBeforeBody>,
) -> Result<Json<ReadBeforeState>> {
    let changed = state
        .store
        .set_read_before(&caller.user.id, body.read_before)
        .await?;
    read_before_state(&state, &caller, changed).await
}

async fn read_before_state(
    state: &AppState,
    caller: &AuthUser,
    changed: ReadBefore,
) -> Result<Json<ReadBeforeState>> {
    let viewer = viewer(state, Some(caller));
    Ok(Json(ReadBeforeState {
        read_before: changed.read_before,
        previous: changed.previous,
        unread: state.store.unread_count(&viewer).await?,
    }))
}
