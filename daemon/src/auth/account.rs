//! Accounts: sign-up, and reading and changing the signed-in user.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use radar_api::auth::AuthUser;
use radar_store::{OneTimeKind, check_email, client_metadata};
use serde::Deserialize;

use super::caller::{ApiKey, Caller, ClientIp};
use super::disabled;
use super::error::{AuthError, AuthResult};
use super::password;
use super::recovery::{RedirectQuery, pkce_challenge, send_link};
use super::session::session_answer;
use crate::extract::{AuthJson as Json, AuthQuery as Query};
use crate::state::AppState;

/// Body of `POST /signup`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub(crate) struct SignupBody {
    email: Option<String>,
    /// Phone sign-ups are not offered: one without an e-mail is refused as GoTrue
    /// refuses it when they are off.
    phone: Option<String>,
    password: Option<String>,
    /// Initial user metadata.
    #[serde(default)]
    data: Option<serde_json::Map<String, serde_json::Value>>,
    /// With e-mail confirmation on, a challenge makes the confirmation link a PKCE one.
    #[serde(flatten)]
    pkce: radar_api::auth::AuthCodeChallenge,
}

/// The address of a request, checked by the store's one rule ([`check_email`]) and
/// lower-cased; every `/auth/v1` route that takes an e-mail goes through here.
/// Every problem is 400 `validation_failed`, as GoTrue's `validateEmail` answers a
/// malformed address; the message says which rule it broke.
pub(crate) fn email_of(raw: Option<&str>) -> AuthResult<String> {
    check_email(raw.unwrap_or_default())
        .map_err(|problem| AuthError::bad_request("validation_failed", problem.message()))
}

fn already_registered() -> AuthError {
    AuthError::unprocessable("user_already_exists", "User already registered")
}

/// `POST /signup`: a session when e-mail confirmation is off; otherwise the new user,
/// and a confirmation mail (for a registered address, see [`registered_address`]).
#[utoipa::path(post, path = "/signup", tag = "auth", params(super::recovery::RedirectQuery), request_body = SignupBody, responses(
    (status = 200, body = radar_api::auth::AuthSession, description = "A session, or the new user when e-mail confirmation is on"),
    (status = 400, body = radar_api::auth::AuthErrorBody), (status = 422, body = radar_api::auth::AuthErrorBody), (status = 429, body = radar_api::auth::AuthErrorBody)))]
pub(crate) async fn post_signup(
    State(state): State<AppState>,
    ClientIp(peer): ClientIp,
    _key: ApiKey,
    Query(q): Query<RedirectQuery>,
    Json(body): Json<SignupBody>,
) -> AuthResult<Response> {
    if state.config.auth.disable_signup {
        return Err(AuthError::unprocessable(
            "signup_disabled",
            "Signups not allowed for this instance",
        ));
    }
    // GoTrue tells the sign-up kinds apart by which address is given.
    let given = |v: &Option<String>| v.as_deref().is_some_and(|s| !s.is_empty());
    match (given(&body.email), given(&body.phone)) {
        (false, false) => return Err(disabled::anonymous_sign_ins()),
        (false, true) => return Err(disabled::phone_signups()),
        // GoTrue signup.go: both addresses are a malformed request.
        (true, true) => {
            return Err(AuthError::bad_request(
                "validation_failed",
                "Only an email address or phone number should be provided on signup.",
            ));
        }
        (true, false) => {}
    }
    let email = email_of(body.email.as_deref())?;
    let password = body.password.unwrap_or_default();
    if password.is_empty() {
        return Err(AuthError::bad_request(
            "validation_failed",
            "Signup requires a valid password.",
        ));
    }
    password::check_strength(&password)?;
    let pkce = pkce_challenge(&body.pkce)?;
    super::limit(&state, "sign-up", &email, peer).await?;
    let confirm = state.config.auth.confirm_email;
    if confirm {
        super::pace_mail(&state, "signup", &email).await?;
    } else if state.store.user_by_email(&email).await?.is_some() {
        return Err(already_registered());
    }
    let hash = state.passwords.hash(password).await?;
    let metadata = client_metadata(body.data.unwrap_or_default());
    let user = match state
        .store
        .create_user(&email, hash, metadata.clone(), !confirm)
        .await
    {
        Ok(user) => user,
        Err(radar_store::Error::Conflict(_)) if confirm => {
            let redirect = q.redirect_to.as_deref();
            return registered_address(&state, &email, metadata, redirect, pkce).await;
        }
        Err(radar_store::Error::Conflict(_)) => return Err(already_registered()),
        Err(e) => return Err(e.into()),
    };
    if confirm {
        send_link(
            &state,
            &user,
            OneTimeKind::Confirmation,
            q.redirect_to.as_deref(),
            pkce,
        )
        .await?;
        // Read again: issuing the link set `confirmation_sent_at`.
        let user = state.store.user(&user.id).await?.unwrap_or(user);
        return Ok(Json(super::user_shape::auth_user(&state.store, &user)).into_response());
    }
    let grant = state.store.sign_in(&user.id, "password").await?;
    Ok(Json(session_answer(&state, &grant)).into_response())
}

/// A sign-up with a registered address while confirmations are on, as GoTrue's
/// signup.go answers it: the answer of a fresh sign-up (a stand-in user, never stored),
/// with no identities for a confirmed address (GoTrue's `sanitizeUser`: apps read
/// `identities: []` as "already registered"), and for an unconfirmed one with an
/// identity, as a fresh sign-up has, and the confirmation mailed again. The password is
/// hashed before this, as for a new account, so the answer takes as long.
async fn registered_address(
    state: &AppState,
    email: &str,
    metadata: serde_json::Map<String, serde_json::Value>,
    redirect_to: Option<&str>,
    pkce: Option<radar_store::PkceChallenge>,
) -> AuthResult<Response> {
    let registered = state.store.user_by_email(email).await?;
    let confirmed = registered
        .as_ref()
        .is_some_and(|u| u.email_confirmed_at.is_some());
    if let Some(user) = registered.filter(|_| !confirmed) {
        send_link(state, &user, OneTimeKind::Confirmation, redirect_to, pkce).await?;
    }
    let stand_in = state.store.stand_in_user(email, metadata)?;
    let mut answer = super::user_shape::auth_user(&state.store, &stand_in);
    if confirmed {
        answer.identities.clear();
    }
    Ok(Json(answer).into_response())
}

/// `GET /user`: the signed-in user.
#[utoipa::path(get, path = "/user", tag = "auth", responses(
    (status = 200, body = AuthUser), (status = 401, body = radar_api::auth::AuthErrorBody), (status = 403, body = radar_api::auth::AuthErrorBody)))]
pub(crate) async fn get_user(
    State(state): State<AppState>,
    _key: ApiKey,
    caller: Caller,
) -> Json<AuthUser> {
    Json(super::user_shape::auth_user(&state.store, &caller.user))
}

/// Body of `PUT /user`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub(crate) struct UpdateUserBody {
    /// A new address: mails the links that confirm the change (see [`super::email_change`]).
    email: Option<String>,
    password: Option<String>,
    /// The code `GET /reauthenticate` mailed, when `--secure-password-change` wants it.
    nonce: Option<String>,
    /// Metadata to merge (a null value removes a key).
    data: Option<serde_json::Map<String, serde_json::Value>>,
    /// Only the service role may set it (GoTrue: 403 `not_admin`), which Radar never
    /// hands out.
    #[schema(value_type = Option<Object>)]
    app_metadata: Option<serde_json::Value>,
    /// With an e-mail change, a challenge makes its links PKCE ones.
    #[serde(flatten)]
    pkce: radar_api::auth::AuthCodeChallenge,
}

/// `PUT /user`: changes the password (ending the user's other sessions), merges
/// metadata and starts an e-mail change. Everything is checked before anything
/// changes, in GoTrue's order (user.go).
#[utoipa::path(put, path = "/user", tag = "auth", params(super::recovery::RedirectQuery), request_body = UpdateUserBody, responses(
    (status = 200, body = AuthUser), (status = 400, body = radar_api::auth::AuthErrorBody), (status = 401, body = radar_api::auth::AuthErrorBody),
    (status = 403, body = radar_api::auth::AuthErrorBody), (status = 422, body = radar_api::auth::AuthErrorBody), (status = 429, body = radar_api::auth::AuthErrorBody)))]
pub(crate) async fn put_user(
    State(state): State<AppState>,
    _key: ApiKey,
    caller: Caller,
    Query(q): Query<RedirectQuery>,
    Json(body): Json<UpdateUserBody>,
) -> AuthResult<Json<AuthUser>> {
    let mut user = std::sync::Arc::unwrap_or_clone(caller.user);
    let new_email = match body.email.as_deref().filter(|e| !e.trim().is_empty()) {
        Some(raw) => Some(email_of(Some(raw))?).filter(|e| *e != user.email),
        None => None,
    };
    if let Some(new) = &body.password {
        password::check_strength(new)?;
    }
    if body.app_metadata.is_some() {
        return Err(AuthError::forbidden(
            "not_admin",
            "Updating app_metadata requires admin privileges",
        ));
    }
    let pkce = pkce_challenge(&body.pkce)?;
    if let Some(new) = &new_email {
        if state.store.user_by_email(new).await?.is_some() {
            return Err(super::email_change::email_exists());
        }
        super::pace_mail(&state, "email_change", &user.email).await?;
    }
    if let Some(new) = body.password {
        super::reauthenticate::check_nonce(&state, &user, &caller.claims, body.nonce.as_deref())
            .await?;
        if state
            .passwords
            .verify(new.clone(), Some(user.password_hash.clone()))
            .await?
        {
            return Err(AuthError::unprocessable(
                "same_password",
                "New password should be different from the old password.",
            ));
        }
        let hash = state.passwords.hash(new).await?;
        user = state
            .store
            .change_password(&user.id, hash, Some(&caller.claims.session_id))
            .await?;
    }
    if let Some(data) = body.data {
        user = state.store.merge_user_metadata(&user.id, data).await?;
    }
    if let Some(new) = new_email {
        user =
            super::email_change::start(&state, &user, &new, q.redirect_to.as_deref(), pkce).await?;
    }
    Ok(Json(super::user_shape::auth_user(&state.store, &user)))
}
