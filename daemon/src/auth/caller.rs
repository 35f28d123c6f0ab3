//! Who is calling `/auth/v1`: the install's public key (`apikey`), and the signed-in
//! user behind an access token. Rejections use the protocol's error codes, so auth-js
//! reacts as it does with the hosted service (for example, `session_not_found` signs the
//! client out).

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use radar_store::User;

use super::error::AuthError;
use super::tokens::Claims;
use crate::state::AppState;

/// The request carries the install's anonymous key as `apikey` (header or query), as
/// every client of the protocol does.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ApiKey;

impl FromRequestParts<AppState> for ApiKey {
    type Rejection = AuthError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AuthError> {
        let from_query = || {
            url::form_urlencoded::parse(parts.uri.query().unwrap_or_default().as_bytes())
                .find(|(k, _)| k == "apikey")
                .map(|(_, v)| v.into_owned())
        };
        let key = match parts.headers.get("apikey") {
            Some(v) => v.to_str().ok().map(str::to_string),
            None => from_query(),
        };
        match key {
            None => Err(AuthError::unauthorized(
                "no_api_key",
                "No API key found in request. Send the install's anonymous key (GET /api/config) as the apikey header.",
            )),
            Some(k) if state.tokens.is_anon_key(k.trim()) => Ok(ApiKey),
            Some(_) => Err(AuthError::unauthorized(
                "invalid_api_key",
                "Invalid API key.",
            )),
        }
    }
}

/// The client's IP address for rate limits: the TCP peer, or with
/// `--trust-forwarded-for` (behind a reverse proxy) the last `X-Forwarded-For` entry,
/// which is the one the proxy added.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClientIp(pub IpAddr);

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = AuthError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AuthError> {
        if state.config.auth.trust_forwarded_for
            && let Some(ip) = parts
                .headers
                .get_all("x-forwarded-for")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .next_back()
                .and_then(|last| last.trim().parse().ok())
        {
            return Ok(Self(ip));
        }
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        Ok(Self(peer.unwrap_or(IpAddr::from([0, 0, 0, 0]))))
    }
}

/// A signed-in caller: a valid access token whose session is live.
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    /// The account, shared with the store's cache of parsed accounts.
    pub user: std::sync::Arc<User>,
    /// The access token's claims.
    pub claims: std::sync::Arc<Claims>,
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = AuthError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AuthError> {
        let token = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| {
                h.strip_prefix("Bearer ")
                    .or_else(|| h.strip_prefix("bearer "))
            })
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                AuthError::unauthorized(
                    "no_authorization",
                    "This endpoint requires a Bearer token.",
                )
            })?;
        let claims = state.tokens.verify(token).map_err(|e| {
            AuthError::forbidden(
                "bad_jwt",
                format!("invalid JWT: unable to parse or verify signature, {e}"),
            )
        })?;
        // The session with its account in one lookup (one round trip on a shared
        // database). Only when that fails is the account asked alone, to answer as
        // GoTrue does: a deleted account's token (whose sessions went with it) is
        // `user_not_found`, not `session_not_found`.
        let user = match state.store.session_and_user(&claims.session_id).await? {
            Some((session, user)) if session.user_id == claims.sub => user,
            _ => {
                if state.store.user_shared(&claims.sub).await?.is_none() {
                    return Err(AuthError::forbidden(
                        "user_not_found",
                        "User from sub claim in JWT does not exist.",
                    ));
                }
                return Err(AuthError::forbidden(
                    "session_not_found",
                    "Session from session_id claim in JWT does not exist.",
                ));
            }
        };
        Ok(Self { user, claims })
    }
}
