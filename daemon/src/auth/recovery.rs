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
//!   `POST /token?grant_type=pkce`.
//!
//! A bad, used or expired link answers 303 with `error`, `error_code` and
//! `error_description` in the fragment (and, for a PKCE link, in the query too).
//! `redirect_to` is honoured only for the site's own origin and the configured
//! allow-list; anything else falls back to the site URL. Each address gets at most one
//! link of a kind per `--email-frequency` seconds (429 `over_email_send_rate_limit`).

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use radar_store::wire::AuthSession;
use radar_store::{ChallengeMethod, Issued, OneTimeKind, PKCE_PREFIX, PkceChallenge, Redeemed, User};
use serde::Deserialize;

use super::caller::{ApiKey, ClientIp};
use super::error::{AuthError, AuthResult};
use super::session::session_answer;
use crate::error::ApiError;
use crate::extract::{Json, Query};
use crate::state::AppState;

/// `?redirect_to=`.
#[derive(Debug, Deserialize)]
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

/// The PKCE fields a client adds to a request for a link.
#[derive(Debug, Default, Deserialize)]
pub struct PkceParams {
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

impl PkceParams {
    /// The challenge to keep with the link; none for the implicit flow. Malformed
    /// parameters are refused with GoTrue's messages.
    pub fn challenge(&self) -> AuthResult<Option<PkceChallenge>> {
        let challenge = self.code_challenge.as_deref().unwrap_or_default();
        let method = self.code_challenge_method.as_deref().unwrap_or_default();
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
}

/// 429 `over_email_send_rate_limit`, in GoTrue's words.
pub fn too_soon(wait_secs: u64) -> AuthError {
    ApiError::too_many(
        "over_email_send_rate_limit",
        format!("For security purposes, you can only request this after {wait_secs} seconds."),
        wait_secs,
    )
    .into()
}

/// Counts a request for a link that will not be mailed (unknown address, or nothing to
/// send) against the same per-address interval as a real one, so both answer alike.
pub fn pace_unsent(state: &AppState, kind: OneTimeKind, email: &str) -> AuthResult<()> {
    state
        .mail_pace
        .hit(kind_name(kind), email)
        .map_err(too_soon)
}

/// Issues a one-time token for `user` and mails the link; 429 when a link of this kind
/// went to the address less than `--email-frequency` seconds ago.
pub async fn send_link(
    state: &AppState,
    user: &User,
    kind: OneTimeKind,
    redirect_to: Option<&str>,
    pkce: Option<PkceChallenge>,
) -> AuthResult<()> {
    let auth = &state.config.auth;
    let ttl = chrono::Duration::seconds(auth.otp_expiry);
    let interval = chrono::Duration::seconds(auth.email_frequency as i64);
    let token = match state
        .store
        .issue_one_time_token(&user.id, kind, ttl, interval, pkce)?
    {
        Issued::Token(token) => token,
        Issued::TooSoon { wait_secs } => return Err(too_soon(wait_secs.max(1) as u64)),
    };
    let redirect = allowed_redirect(state, redirect_to);
    let query = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("token", &token)
        .append_pair("type", kind_name(kind))
        .append_pair("redirect_to", redirect.as_str())
        .finish();
    let link = format!("{}/verify?{query}", super::auth_url(state));
    let minutes = (auth.otp_expiry / 60).max(1);
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

/// The trimmed, lower-cased e-mail of a request, or 400 with `missing` as the message.
fn requested_email(raw: Option<&str>, missing: &str) -> AuthResult<String> {
    let email = raw.map(str::trim).unwrap_or_default().to_lowercase();
    if email.is_empty() {
        return Err(AuthError::bad_request("validation_failed", missing.to_string()));
    }
    Ok(email)
}

/// Body of `POST /recover`.
#[derive(Debug, Deserialize)]
pub struct RecoverBody {
    email: Option<String>,
    #[serde(flatten)]
    pkce: PkceParams,
}

/// `POST /recover`: mails a password-reset link to a registered address; `{}` always.
pub async fn post_recover(
    State(state): State<AppState>,
    ClientIp(peer): ClientIp,
    _key: ApiKey,
    Query(q): Query<RedirectQuery>,
    Json(body): Json<RecoverBody>,
) -> AuthResult<Json<serde_json::Value>> {
    let email = requested_email(body.email.as_deref(), "Password recovery requires an email")?;
    let pkce = body.pkce.challenge()?;
    super::limit(&state, "recover", &email, peer)?;
    match state.store.user_by_email(&email)? {
        Some(user) => {
            send_link(
                &state,
                &user,
                OneTimeKind::Recovery,
                q.redirect_to.as_deref(),
                pkce,
            )
            .await?
        }
        None => pace_unsent(&state, OneTimeKind::Recovery, &email)?,
    }
    Ok(Json(serde_json::json!({})))
}

/// Body of `POST /resend`.
#[derive(Debug, Deserialize)]
pub struct ResendBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    email: Option<String>,
    phone: Option<String>,
    #[serde(flatten)]
    pkce: PkceParams,
}

/// `POST /resend` (`type: "signup"`): mails a new confirmation link to an address that
/// signed up and is not confirmed yet; `{}` always, as `/recover`. `email_change` has
/// nothing to resend (Radar changes no e-mail addresses); the phone types are off.
pub async fn post_resend(
    State(state): State<AppState>,
    ClientIp(peer): ClientIp,
    _key: ApiKey,
    Query(q): Query<RedirectQuery>,
    Json(body): Json<ResendBody>,
) -> AuthResult<Json<serde_json::Value>> {
    let kind = body.kind.as_deref().unwrap_or_default();
    match kind {
        "signup" | "email_change" => {}
        "sms" | "phone_change" => {
            return Err(AuthError::bad_request(
                "phone_provider_disabled",
                "Phone logins are disabled",
            ));
        }
        _ => {
            return Err(AuthError::bad_request(
                "validation_failed",
                "Missing one of these types: signup, email_change, sms, phone_change",
            ));
        }
    }
    if body.phone.as_deref().is_some_and(|p| !p.trim().is_empty()) {
        return Err(AuthError::bad_request(
            "phone_provider_disabled",
            "Phone logins are disabled",
        ));
    }
    let email = requested_email(
        body.email.as_deref(),
        "Type provided requires an email address",
    )?;
    let pkce = body.pkce.challenge()?;
    super::limit(&state, "recover", &email, peer)?;
    let unconfirmed = state
        .store
        .user_by_email(&email)?
        .filter(|u| kind == "signup" && u.email_confirmed_at.is_none());
    match unconfirmed {
        Some(user) => {
            send_link(
                &state,
                &user,
                OneTimeKind::Confirmation,
                q.redirect_to.as_deref(),
                pkce,
            )
            .await?
        }
        None => pace_unsent(&state, OneTimeKind::Confirmation, &email)?,
    }
    Ok(Json(serde_json::json!({})))
}

/// `GET /verify` query.
#[derive(Debug, Deserialize)]
pub struct VerifyQuery {
    token: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    redirect_to: Option<String>,
}

fn parse_kind(kind: Option<&str>) -> Option<OneTimeKind> {
    match kind? {
        "recovery" | "magiclink" => Some(OneTimeKind::Recovery),
        "signup" | "email" | "invite" => Some(OneTimeKind::Confirmation),
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

/// `GET /verify`: the e-mailed link. No `apikey`: people click it from their mail.
pub async fn get_verify(
    State(state): State<AppState>,
    Query(q): Query<VerifyQuery>,
) -> AuthResult<Response> {
    let mut to = allowed_redirect(&state, q.redirect_to.as_deref());
    let token = q.token.as_deref().map(str::trim).unwrap_or_default();
    let pkce_link = token.starts_with(PKCE_PREFIX);
    let error = |mut to: url::Url, code: &str, description: &str| {
        let f = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("error", "access_denied")
            .append_pair("error_code", code)
            .append_pair("error_description", description)
            .finish();
        if pkce_link {
            to.set_query(Some(&f));
        }
        to.set_fragment(Some(&f));
        see_other(to)
    };
    let Some(kind) = parse_kind(q.kind.as_deref()) else {
        return Ok(error(to, "validation_failed", "Unsupported verification type"));
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
#[derive(Debug, Deserialize)]
pub struct VerifyBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    token_hash: Option<String>,
    token: Option<String>,
}

/// `POST /verify`: redeems a link's token (either flow's) and answers the session as
/// JSON, as GoTrue does for server-side apps that verify the `token_hash` themselves.
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
    match state.store.redeem_one_time_token(token.trim(), kind)? {
        Redeemed::Valid { user, .. } => {
            let grant = state.store.sign_in(&user.id, "otp")?;
            Ok(Json(session_answer(&state, &grant)))
        }
        Redeemed::Invalid | Redeemed::Expired => Err(expired()),
    }
}
