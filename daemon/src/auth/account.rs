//! Accounts: sign-up, and reading and changing the signed-in user.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use radar_store::wire::AuthUser;
use radar_store::{OneTimeKind, User, client_metadata, normalize_email};
use serde::Deserialize;

use super::caller::{ApiKey, Caller, ClientIp};
use super::disabled;
use super::error::{AuthError, AuthResult};
use super::password;
use super::recovery::{PkceParams, RedirectQuery, pace_unsent, send_link};
use super::session::session_answer;
use crate::extract::{Json, Query};
use crate::state::AppState;

/// Body of `POST /signup`.
#[derive(Debug, Deserialize)]
pub struct SignupBody {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
    /// Initial user metadata.
    #[serde(default)]
    data: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(flatten)]
    pkce: PkceParams,
}

fn email_of(raw: Option<&str>) -> AuthResult<String> {
    let raw = raw.map(str::trim).unwrap_or_default();
    if raw.is_empty() {
        return Err(AuthError::bad_request(
            "validation_failed",
            "An email address is required",
        ));
    }
    normalize_email(raw).map_err(|_| {
        AuthError::bad_request(
            "validation_failed",
            "Unable to validate email address: invalid format",
        )
    })
}

fn already_registered() -> AuthError {
    AuthError::unprocessable("user_already_exists", "User already registered")
}

/// What `/signup` answers for an address whose account is confirmed, while sign-ups
/// need a confirmed e-mail: a made-up user, as GoTrue answers, so the answer does not
/// say the address is registered (its `identities` are empty, as GoTrue's are).
fn stand_in_user(
    state: &AppState,
    email: &str,
    data: serde_json::Map<String, serde_json::Value>,
) -> AuthUser {
    let now = chrono::Utc::now();
    let stand_in = User {
        id: uuid::Uuid::new_v4().to_string(),
        email: email.to_string(),
        password_hash: String::new(),
        created_at: now,
        updated_at: now,
        email_confirmed_at: None,
        last_sign_in_at: None,
        user_metadata: data,
        subscription: Default::default(),
        confirmation_sent_at: Some(now),
        recovery_sent_at: None,
    };
    let mut user = state.store.auth_user(&stand_in);
    user.role = String::new();
    user.identities.clear();
    user
}

/// `POST /signup`: a session when e-mail confirmation is off; otherwise the new user,
/// and a confirmation mail. With confirmation on, a registered address is not revealed:
/// a confirmed one gets a stand-in user and no mail, an unconfirmed one a new link (at
/// most one per `--email-frequency`).
pub async fn post_signup(
    State(state): State<AppState>,
    ClientIp(peer): ClientIp,
    _key: ApiKey,
    Query(q): Query<RedirectQuery>,
    Json(body): Json<SignupBody>,
) -> AuthResult<Response> {
    let has = |v: &Option<String>| v.as_deref().is_some_and(|v| !v.trim().is_empty());
    if !has(&body.email) && !has(&body.phone) {
        return Err(disabled::anonymous_sign_ins());
    }
    if state.config.auth.disable_signup {
        return Err(AuthError::unprocessable(
            "signup_disabled",
            "Signups not allowed for this instance",
        ));
    }
    let password = body.password.unwrap_or_default();
    if password.is_empty() {
        return Err(AuthError::bad_request(
            "validation_failed",
            "Signup requires a valid password",
        ));
    }
    password::check_strength(&password)?;
    if has(&body.email) && has(&body.phone) {
        return Err(AuthError::bad_request(
            "validation_failed",
            "Only an email address or phone number should be provided on signup.",
        ));
    }
    let pkce = body.pkce.challenge()?;
    if has(&body.phone) {
        return Err(disabled::phone_signups());
    }
    let email = email_of(body.email.as_deref())?;
    super::limit(&state, "sign-up", &email, peer)?;
    let confirm = state.config.auth.confirm_email;
    let metadata = client_metadata(body.data.unwrap_or_default());
    let existing = state.store.user_by_email(&email)?;
    let user = match existing {
        Some(_) if !confirm => return Err(already_registered()),
        Some(user) if user.email_confirmed_at.is_some() => {
            pace_unsent(&state, OneTimeKind::Confirmation, &email)?;
            return Ok(Json(stand_in_user(&state, &email, metadata)).into_response());
        }
        Some(user) => user,
        None => {
            let hash = password::hash(password).await?;
            match state.store.create_user(&email, hash, metadata.clone(), !confirm) {
                Ok(user) => user,
                Err(radar_store::Error::Conflict(_)) if confirm => {
                    return Ok(Json(stand_in_user(&state, &email, metadata)).into_response());
                }
                Err(radar_store::Error::Conflict(_)) => return Err(already_registered()),
                Err(e) => return Err(e.into()),
            }
        }
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
        let user = state.store.user(&user.id)?.unwrap_or(user);
        return Ok(Json(state.store.auth_user(&user)).into_response());
    }
    let grant = state.store.sign_in(&user.id, "password")?;
    Ok(Json(session_answer(&state, &grant)).into_response())
}

/// `GET /user`: the signed-in user.
pub async fn get_user(
    State(state): State<AppState>,
    _key: ApiKey,
    caller: Caller,
) -> Json<AuthUser> {
    Json(state.store.auth_user(&caller.user))
}

/// Body of `PUT /user`.
#[derive(Debug, Deserialize)]
pub struct UpdateUserBody {
    email: Option<String>,
    password: Option<String>,
    /// Metadata to merge (a null value removes a key).
    data: Option<serde_json::Map<String, serde_json::Value>>,
}

/// `PUT /user`: changes the password (ending the user's other sessions) and merges
/// metadata.
pub async fn put_user(
    State(state): State<AppState>,
    _key: ApiKey,
    caller: Caller,
    Json(body): Json<UpdateUserBody>,
) -> AuthResult<Json<AuthUser>> {
    let mut user = caller.user;
    if let Some(email) = body.email.as_deref().filter(|e| !e.trim().is_empty())
        && email_of(Some(email))? != user.email
    {
        return Err(AuthError::unprocessable(
            "email_change_not_supported",
            "Changing the e-mail address is not supported.",
        ));
    }
    if let Some(new) = body.password {
        password::check_strength(&new)?;
        if password::verify(new.clone(), Some(user.password_hash.clone())).await? {
            return Err(AuthError::unprocessable(
                "same_password",
                "New password should be different from the old password.",
            ));
        }
        let hash = password::hash(new).await?;
        user = state
            .store
            .change_password(&user.id, hash, Some(&caller.claims.session_id))?;
    }
    if let Some(data) = body.data {
        user = state.store.merge_user_metadata(&user.id, data)?;
    }
    Ok(Json(state.store.auth_user(&user)))
}
