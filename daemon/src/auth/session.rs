//! Sessions: sign-in with a password, the PKCE code exchange, refresh, sign-out.
//!
//! `POST /token?grant_type=password|pkce|refresh_token` answers a session
//! `{access_token, token_type, expires_in, expires_at, refresh_token, user}`; refresh
//! tokens rotate (the store holds the rules). `POST /logout?scope=` ends sessions.

use axum::extract::State;
use axum::http::StatusCode;
use chrono::Utc;
use radar_store::wire::AuthSession;
use radar_store::{Exchanged, LogoutScope, Refresh, SessionGrant};
use serde::Deserialize;

use super::caller::{ApiKey, Caller, ClientIp};
use super::error::{AuthError, AuthResult};
use super::password;
use super::tokens::{AUDIENCE, AmrEntry, Claims};
use crate::extract::{Json, Query};
use crate::state::AppState;

/// The answer to a successful sign-in: a new access token for the grant's session, with
/// the claims GoTrue puts in one (the user's metadata as of now among them).
pub fn session_answer(state: &AppState, grant: &SessionGrant) -> AuthSession {
    let now = Utc::now().timestamp();
    let expires_in = state.config.auth.jwt_expiry;
    let user = state.store.auth_user(&grant.user);
    let app_metadata = match serde_json::to_value(&user.app_metadata) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => Default::default(),
    };
    let claims = Claims {
        aud: AUDIENCE.into(),
        exp: now + expires_in,
        iat: now,
        iss: super::auth_url(state),
        sub: grant.user.id.clone(),
        email: grant.user.email.clone(),
        phone: String::new(),
        app_metadata,
        user_metadata: user.user_metadata.clone(),
        role: "authenticated".into(),
        aal: "aal1".into(),
        amr: vec![AmrEntry {
            method: grant.session.method.clone(),
            timestamp: grant.session.created_at.timestamp(),
        }],
        session_id: grant.session.id.clone(),
        is_anonymous: false,
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
#[derive(Debug, Deserialize)]
pub struct GrantQuery {
    grant_type: Option<String>,
}

/// The body of any grant.
#[derive(Debug, Default, Deserialize)]
pub struct TokenBody {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
    refresh_token: Option<String>,
    auth_code: Option<String>,
    code_verifier: Option<String>,
    provider: Option<String>,
    issuer: Option<String>,
}

/// `POST /token`: sign in with a password, exchange a PKCE code, or refresh a session.
/// The grants of sign-in methods Radar does not offer answer as GoTrue does when they
/// are switched off.
pub async fn post_token(
    State(state): State<AppState>,
    ClientIp(peer): ClientIp,
    _key: ApiKey,
    Query(q): Query<GrantQuery>,
    Json(body): Json<TokenBody>,
) -> AuthResult<Json<AuthSession>> {
    match q.grant_type.as_deref().unwrap_or_default() {
        "password" => sign_in(&state, peer, body).await,
        "refresh_token" => refresh(&state, body),
        "pkce" => exchange_code(&state, body),
        "id_token" => {
            let named = body.provider.or(body.issuer).unwrap_or_default();
            Err(AuthError::bad_request(
                "provider_disabled",
                format!("Provider (issuer {named:?}) is not enabled"),
            ))
        }
        "web3" => Err(AuthError::unprocessable(
            "web3_provider_disabled",
            "Web3 provider is disabled",
        )),
        _ => Err(AuthError::bad_request(
            "invalid_credentials",
            "unsupported_grant_type",
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
    let email = body
        .email
        .as_deref()
        .map(str::trim)
        .unwrap_or_default()
        .to_lowercase();
    let phone = body.phone.as_deref().map(str::trim).unwrap_or_default();
    if !email.is_empty() && !phone.is_empty() {
        return Err(AuthError::bad_request(
            "validation_failed",
            "Only an email address or phone number should be provided on login.",
        ));
    }
    if !phone.is_empty() {
        return Err(super::disabled::phone_logins());
    }
    let password = body.password.unwrap_or_default();
    if email.is_empty() || password.is_empty() {
        return Err(AuthError::bad_request(
            "validation_failed",
            "Both email and password are required.",
        ));
    }
    super::limit(state, "sign-in", &email, peer)?;
    let user = state.store.user_by_email(&email)?;
    let stored = user.as_ref().map(|u| u.password_hash.clone());
    if !password::verify(password, stored).await? {
        return Err(invalid_credentials());
    }
    let user = user.ok_or_else(invalid_credentials)?;
    if user.email_confirmed_at.is_none() {
        return Err(AuthError::bad_request(
            "email_not_confirmed",
            "Email not confirmed",
        ));
    }
    let grant = state.store.sign_in(&user.id, "password")?;
    Ok(Json(session_answer(state, &grant)))
}

/// `grant_type=pkce`: the authorization code of a followed PKCE link, with the verifier
/// of the challenge the client sent when it asked for the link.
fn exchange_code(state: &AppState, body: TokenBody) -> AuthResult<Json<AuthSession>> {
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
    match state.store.exchange_auth_code(code.trim(), &verifier, ttl)? {
        Exchanged::Valid { user_id, method } => {
            let grant = state.store.sign_in(&user_id, &method).map_err(|e| match e {
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

fn refresh(state: &AppState, body: TokenBody) -> AuthResult<Json<AuthSession>> {
    let token = body.refresh_token.unwrap_or_default();
    if token.is_empty() {
        return Err(AuthError::bad_request(
            "validation_failed",
            "refresh_token required",
        ));
    }
    let interval = chrono::Duration::seconds(state.config.auth.refresh_reuse_interval);
    match state.store.refresh_session(&token, interval)? {
        Refresh::Rotated(grant) | Refresh::Retried(grant) => {
            Ok(Json(session_answer(state, &grant)))
        }
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
#[derive(Debug, Deserialize)]
pub struct LogoutQuery {
    scope: Option<String>,
}

/// `POST /logout`: ends the caller's session (`local`), every session of the caller
/// (`global`, the default) or every other one (`others`).
pub async fn post_logout(
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
        .sign_out(&caller.user.id, &caller.claims.session_id, scope)?;
    Ok(StatusCode::NO_CONTENT)
}
