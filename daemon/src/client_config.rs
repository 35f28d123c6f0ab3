//! `GET /api/config`: what the web app needs to know before it can talk to the daemon.
//! The anonymous key comes from here rather than being built into the app, so one build
//! serves every install.

use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::extract::Json;
use crate::state::AppState;

/// The config routes.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_config))
}

/// Public settings for clients.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ClientConfig {
    /// The public anonymous key, sent as `apikey` to `/auth/v1`.
    pub anon_key: String,
    /// Whether subscriptions are open; when closed, the waitlist is the offered path.
    pub subscriptions_open: bool,
    /// The payment provider: `test` or `stripe`.
    pub payments_provider: crate::payments::ProviderKind,
}

/// Public settings for clients.
#[utoipa::path(get, path = "/api/config", responses((status = 200, body = ClientConfig)))]
pub(crate) async fn get_config(State(state): State<AppState>) -> Json<ClientConfig> {
    Json(client_config(&state))
}

/// The settings `GET /api/config` answers, which `index.html` also carries inline.
pub(crate) fn client_config(state: &AppState) -> ClientConfig {
    let p = &state.config.payments;
    ClientConfig {
        anon_key: state.tokens.anon_key.clone(),
        subscriptions_open: p.subscriptions_open,
        payments_provider: p.payments_provider,
    }
}
