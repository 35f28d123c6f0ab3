//! Sign-in features Radar does not offer (phone, anonymous users, MFA, identity
//! linking, SSO, e-mailed one-time codes, the admin API), answered as GoTrue answers them
//! when an install switches them off, so every client shows its usual message for "not
//! available here" instead of a confusing "no such endpoint".

use axum::http::StatusCode;
use serde::Deserialize;

use super::caller::{ApiKey, Caller};
use super::error::AuthError;
use crate::extract::Json;

/// `POST /token?grant_type=password` with a phone number.
pub fn phone_logins() -> AuthError {
    AuthError::unprocessable("phone_provider_disabled", "Phone logins are disabled")
}

/// `POST /signup` with a phone number.
pub fn phone_signups() -> AuthError {
    AuthError::bad_request("phone_provider_disabled", "Phone signups are disabled")
}

/// `POST /signup` with neither e-mail nor phone: an anonymous sign-in.
pub fn anonymous_sign_ins() -> AuthError {
    AuthError::unprocessable(
        "anonymous_provider_disabled",
        "Anonymous sign-ins are disabled",
    )
}

/// Body of `POST /factors`.
#[derive(Debug, Deserialize)]
pub struct EnrollBody {
    factor_type: Option<String>,
}

/// `POST /factors`: enrolling a second factor, for a signed-in user (401 without a
/// bearer token, as GoTrue checks that first).
pub async fn post_factors(
    _key: ApiKey,
    _caller: Caller,
    Json(body): Json<EnrollBody>,
) -> AuthError {
    let (code, kind) = match body.factor_type.as_deref() {
        Some("totp") => ("mfa_totp_enroll_not_enabled", "TOTP"),
        Some("phone") => ("mfa_phone_enroll_not_enabled", "Phone"),
        Some("webauthn") => ("mfa_webauthn_enroll_not_enabled", "WebAuthn"),
        _ => {
            return AuthError::bad_request(
                "validation_failed",
                "factor_type needs to be totp, phone, or webauthn",
            );
        }
    };
    AuthError::unprocessable(code, format!("MFA enroll is disabled for {kind}"))
}

/// `POST /factors/{id}/challenge`, `POST /factors/{id}/verify`, `DELETE /factors/{id}`:
/// nobody has a factor, so none is found.
pub async fn factor_not_found(_key: ApiKey, _caller: Caller) -> AuthError {
    AuthError::new(
        StatusCode::NOT_FOUND,
        "mfa_factor_not_found",
        "Factor not found",
    )
}

/// `GET /user/identities/authorize`, `DELETE /user/identities/{id}`: linking another
/// sign-in identity to the signed-in account.
pub async fn manual_linking(_key: ApiKey, _caller: Caller) -> AuthError {
    AuthError::new(
        StatusCode::NOT_FOUND,
        "manual_linking_disabled",
        "Manual linking is disabled",
    )
}

/// `POST /sso` and the SAML endpoints.
pub async fn saml() -> AuthError {
    AuthError::new(
        StatusCode::NOT_FOUND,
        "saml_provider_disabled",
        "SAML 2.0 is disabled",
    )
}

/// `POST /otp`: sign-in by an e-mailed one-time code or magic link.
pub async fn otp(_key: ApiKey) -> AuthError {
    AuthError::unprocessable(
        "otp_disabled",
        "Sign-in with a one-time code or magic link is disabled: sign in with your password.",
    )
}

/// `/admin/...`: the admin API wants a service-role token, which Radar never issues
/// (operators use the `radar users` commands instead).
pub async fn admin(_key: ApiKey) -> AuthError {
    AuthError::forbidden("not_admin", "User not allowed")
}
