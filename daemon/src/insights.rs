//! The Insights tab (docs/product.md §16): `GET /api/insights`, a subscriber's week, and
//! the job that counts all readers' reads of the week, one process of a cluster at a
//! time.

use axum::extract::State;
use chrono::Utc;
use radar_api::insights::Insights;
use radar_store::Store;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::Result;
use crate::extract::{AuthUser, Json};
use crate::state::AppState;

/// The insights routes.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_insights))
}

/// The caller's week (subscribers): reads by topic and source, the comparison with all
/// readers (only when at least 20 read this week), the biggest stories missed and the
/// resume's terms the week's items named.
#[utoipa::path(get, path = "/api/insights", tag = "insights", responses(
    (status = 200, body = Insights),
    (status = 401, body = crate::error::ErrorBody, description = "Not signed in"),
    (status = 403, body = crate::error::ErrorBody, description = "Not a subscriber (`subscription_required`)"),
))]
pub(crate) async fn get_insights(
    State(state): State<AppState>,
    caller: AuthUser,
) -> Result<Json<Insights>> {
    Ok(Json(state.store.insights(&caller.user, Utc::now()).await?))
}

/// The lease name of the totals job.
const LEASE: &str = "reading-totals";

/// Counts all readers' reads of the week ending now and stores them, if this process
/// takes the `reading-totals` lease (held for `every`, so one process of a cluster
/// counts per period; another takes over when it stops).
pub(crate) async fn count_scheduled(store: &Store, holder: &str, every: std::time::Duration) {
    let now = Utc::now();
    let hold = chrono::Duration::from_std(every).unwrap_or(chrono::Duration::MAX)
        - chrono::Duration::milliseconds(100);
    match store.lease(LEASE, holder, now + hold).await {
        Ok(true) => {}
        Ok(false) => return tracing::debug!("another process counts the reads"),
        Err(e) => return tracing::warn!(error = %e, "cannot lease the reading totals"),
    }
    let counted = store
        .count_reads(now, |items, readers| {
            crate::summarize::local::week_stories(&items, readers)
        })
        .await;
    match counted {
        Ok(t) => tracing::debug!(
            readers = t.readers,
            reads = t.reads,
            "reading totals counted"
        ),
        Err(e) => tracing::warn!(error = %e, "cannot count the reading totals; will retry"),
    }
}
