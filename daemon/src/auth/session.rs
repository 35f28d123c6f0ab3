//! Sessions: sign-in with a password, the PKCE code exchange, refresh, sign-out.
//!
//! `POST /token?grant_type=password|pkce|refresh_token` answers a session
//! `{access_token, token_type, expires_in, expires_at, refresh_token, user}`; refresh
//! tokens rotate (the store holds the rules). `POST /logout?scope=` ends sessions.

use axum::extract::State;
use axum::http::StatusCode;
use chrono::Utc;
use radar_api::auth::AuthSession;
use radar_store::{Exchanged, LogoutScope, Refresh, SessionGrant};
use serde::Deserialize;

use super::caller::{ApiKey, Caller, ClientIp};
use super::error::{AuthError, AuthResult};
use super::tokens::{AUDIENCE, AmrEntry, Claims};
use crate::extract::{AuthJson as Json, AuthQuery as Query};
use crate::state::AppState;

/// The answer to a successful sign-in: a new access token for the grant's session.
pub(crate) fn session_answer(state: &AppState, grant: &SessionGrant) -> AuthSession {
    let now = Utc::now().timestamp();
    let expires_in = state.config.auth.jwt_expiry;
    let user = super::user_shape::auth_user(&state.store, &grant.user);
    let claims = Claims {
        aud: AUDIENCE.into(),
        exp: now + expires_in,
        iat: now,
        iss: super::auth_url(state),
        sub: grant.user.id.clone(),
        email: grant.user.email.clone(),
        role: "authenticated".into(),
        aal: "aal1".into(),
        amr: vec![AmrEntry {
            method: grant.session.method.clone(),
            timestamp: grant.session.created_at.timestamp(),
        }],
        session_id: grant.session.id.clone(),
        is_anonymous: false,
        phone: user.phone.clone(),
        app_metadata: user.app_metadata.clone(),
        user_metadata: user.user_metadata.clone(),
    };
    AuthSession {
        access_token: state.tokens.sign(&claims),
        token_type: "bearer".into(),
        expires_in,
        expires_at: now + expires_in,
        refresh_token: grant.refresh_token.clone(),
        user,
    }
}

/// `?grant_type=`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct GrantQuery {
    /// `password`, `refresh_token` or `pkce` (`web3` answers 422 `web3_provider_disabled`;
    /// anything else, or none, 400 `invalid_credentials`).
    grant_type: Option<String>,
}

/// The body of any grant.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
pub(crate) struct TokenBody {
    email: Option<String>,
    /// A phone sign-in, which Radar does not offer (`phone_provider_disabled`).
    phone: Option<String>,
    password: Option<String>,
    refresh_token: Option<String>,
    /// `grant_type=pkce`: the `code` a PKCE link landed with.
    auth_code: Option<String>,
    /// `grant_type=pkce`: the verifier of the challenge sent when asking for the link.
    code_verifier: Option<String>,
}

/// `POST /token`: sign in with a password, exchange a PKCE code, or refresh a session.
#[utoipa::path(post, path = "/token", tag = "auth", params(GrantQuery), request_body = TokenBody, responses(
    (status = 200, body = AuthSession),
    (status = 400, body = radar_api::auth::AuthErrorBody, description = "Wrong credentials, an unknown grant, a malformed or spent refresh token, or a wrong PKCE verifier"),
    (status = 404, body = radar_api::auth::AuthErrorBody, description = "`grant_type=pkce`: an unknown or spent code (`flow_state_not_found`)"),
    (status = 422, body = radar_api::auth::AuthErrorBody, description = "`grant_type=pkce`: the code expired (`flow_state_expired`); `grant_type=web3` (`web3_provider_disabled`)"),
    (status = 429, body = radar_api::auth::AuthErrorBody)))]
pub(crate) async fn post_token(
    State(state): State<AppState>,
    ClientIp(peer): ClientIp,
    _key: ApiKey,
    Query(q): Query<GrantQuery>,
    Json(body): Json<TokenBody>,
) -> AuthResult<Json<AuthSession>> {
    match q.grant_type.as_deref() {
        Some("password") => sign_in(&state, peer, body).await,
        Some("refresh_token") => refresh(&state, body).await,
        Some("pkce") => exchange_code(&state, body).await,
        Some("web3") => Err(super::disabled::web3()),
        // GoTrue token.go answers any other grant (or none) with `invalid_credentials`.
        Some(other) => Err(AuthError::bad_request(
            "invalid_credentials",
            format!("Unsupported grant type {other:?}: use password, pkce or refresh_token."),
        )),
        None => Err(AuthError::bad_request(
            "invalid_credentials",
            "The grant_type query parameter is required.",
        )),
    }
}

fn invalid_credentials() -> AuthError {
    AuthError::bad_request("invalid_credentials", "Invalid login credentials")
}

async fn sign_in(
    state: &AppState,
    peer: std::net::IpAddr,
    body: TokenBody,
) -> AuthResult<Json<AuthSession>> {
    let password = body.password.unwrap_or_default();
    let given = |v: &Option<String>| v.as_deref().is_some_and(|s| !s.is_empty());
    match (given(&body.email), given(&body.phone)) {
        // GoTrue token.go: both addresses are a malformed request.
        (true, true) => {
            return Err(AuthError::bad_request(
                "validation_failed",
                "Only an email address or phone number should be provided on login.",
            ));
        }
        (false, true) => return Err(super::disabled::phone_logins()),
        _ => {}
    }
    if body.email.as_deref().is_none_or(|e| e.trim().is_empty()) || password.is_empty() {
        return Err(AuthError::bad_request(
            "validation_failed",
            "Both email and password are required.",
        ));
    }
    let email = super::account::email_of(body.email.as_deref())?;
    super::limit(state, "sign-in", &email, peer).await?;
    let user = state.store.user_by_email(&email).await?;
    let stored = user.as_ref().map(|u| u.password_hash.clone());
    if !state.passwords.verify(password, stored).await? {
        return Err(invalid_credentials());
    }
    let user = user.ok_or_else(invalid_credentials)?;
    if user.email_confirmed_at.is_none() {
        return Err(AuthError::bad_request(
            "email_not_confirmed",
            "Email not confirmed",
        ));
    }
    let grant = state.store.sign_in(&user.id, "password").await?;
    Ok(Json(session_answer(state, &grant)))
}

/// `grant_type=pkce`: the authorization code of a followed PKCE link, with the verifier
/// of the challenge the client sent when it asked for the link. GoTrue's answers: 404
/// `flow_state_not_found` for an unknown or spent code, 422 `flow_state_expired` past
/// `--auth-code-expiry`, 400 `bad_code_verifier` for the wrong verifier.
async fn exchange_code(state: &AppState, body: TokenBody) -> AuthResult<Json<AuthSession>> {
    let code = body.auth_code.unwrap_or_default();
    let verifier = body.code_verifier.unwrap_or_default();
    if code.trim().is_empty() || verifier.is_empty() {
        return Err(AuthError::bad_request(
            "validation_failed",
            "invalid request: both auth code and code verifier should be non-empty",
        ));
    }
    let not_found = || {
        AuthError::new(
            StatusCode::NOT_FOUND,
            "flow_state_not_found",
            "invalid flow state, no valid flow state found",
        )
    };
    let ttl = chrono::Duration::seconds(state.config.auth.auth_code_expiry);
    match state
        .store
        .exchange_auth_code(code.trim(), &verifier, ttl)
        .await?
    {
        Exchanged::Valid { user_id, method } => {
            let grant = state
                .store
                .sign_in(&user_id, &method)
                .await
                .map_err(|e| match e {
                    radar_store::Error::NotFound(_) => not_found(),
                    e => e.into(),
                })?;
            Ok(Json(session_answer(state, &grant)))
        }
        Exchanged::NotFound => Err(not_found()),
        Exchanged::Expired => Err(AuthError::unprocessable(
            "flow_state_expired",
            "invalid flow state, flow state has expired",
        )),
        Exchanged::BadVerifier => Err(AuthError::bad_request(
            "bad_code_verifier",
            "code challenge does not match previously saved code verifier",
        )),
    }
}

async fn refresh(state: &AppState, body: TokenBody) -> AuthResult<Json<AuthSession>> {
    let token = body.refresh_token.unwrap_or_default();
    if token.trim().is_empty() {
        return Err(AuthError::bad_request(
            "validation_failed",
            "refresh_token is required.",
        ));
    }
    // GoTrue token_refresh.go: a token that cannot be one is a malformed request.
    if !radar_store::is_well_formed_secret(token.trim()) {
        return Err(AuthError::bad_request(
            "validation_failed",
            "Refresh token is not valid",
        ));
    }
    let grace = chrono::Duration::seconds(state.config.auth.refresh_reuse_interval);
    match state.store.refresh_session(token.trim(), grace).await? {
        Refresh::Rotated(grant) => Ok(Json(session_answer(state, &grant))),
        Refresh::NotFound => Err(AuthError::bad_request(
            "refresh_token_not_found",
            "Invalid Refresh Token: Refresh Token Not Found",
        )),
        Refresh::AlreadyUsed => Err(AuthError::bad_request(
            "refresh_token_already_used",
            "Invalid Refresh Token: Already Used",
        )),
    }
}

/// `?scope=global|local|others`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct LogoutQuery {
    /// `global` (every session of the user, the default), `local` (this one) or `others`.
    scope: Option<String>,
}

/// `POST /logout`: ends the caller's session (`local`), every session of the caller
/// (`global`, the default) or every other one (`others`).
#[utoipa::path(post, path = "/logout", tag = "auth", params(LogoutQuery), responses(
    (status = 204, description = "Signed out"), (status = 400, body = radar_api::auth::AuthErrorBody), (status = 401, body = radar_api::auth::AuthErrorBody)))]
pub(crate) async fn post_logout(
    State(state): State<AppState>,
    _key: ApiKey,
    caller: Caller,
    Query(q): Query<LogoutQuery>,
) -> AuthResult<StatusCode> {
    let scope = match q.scope.as_deref().unwrap_or("global") {
        "global" => LogoutScope::Global,
        "local" => LogoutScope::Local,
        "others" => LogoutScope::Others,
        other => {
            return Err(AuthError::bad_request(
                "validation_failed",
                format!("Unsupported logout scope {other:?}: use global, local or others."),
            ));
        }
    };
    state
        .store
        .sign_out(&caller.user.id, &caller.claims.session_id, scope)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
