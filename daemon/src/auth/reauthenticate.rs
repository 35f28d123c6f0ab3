//! Reauthentication (GoTrue's reauthenticate.go): `GET /reauthenticate` mails the
//! signed-in user a six-digit code; with `--secure-password-change`, `PUT /user` with a
//! new password wants it as `nonce` when the session is older than
//! `--reauthentication-window` (GoTrue: 24 hours), so a stolen session alone cannot
//! take the account over. Answers as GoTrue's: no code 400 `reauthentication_needed`,
//! a wrong or expired one 422 `reauthentication_not_valid`.

use axum::extract::State;
use radar_store::User;

use super::caller::{ApiKey, Caller};
use super::error::{AuthError, AuthResult};
use super::tokens::Claims;
use crate::extract::AuthJson as Json;
use crate::state::AppState;

/// `GET /reauthenticate`: mails the signed-in user a reauthentication code; `{}`.
#[utoipa::path(get, path = "/reauthenticate", tag = "auth", responses(
    (status = 200, description = "`{}`; the code is mailed"), (status = 401, body = radar_api::auth::AuthErrorBody),
    (status = 403, body = radar_api::auth::AuthErrorBody), (status = 422, body = radar_api::auth::AuthErrorBody), (status = 429, body = radar_api::auth::AuthErrorBody)))]
pub(crate) async fn get_reauthenticate(
    State(state): State<AppState>,
    _key: ApiKey,
    caller: Caller,
) -> AuthResult<Json<serde_json::Value>> {
    let user = &caller.user;
    if user.email_confirmed_at.is_none() {
        return Err(AuthError::unprocessable(
            "email_not_confirmed",
            "Please verify your email first.",
        ));
    }
    super::pace_mail(&state, "reauthentication", &user.email).await?;
    let ttl = chrono::Duration::seconds(state.config.auth.otp_expiry);
    let nonce = state
        .store
        .issue_reauthentication_nonce(&user.id, ttl)
        .await?;
    let minutes = super::recovery::mail_minutes(&state);
    let text = format!(
        "Your Radar reauthentication code is:\n\n{nonce}\n\n\
         It works once, for {minutes} minutes. If you did not ask for it, change your password.\n"
    );
    state
        .mailer
        .send(
            &user.email,
            "Your Radar reauthentication code",
            &text,
            "reauthentication",
        )
        .await
        .map_err(AuthError::internal)?;
    Ok(Json(serde_json::json!({})))
}

/// Whether a password change by `user` in the session of `claims` may go ahead with
/// `nonce` (spent when it is used).
pub(crate) async fn check_nonce(
    state: &AppState,
    user: &User,
    claims: &Claims,
    nonce: Option<&str>,
) -> AuthResult<()> {
    let auth = &state.config.auth;
    if !auth.secure_password_change {
        return Ok(());
    }
    let signed_in_at = claims
        .amr
        .iter()
        .map(|a| a.timestamp)
        .min()
        .unwrap_or_default();
    let age = chrono::Utc::now().timestamp() - signed_in_at;
    if age < auth.reauthentication_window {
        return Ok(());
    }
    let nonce = nonce.map(str::trim).unwrap_or_default();
    if nonce.is_empty() {
        return Err(AuthError::bad_request(
            "reauthentication_needed",
            "Password update requires reauthentication",
        ));
    }
    if !state
        .store
        .spend_reauthentication_nonce(&user.id, nonce)
        .await?
    {
        return Err(AuthError::unprocessable(
            "reauthentication_not_valid",
            "Nonce has expired or is invalid",
        ));
    }
    Ok(())
}
