//! E-mailed one-time links: password recovery and sign-up confirmation.
//!
//! `POST /recover` always answers `{}`, so nobody learns whether an address is
//! registered. A registered one gets a single-use link, valid `--otp-expiry` seconds, to
//! `GET /verify?token=...&type=recovery&redirect_to=...`. Two flows, as GoTrue has them:
//! - implicit (no `code_challenge` in the request): following the link signs the user in
//!   and answers 303 to `redirect_to` with the session in the fragment;
//! - PKCE (the request carried `code_challenge` and `code_challenge_method`): the link's
//!   token starts with `pkce_`, and following it answers 303 to `redirect_to?code=...`,
//!   an authorization code the client exchanges with its verifier at
//!   `POST /token?grant_type=pkce` (see [`super::session`]).
//!
//! A bad, used or expired link answers 303 with `error`, `error_code` and
//! `error_description` in the fragment (and, for a PKCE link, in the query too, where
//! a PKCE client looks). `redirect_to` is honoured only for the site's own origin and
//! the configured allow-list; anything else falls back to the site URL.

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use radar_api::auth::{AuthCodeChallenge, AuthSession};
use radar_store::{ChallengeMethod, OneTimeKind, PKCE_PREFIX, PkceChallenge, Redeemed, User};
use serde::Deserialize;

use super::account::email_of;
use super::caller::{ApiKey, ClientIp};
use super::error::{AuthError, AuthResult};
use super::session::session_answer;
use crate::extract::{AuthJson as Json, AuthQuery as Query};
use crate::state::AppState;

/// `?redirect_to=`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RedirectQuery {
    /// Where the e-mailed link should land.
    pub redirect_to: Option<String>,
}

/// The redirect target to use: `requested` when its origin is the site's or it falls
/// under an allow-list entry (same origin, path prefix); otherwise the site URL.
pub fn allowed_redirect(state: &AppState, requested: Option<&str>) -> url::Url {
    let site = state.site_url.as_ref();
    let Some(raw) = requested.map(str::trim).filter(|r| !r.is_empty()) else {
        return site.clone();
    };
    let Ok(wanted) = site.join(raw) else {
        return site.clone();
    };
    if !matches!(wanted.scheme(), "http" | "https") {
        return site.clone();
    }
    let same_origin = wanted.origin() == site.origin();
    let allowed = state
        .config
        .auth
        .redirect_allow
        .iter()
        .any(|a| a.origin() == wanted.origin() && wanted.path().starts_with(a.path()));
    if same_origin || allowed {
        wanted
    } else {
        site.clone()
    }
}

fn kind_name(kind: OneTimeKind) -> &'static str {
    match kind {
        OneTimeKind::Recovery => "recovery",
        OneTimeKind::Confirmation => "signup",
    }
}

/// The sign-in method a session started from a PKCE link of `kind` names (GoTrue's).
fn pkce_method(kind: OneTimeKind) -> &'static str {
    match kind {
        OneTimeKind::Recovery => "recovery",
        OneTimeKind::Confirmation => "email/signup",
    }
}

/// The challenge to keep with a mailed link; none for the implicit flow (no PKCE
/// fields). Malformed fields are refused with GoTrue's messages.
pub fn pkce_challenge(params: &AuthCodeChallenge) -> AuthResult<Option<PkceChallenge>> {
    let challenge = params.code_challenge.as_deref().unwrap_or_default();
    let method = params.code_challenge_method.as_deref().unwrap_or_default();
    let invalid = |msg: String| AuthError::bad_request("validation_failed", msg);
    match (challenge.is_empty(), method.is_empty()) {
        (true, true) => return Ok(None),
        (false, false) => {}
        _ => {
            return Err(invalid(
                "PKCE flow requires code_challenge_method and code_challenge".into(),
            ));
        }
    }
    if !(43..=128).contains(&challenge.len()) {
        return Err(invalid(
            "code challenge has to be between 43 and 128 characters".into(),
        ));
    }
    let allowed = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
    if !challenge.bytes().all(allowed) {
        return Err(invalid(
            "code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes".into(),
        ));
    }
    let method = ChallengeMethod::parse(method)
        .ok_or_else(|| invalid(format!("unsupported code_challenge method {method:?}")))?;
    Ok(Some(PkceChallenge {
        challenge: challenge.to_string(),
        method,
    }))
}

/// Issues a one-time token for `user` and mails the link: a `pkce_` one when the client
/// sent a code challenge.
pub async fn send_link(
    state: &AppState,
    user: &User,
    kind: OneTimeKind,
    redirect_to: Option<&str>,
    pkce: Option<PkceChallenge>,
) -> AuthResult<()> {
    let ttl = chrono::Duration::seconds(state.config.auth.otp_expiry);
    let token = state
        .store
        .issue_one_time_token(&user.id, kind, ttl, pkce)?;
    let redirect = allowed_redirect(state, redirect_to);
    let query = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("token", &token)
        .append_pair("type", kind_name(kind))
        .append_pair("redirect_to", redirect.as_str())
        .finish();
    let link = format!("{}/verify?{query}", super::auth_url(state));
    let minutes = (state.config.auth.otp_expiry / 60).max(1);
    let (subject, text) = match kind {
        OneTimeKind::Recovery => (
            "Reset your Radar password",
            format!(
                "Someone asked to reset the password of your Radar account.\n\n\
                 To choose a new password, open this link (it works once, for {minutes} minutes):\n\n{link}\n\n\
                 If it was not you, ignore this message; your password stays as it is.\n"
            ),
        ),
        OneTimeKind::Confirmation => (
            "Confirm your Radar account",
            format!(
                "Welcome to Radar.\n\nTo confirm your e-mail address, open this link (it works once, for {minutes} minutes):\n\n{link}\n"
            ),
        ),
    };
    state
        .mailer
        .send(&user.email, subject, &text, kind_name(kind))
        .await
        .map_err(AuthError::internal)
}

/// Body of `POST /recover`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct RecoverBody {
    email: Option<String>,
    #[serde(flatten)]
    pkce: AuthCodeChallenge,
}

/// `POST /recover`: mails a password-reset link to a registered address; `{}` always.
#[utoipa::path(post, path = "/recover", tag = "auth", params(RedirectQuery), request_body = RecoverBody, responses(
    (status = 200, description = "`{}`, whether or not the address is registered"), (status = 400, body = radar_api::auth::AuthErrorBody), (status = 429, body = radar_api::auth::AuthErrorBody)))]
pub async fn post_recover(
    State(state): State<AppState>,
    ClientIp(peer): ClientIp,
    _key: ApiKey,
    Query(q): Query<RedirectQuery>,
    Json(body): Json<RecoverBody>,
) -> AuthResult<Json<serde_json::Value>> {
    if body.email.as_deref().is_none_or(|e| e.trim().is_empty()) {
        return Err(AuthError::bad_request(
            "validation_failed",
            "Password recovery requires an email.",
        ));
    }
    let email = email_of(body.email.as_deref())?;
    let pkce = pkce_challenge(&body.pkce)?;
    super::limit(&state, "recover", &email, peer)?;
    super::pace_mail(&state, "recovery", &email)?;
    if let Some(user) = state.store.user_by_email(&email)? {
        send_link(
            &state,
            &user,
            OneTimeKind::Recovery,
            q.redirect_to.as_deref(),
            pkce,
        )
        .await?;
    }
    Ok(Json(serde_json::json!({})))
}

/// Body of `POST /resend`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ResendBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    email: Option<String>,
    #[serde(flatten)]
    pkce: AuthCodeChallenge,
}

/// `POST /resend` (`type: "signup"`): mails a new confirmation link to an address that
/// signed up and is not confirmed yet; `{}` always, as `/recover`.
#[utoipa::path(post, path = "/resend", tag = "auth", params(RedirectQuery), request_body = ResendBody, responses(
    (status = 200, description = "`{}`, whether or not the address is registered"), (status = 400, body = radar_api::auth::AuthErrorBody), (status = 429, body = radar_api::auth::AuthErrorBody)))]
pub async fn post_resend(
    State(state): State<AppState>,
    ClientIp(peer): ClientIp,
    _key: ApiKey,
    Query(q): Query<RedirectQuery>,
    Json(body): Json<ResendBody>,
) -> AuthResult<Json<serde_json::Value>> {
    if !matches!(body.kind.as_deref(), Some("signup")) {
        return Err(AuthError::bad_request(
            "validation_failed",
            "Only type \"signup\" can be resent.",
        ));
    }
    let email = email_of(body.email.as_deref())?;
    let pkce = pkce_challenge(&body.pkce)?;
    super::limit(&state, "recover", &email, peer)?;
    super::pace_mail(&state, "signup", &email)?;
    if let Some(user) = state
        .store
        .user_by_email(&email)?
        .filter(|u| u.email_confirmed_at.is_none())
    {
        send_link(
            &state,
            &user,
            OneTimeKind::Confirmation,
            q.redirect_to.as_deref(),
            pkce,
        )
        .await?;
    }
    Ok(Json(serde_json::json!({})))
}

/// `GET /verify` query.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct VerifyQuery {
    /// The mailed link's one-time token (`pkce_...` for a PKCE link).
    token: Option<String>,
    /// `recovery`, `signup` or `email`.
    #[serde(rename = "type")]
    #[param(rename = "type")]
    kind: Option<String>,
    /// Where to land; the site URL when it is not the site's own origin or allowed.
    redirect_to: Option<String>,
}

fn parse_kind(kind: Option<&str>) -> Option<OneTimeKind> {
    match kind? {
        "recovery" => Some(OneTimeKind::Recovery),
        "signup" | "email" => Some(OneTimeKind::Confirmation),
        _ => None,
    }
}

fn see_other(to: url::Url) -> Response {
    let mut res = StatusCode::SEE_OTHER.into_response();
    if let Ok(v) = HeaderValue::from_str(to.as_str()) {
        res.headers_mut().insert(header::LOCATION, v);
    }
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

/// Redeems a link's token for a session (`POST /verify`, and implicit-flow links).
fn redeem(state: &AppState, token: &str, kind: OneTimeKind) -> AuthResult<Option<AuthSession>> {
    match state.store.redeem_one_time_token(token, kind)? {
        Redeemed::Valid { user, .. } => {
            let grant = state.store.sign_in(&user.id, "otp")?;
            Ok(Some(session_answer(state, &grant)))
        }
        Redeemed::Invalid | Redeemed::Expired => Ok(None),
    }
}

/// `GET /verify`: the e-mailed link. No `apikey`: people click it from their mail.
/// An implicit-flow link lands with the session in the fragment, a PKCE link with
/// `?code=` for the client to exchange.
#[utoipa::path(get, path = "/verify", tag = "auth", params(VerifyQuery), responses(
    (status = 303, description = "To the redirect target, with the session in the fragment (implicit flow), `?code=` (PKCE) or the error")))]
pub async fn get_verify(
    State(state): State<AppState>,
    Query(q): Query<VerifyQuery>,
) -> AuthResult<Response> {
    let mut to = allowed_redirect(&state, q.redirect_to.as_deref());
    let token = q.token.as_deref().map(str::trim).unwrap_or_default();
    let pkce_link = token.starts_with(PKCE_PREFIX);
    let error = |mut to: url::Url, code: &str, description: &str| {
        let pairs = [
            ("error", "access_denied"),
            ("error_code", code),
            ("error_description", description),
        ];
        if pkce_link {
            to.query_pairs_mut().extend_pairs(pairs);
        }
        let f = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish();
        to.set_fragment(Some(&f));
        see_other(to)
    };
    let Some(kind) = parse_kind(q.kind.as_deref()) else {
        return Ok(error(
            to,
            "validation_failed",
            "Unsupported verification type",
        ));
    };
    let redeemed = if token.is_empty() {
        Redeemed::Invalid
    } else {
        state.store.redeem_one_time_token(token, kind)?
    };
    match redeemed {
        Redeemed::Valid {
            user,
            pkce: Some(challenge),
        } => {
            let code = state.store.issue_auth_code(
                &user.id,
                kind_name(kind),
                pkce_method(kind),
                challenge,
            )?;
            to.query_pairs_mut().append_pair("code", &code);
            Ok(see_other(to))
        }
        Redeemed::Valid { user, pkce: None } => {
            let grant = state.store.sign_in(&user.id, "otp")?;
            let s = session_answer(&state, &grant);
            let f = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("access_token", &s.access_token)
                .append_pair("expires_at", &s.expires_at.to_string())
                .append_pair("expires_in", &s.expires_in.to_string())
                .append_pair("refresh_token", &s.refresh_token)
                .append_pair("token_type", &s.token_type)
                .append_pair("type", q.kind.as_deref().unwrap_or_default())
                .finish();
            to.set_fragment(Some(&f));
            Ok(see_other(to))
        }
        Redeemed::Invalid | Redeemed::Expired => Ok(error(
            to,
            "otp_expired",
            "Email link is invalid or has expired",
        )),
    }
}

/// Body of `POST /verify` (auth-js `verifyOtp({type, token_hash})`).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct VerifyBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    token_hash: Option<String>,
    token: Option<String>,
}

/// `POST /verify`: redeems a link's token and answers the session as JSON.
#[utoipa::path(post, path = "/verify", tag = "auth", request_body = VerifyBody, responses(
    (status = 200, body = AuthSession), (status = 400, body = radar_api::auth::AuthErrorBody), (status = 403, body = radar_api::auth::AuthErrorBody)))]
pub async fn post_verify(
    State(state): State<AppState>,
    _key: ApiKey,
    Json(body): Json<VerifyBody>,
) -> AuthResult<Json<AuthSession>> {
    let kind = parse_kind(body.kind.as_deref()).ok_or_else(|| {
        AuthError::bad_request("validation_failed", "Unsupported verification type.")
    })?;
    let token = body.token_hash.or(body.token).unwrap_or_default();
    let expired = || AuthError::forbidden("otp_expired", "Token has expired or is invalid");
    if token.trim().is_empty() {
        return Err(expired());
    }
    redeem(&state, token.trim(), kind)?
        .map(Json)
        .ok_or_else(expired)
}
