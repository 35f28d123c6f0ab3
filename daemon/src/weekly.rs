//! Weekly AI summaries (docs/product.md §2, §3 and §7): the archive and one summary.
//!
//! Access: docs/product.md §2 lists /weekly-summary among the protected routes, and section 6
//! says its premium check always allows access. So these calls need a signed-in user
//! (401 otherwise) of any tier, free or subscriber; there is no 403 for free users.

use axum::extract::State;
use radar_store::WeeklySummary;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::{ApiError, Result};
use crate::extract::{AuthUser, Json, Path};
use crate::state::AppState;

/// The weekly summary routes.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_weekly_archive))
        .routes(routes!(get_weekly_summary))
}

/// Every weekly summary, newest week first.
#[utoipa::path(get, path = "/api/weekly-summary/archive", tag = "weekly summary", responses(
    (status = 200, body = [WeeklySummary]), (status = 401, body = crate::error::ErrorBody)))]
pub(crate) async fn get_weekly_archive(
    State(s): State<AppState>,
    _caller: AuthUser,
) -> Result<Json<Vec<WeeklySummary>>> {
    Ok(Json(s.store.summaries().await?))
}

/// One weekly summary.
#[utoipa::path(get, path = "/api/weekly-summary/{id}", tag = "weekly summary", params(("id" = String, Path)), responses(
    (status = 200, body = WeeklySummary),
    (status = 401, body = crate::error::ErrorBody),
    (status = 404, body = crate::error::ErrorBody),
))]
pub(crate) async fn get_weekly_summary(
    State(s): State<AppState>,
    _caller: AuthUser,
    Path(id): Path<String>,
) -> Result<Json<WeeklySummary>> {
    s.store
        .summary(&id)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found("Weekly summary not found."))
}
