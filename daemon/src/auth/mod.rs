//! The embedded auth service, speaking the Supabase Auth (GoTrue) protocol under
//! `/auth/v1`, so `@supabase/auth-js` works against it unmodified.

pub mod tokens;

use axum::Router;

use crate::AppState;

/// Authentication settings.
#[derive(Debug, Clone, clap::Args)]
pub struct AuthConfig {
    /// Secret for signing tokens (at least 32 characters). Default: generated once and
    /// kept in DATA/jwt_secret, mode 0600.
    #[arg(long, env = "RADAR_JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<String>,

    /// Lifetime of access tokens, in seconds.
    #[arg(long, env = "RADAR_JWT_EXPIRY", default_value_t = 3600)]
    pub jwt_expiry: i64,
}

/// The `/auth/v1` routes.
pub fn router() -> Router<AppState> {
    Router::new()
}
