//! `GET /api/health/live` and `GET /api/health/ready`: what a load balancer or an
//! orchestrator asks. Live means the process answers HTTP (restart it when it does not);
//! ready means it can serve right now: its store answers and its search replica holds
//! every write committed so far (send it traffic only then). On the embedded store both
//! are the same; over a shared database a node whose database is down is live but not
//! ready, and comes back by itself.

use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::extract::Json;
use crate::state::AppState;

/// The health routes.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_live))
        .routes(routes!(get_ready))
}

/// A health answer.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct Health {
    /// `ok`.
    pub status: &'static str,
    /// Where the data is: `sled` or `postgres`.
    pub store: &'static str,
}

/// The process answers HTTP.
#[utoipa::path(get, path = "/api/health/live", tag = "health",
    responses((status = 200, body = Health, description = "The process is up")))]
pub(crate) async fn get_live(State(state): State<AppState>) -> Json<Health> {
    Json(Health {
        status: "ok",
        store: state.store.engine(),
    })
}

/// The process can serve: the store answers and the search replica is current.
#[utoipa::path(get, path = "/api/health/ready", tag = "health",
    responses(
        (status = 200, body = Health, description = "Ready for traffic"),
        (status = 503, body = crate::error::ErrorBody,
         description = "The database cannot be reached; Retry-After says when to ask again"),
    ))]
pub(crate) async fn get_ready(State(state): State<AppState>) -> crate::Result<Json<Health>> {
    state.store.check_ready().await?;
    Ok(Json(Health {
        status: "ok",
        store: state.store.engine(),
    }))
}
