//! The auth service's shapes (`/auth/v1`, the Supabase Auth protocol).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `app_metadata` of an auth user: how the account signs in.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AuthAppMetadata {
    /// `email`.
    pub provider: String,
    /// `["email"]`.
    pub providers: Vec<String>,
}

/// One sign-in identity of an auth user (Radar has only the e-mail one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AuthIdentity {
    /// The identity's id (the user id, for e-mail).
    pub identity_id: String,
    /// The provider's id of the user (the user id, for e-mail).
    pub id: String,
    /// Whose identity.
    pub user_id: String,
    /// `{email, email_verified, sub}`.
    #[schema(value_type = Object)]
    pub identity_data: serde_json::Value,
    /// `email`.
    pub provider: String,
    /// The e-mail.
    #[serde(default)]
    pub email: Option<String>,
    /// Last sign-in with it.
    #[serde(default)]
    pub last_sign_in_at: Option<DateTime<Utc>>,
    /// When it was added.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
}

/// The user object of the auth protocol: `GET /auth/v1/user`, and `user` in a session.
/// Radar adds `has_active_subscription` and, in `user_metadata`, `subscription
/// {isActive, customerId}` and `avatar_url` (docs/product.md §3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AuthUser {
    /// UUID.
    pub id: String,
    /// `authenticated`.
    pub aud: String,
    /// `authenticated`.
    pub role: String,
    /// The normalised e-mail.
    pub email: String,
    /// Always empty: no phone sign-in.
    #[serde(default)]
    pub phone: String,
    /// When the e-mail was confirmed; null until then.
    #[serde(default)]
    pub email_confirmed_at: Option<DateTime<Utc>>,
    /// As `email_confirmed_at`.
    #[serde(default)]
    pub confirmed_at: Option<DateTime<Utc>>,
    /// Last successful sign-in.
    #[serde(default)]
    pub last_sign_in_at: Option<DateTime<Utc>>,
    /// When the last confirmation link was mailed (GoTrue's field; absent before one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation_sent_at: Option<DateTime<Utc>>,
    /// When the last password-reset link was mailed (absent before one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_sent_at: Option<DateTime<Utc>>,
    /// The address a pending e-mail change moves to once its links are followed
    /// (absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_email: Option<String>,
    /// When the pending e-mail change's links were mailed (absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email_change_sent_at: Option<DateTime<Utc>>,
    /// When the last reauthentication code was mailed (absent before one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reauthentication_sent_at: Option<DateTime<Utc>>,
    /// `{provider: "email", providers: ["email"]}`.
    pub app_metadata: AuthAppMetadata,
    /// What the client stored (`data` of sign-up and `PUT /user`), plus `subscription`
    /// and `avatar_url`, which the server sets.
    #[schema(value_type = Object)]
    pub user_metadata: serde_json::Map<String, serde_json::Value>,
    /// The sign-in identities.
    #[serde(default)]
    pub identities: Vec<AuthIdentity>,
    /// Sign-up time.
    pub created_at: DateTime<Utc>,
    /// Last change of the account.
    pub updated_at: DateTime<Utc>,
    /// Always false.
    #[serde(default)]
    pub is_anonymous: bool,
    /// Whether the user is a subscriber now (docs/product.md §4's rule, evaluated by the server).
    #[serde(default)]
    pub has_active_subscription: bool,
}

/// A session answer of the auth protocol (`POST /auth/v1/token`, `/signup`), and what
/// the implicit flow puts in the redirect's fragment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AuthSession {
    /// HS256 JWT for `Authorization: Bearer` on `/api` and `/auth/v1/user`.
    pub access_token: String,
    /// `bearer`.
    pub token_type: String,
    /// Seconds the access token lives.
    pub expires_in: i64,
    /// When the access token expires, seconds since the epoch.
    pub expires_at: i64,
    /// Single-use token for `POST /auth/v1/token?grant_type=refresh_token`.
    pub refresh_token: String,
    /// The signed-in user.
    pub user: AuthUser,
}

/// Body of `POST /auth/v1/token?grant_type=password` (and of `/signup`, with `data`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AuthPasswordGrant {
    /// The account's e-mail.
    pub email: String,
    /// Its password.
    pub password: String,
}

/// The PKCE fields a client adds to a request for a mailed link (`/signup`, `/recover`,
/// `/resend`; auth-js sends them with `flowType: 'pkce'`). With them, the mailed link's
/// token starts with `pkce_` and following it lands with `?code=` for
/// `POST /auth/v1/token?grant_type=pkce`; without them, the implicit flow.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AuthCodeChallenge {
    /// `base64url(SHA-256(verifier))` for `s256`, the verifier itself for `plain`
    /// (43 to 128 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge: Option<String>,
    /// `s256` or `plain` (any case).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge_method: Option<String>,
}

/// Body of `POST /auth/v1/token?grant_type=refresh_token`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AuthRefreshGrant {
    /// The refresh token of the current session; spent by this call.
    pub refresh_token: String,
}

/// Why a password was refused (`weak_password` errors).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AuthWeakPassword {
    /// `length`, ...
    pub reasons: Vec<String>,
}

/// The `code` of an auth error: the HTTP status in the initial API version, the error
/// code from `2024-01-01` on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum AuthErrorCode {
    /// The HTTP status (initial version).
    Status(u16),
    /// The error code (`2024-01-01`).
    Code(String),
}

/// An error answer of `/auth/v1`, in the form the request's `X-Supabase-Api-Version`
/// header asks for, as GoTrue's: without it (the initial version)
/// `{"code": <HTTP status>, "error_code", "msg"}`; with `2024-01-01` or later
/// `{"code": <error code>, "message"}`, and that version echoed in the response header.
/// Either way the `x-sb-error-code` response header carries the error code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AuthErrorBody {
    /// The HTTP status (initial version) or the error code (`2024-01-01`).
    pub code: AuthErrorCode,
    /// The error code (`invalid_credentials`, `refresh_token_already_used`...); initial
    /// version only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    /// A sentence for people; initial version only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg: Option<String>,
    /// A sentence for people; `2024-01-01` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Present on `weak_password` errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weak_password: Option<AuthWeakPassword>,
}
