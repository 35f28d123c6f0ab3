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
pub(crate) struct RedirectQuery {
    /// Where the e-mailed link should land.
    pub redirect_to: Option<String>,
}

pub(crate) use super::redirect::allowed_redirect;

/// The link `type` of a one-time token of `kind` (and the purpose of its PKCE code).
fn kind_name(kind: OneTimeKind) -> &'static str {
    match kind {
        OneTimeKind::Recovery => "recovery",
        OneTimeKind::Confirmation => "signup",
        OneTimeKind::EmailChangeCurrent | OneTimeKind::EmailChangeNew => "email_change",
        OneTimeKind::Reauthentication => "reauthentication",
    }
}

/// The sign-in method a session started from a PKCE link of `kind` names (GoTrue's).
fn pkce_method(kind: OneTimeKind) -> &'static str {
    match kind {
        OneTimeKind::Recovery => "recovery",
        OneTimeKind::Confirmation => "email/signup",
        OneTimeKind::EmailChangeCurrent | OneTimeKind::EmailChangeNew => "email_change",
        OneTimeKind::Reauthentication => "reauthentication",
    }
}

/// The `GET /verify` link for a one-time `token` of link type `kind`.
pub(crate) fn link_to(
    state: &AppState,
    token: &str,
    kind: &str,
    redirect_to: Option<&str>,
) -> String {
    let redirect = allowed_redirect(state, redirect_to);
    let query = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("token", token)
        .append_pair("type", kind)
        .append_pair("redirect_to", redirect.as_str())
        .finish();
    format!("{}/verify?{query}", super::auth_url(state))
}

/// How long mailed links work, in minutes, for the mails' texts.
pub(crate) fn mail_minutes(state: &AppState) -> i64 {
    (state.config.auth.otp_expiry / 60).max(1)
}

/// The challenge to keep with a mailed link; none for the implicit flow (no PKCE
/// fields). Malformed fields are refused with GoTrue's messages.
pub(crate) fn pkce_challenge(params: &AuthCodeChallenge) -> AuthResult<Option<PkceChallenge>> {
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
pub(crate) async fn send_link(
    state: &AppState,
    user: &User,
    kind: OneTimeKind,
    redirect_to: Option<&str>,
    pkce: Option<PkceChallenge>,
) -> AuthResult<()> {
    let ttl = chrono::Duration::seconds(state.config.auth.otp_expiry);
    let token = state
        .store
        .issue_one_time_token(&user.id, kind, ttl, pkce)
        .await?;
    let link = link_to(state, &token, kind_name(kind), redirect_to);
    let minutes = mail_minutes(state);
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
        other => {
            return Err(AuthError::internal(format!(
                "send_link does not mail {other:?} tokens"
            )));
        }
    };
    state
        .mailer
        .send(&user.email, subject, &text, kind_name(kind))
        .await
        .map_err(AuthError::internal)
}

/// Body of `POST /recover`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub(crate) struct RecoverBody {
    email: Option<String>,
    #[serde(flatten)]
    pkce: AuthCodeChallenge,
}

/// `POST /recover`: mails a password-reset link to a registered address; `{}` always.
#[utoipa::path(post, path = "/recover", tag = "auth", params(RedirectQuery), request_body = RecoverBody, responses(
    (status = 200, description = "`{}`, whether or not the address is registered"), (status = 400, body = radar_api::auth::AuthErrorBody), (status = 429, body = radar_api::auth::AuthErrorBody)))]
pub(crate) async fn post_recover(
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
    super::limit(&state, "recover", &email, peer).await?;
    super::pace_mail(&state, "recovery", &email).await?;
    if let Some(user) = state.store.user_by_email(&email).await? {
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
pub(crate) struct ResendBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    email: Option<String>,
    #[serde(flatten)]
    pkce: AuthCodeChallenge,
}

/// `POST /resend`: `type: "signup"` mails a new confirmation link to an address that
/// signed up and is not confirmed yet; `type: "email_change"` mails the links of the
/// account's pending e-mail change again (`email` is the current address). `{}` always,
/// as `/recover`.
#[utoipa::path(post, path = "/resend", tag = "auth", params(RedirectQuery), request_body = ResendBody, responses(
    (status = 200, description = "`{}`, whether or not the address is registered"), (status = 400, body = radar_api::auth::AuthErrorBody), (status = 429, body = radar_api::auth::AuthErrorBody)))]
pub(crate) async fn post_resend(
    State(state): State<AppState>,
    ClientIp(peer): ClientIp,
    _key: ApiKey,
    Query(q): Query<RedirectQuery>,
    Json(body): Json<ResendBody>,
) -> AuthResult<Json<serde_json::Value>> {
    let kind = match body.kind.as_deref() {
        Some(k @ ("signup" | "email_change")) => k,
        Some("sms" | "phone_change") => return Err(super::disabled::phone_signups()),
        _ => {
            return Err(AuthError::bad_request(
                "validation_failed",
                "Missing one of these types: signup, email_change, sms, phone_change",
            ));
        }
    };
    let email = email_of(body.email.as_deref())?;
    let pkce = pkce_challenge(&body.pkce)?;
    super::limit(&state, "recover", &email, peer).await?;
    if kind == "email_change" {
        // GoTrue resend.go: the current address asks; nothing pending answers `{}` too.
        super::pace_mail(&state, "email_change", &email).await?;
        let user = state.store.user_by_email(&email).await?;
        if let Some((user, new)) = user.and_then(|u| u.new_email.clone().map(|n| (u, n))) {
            // Taken since it was asked for: the last link will say so; `{}` here, so an
            // unauthenticated caller learns nothing about either address.
            match super::email_change::start(&state, &user, &new, q.redirect_to.as_deref(), pkce)
                .await
            {
                Err(e) if e.inner.code != "email_exists" => return Err(e),
                _ => {}
            }
        }
        return Ok(Json(serde_json::json!({})));
    }
    super::pace_mail(&state, "signup", &email).await?;
    if let Some(user) = state
        .store
        .user_by_email(&email)
        .await?
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
pub(crate) struct VerifyQuery {
    /// The mailed link's one-time token (`pkce_...` for a PKCE link).
    token: Option<String>,
    /// `recovery`, `signup` or `email`.
    #[serde(rename = "type")]
    #[param(rename = "type")]
    kind: Option<String>,
    /// Where to land; the site URL when it is not the site's own origin or allowed.
    redirect_to: Option<String>,
}

/// The link kinds a verification `type` takes: `email` takes a confirmation or a
/// recovery link alike (GoTrue verify.go's `verifyTokenHash`).
fn parse_kind(kind: &str) -> Option<&'static [OneTimeKind]> {
    Some(match kind {
        "recovery" | "magiclink" => &[OneTimeKind::Recovery],
        "signup" | "invite" => &[OneTimeKind::Confirmation],
        "email" => &[OneTimeKind::Confirmation, OneTimeKind::Recovery],
        "email_change" => &[OneTimeKind::EmailChangeCurrent, OneTimeKind::EmailChangeNew],
        _ => return None,
    })
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

/// What following a link gave, whichever kind it was.
enum Outcome {
    /// A session for the user (implicit flow), or a code for a PKCE challenge.
    SignIn {
        user: Box<User>,
        pkce: Option<PkceChallenge>,
        kind: OneTimeKind,
    },
    /// The first of an e-mail change's two links.
    FirstOfTwo,
}

/// Spends a link's token of one of `kinds`; the errors are GoTrue's.
async fn follow(state: &AppState, token: &str, kinds: &[OneTimeKind]) -> AuthResult<Outcome> {
    if kinds.contains(&OneTimeKind::EmailChangeNew) {
        return Ok(match super::email_change::follow(state, token).await? {
            super::email_change::Followed::FirstOfTwo => Outcome::FirstOfTwo,
            super::email_change::Followed::Changed(user, pkce) => Outcome::SignIn {
                user,
                pkce,
                kind: OneTimeKind::EmailChangeNew,
            },
        });
    }
    match state.store.redeem_link(token, kinds).await? {
        (Some(kind), Redeemed::Valid { user, pkce }) => Ok(Outcome::SignIn { user, pkce, kind }),
        _ => Err(AuthError::forbidden(
            "otp_expired",
            "Email link is invalid or has expired",
        )),
    }
}

/// `GET /verify`: the e-mailed link. No `apikey`: people click it from their mail.
/// An implicit-flow link lands with the session in the fragment, a PKCE link with
/// `?code=` for the client to exchange, the first of an e-mail change's two links with
/// GoTrue's message. Without a type or a token it is 400 JSON, as GoTrue's
/// `VerifyParams.Validate`; every other failure lands with the error.
#[utoipa::path(get, path = "/verify", tag = "auth", params(VerifyQuery), responses(
    (status = 303, description = "To the redirect target, with the session in the fragment (implicit flow), `?code=` (PKCE) or the error"),
    (status = 400, body = radar_api::auth::AuthErrorBody, description = "No type or no token")))]
pub(crate) async fn get_verify(
    State(state): State<AppState>,
    Query(q): Query<VerifyQuery>,
) -> AuthResult<Response> {
    let kind_param = q.kind.as_deref().map(str::trim).unwrap_or_default();
    if kind_param.is_empty() {
        return Err(AuthError::bad_request(
            "validation_failed",
            "Verify requires a verification type",
        ));
    }
    let token = q.token.as_deref().map(str::trim).unwrap_or_default();
    if token.is_empty() {
        return Err(AuthError::bad_request(
            "validation_failed",
            "Verify requires a token or a token hash",
        ));
    }
    let mut to = allowed_redirect(&state, q.redirect_to.as_deref());
    let pkce_link = token.starts_with(PKCE_PREFIX);
    let land = |mut to: url::Url, pairs: &[(&str, &str)]| {
        if pkce_link {
            to.query_pairs_mut().extend_pairs(pairs);
        }
        let f = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish();
        to.set_fragment(Some(&f));
        see_other(to)
    };
    let error = |to: url::Url, e: &AuthError| {
        let code = e.inner.code;
        let pairs = [
            ("error", "access_denied"),
            ("error_code", code),
            ("error_description", e.inner.message.as_str()),
        ];
        land(to, &pairs)
    };
    let Some(kinds) = parse_kind(kind_param) else {
        let e = AuthError::bad_request("validation_failed", "Unsupported verification type");
        return Ok(error(to, &e));
    };
    let outcome = match follow(&state, token, kinds).await {
        Ok(o) => o,
        Err(e) if e.inner.status.is_client_error() => return Ok(error(to, &e)),
        Err(e) => return Err(e),
    };
    match outcome {
        Outcome::FirstOfTwo => Ok(land(
            to,
            &[("message", super::email_change::FIRST_OF_TWO), ("sb", "")],
        )),
        Outcome::SignIn {
            user,
            pkce: Some(challenge),
            kind,
        } => {
            let code = state
                .store
                .issue_auth_code(&user.id, kind_name(kind), pkce_method(kind), challenge)
                .await?;
            to.query_pairs_mut().append_pair("code", &code);
            Ok(see_other(to))
        }
        Outcome::SignIn {
            user, pkce: None, ..
        } => {
            let grant = state.store.sign_in(&user.id, "otp").await?;
            let s = session_answer(&state, &grant);
            let f = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("access_token", &s.access_token)
                .append_pair("expires_at", &s.expires_at.to_string())
                .append_pair("expires_in", &s.expires_in.to_string())
                .append_pair("refresh_token", &s.refresh_token)
                .append_pair("token_type", &s.token_type)
                .append_pair("type", kind_param)
                .finish();
            to.set_fragment(Some(&f));
            Ok(see_other(to))
        }
    }
}

/// Body of `POST /verify` (auth-js `verifyOtp({type, token_hash})`).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub(crate) struct VerifyBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    /// The link's token.
    token_hash: Option<String>,
    /// The link's token too (Radar mails no short codes); not with `token_hash`.
    token: Option<String>,
}

/// `POST /verify`: redeems a link's token and answers the session as JSON; the first
/// of an e-mail change's two links answers GoTrue's `{"msg", "code": "200"}`.
#[utoipa::path(post, path = "/verify", tag = "auth", request_body = VerifyBody, responses(
    (status = 200, body = AuthSession, description = "A session, or the first of an e-mail change's two links accepted"), (status = 400, body = radar_api::auth::AuthErrorBody),
    (status = 403, body = radar_api::auth::AuthErrorBody), (status = 422, body = radar_api::auth::AuthErrorBody)))]
pub(crate) async fn post_verify(
    State(state): State<AppState>,
    _key: ApiKey,
    Json(body): Json<VerifyBody>,
) -> AuthResult<Response> {
    let kind = body.kind.as_deref().map(str::trim).unwrap_or_default();
    if kind.is_empty() {
        return Err(AuthError::bad_request(
            "validation_failed",
            "Verify requires a verification type",
        ));
    }
    let present = |v: &Option<String>| v.as_deref().is_some_and(|t| !t.trim().is_empty());
    // GoTrue VerifyParams.Validate: exactly one of the two.
    let token = match (present(&body.token), present(&body.token_hash)) {
        (true, false) => body.token.unwrap_or_default(),
        (false, true) => body.token_hash.unwrap_or_default(),
        _ => {
            return Err(AuthError::bad_request(
                "validation_failed",
                "Verify requires either a token or a token hash",
            ));
        }
    };
    let kinds = parse_kind(kind).ok_or_else(|| {
        AuthError::bad_request("validation_failed", "Unsupported verification type")
    })?;
    match follow(&state, token.trim(), kinds).await? {
        Outcome::FirstOfTwo => Ok(Json(serde_json::json!({
            "msg": super::email_change::FIRST_OF_TWO,
            "code": "200",
        }))
        .into_response()),
        Outcome::SignIn { user, .. } => {
            let grant = state.store.sign_in(&user.id, "otp").await?;
            Ok(Json(session_answer(&state, &grant)).into_response())
        }
    }
}
