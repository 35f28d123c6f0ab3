//! Sign-in features Radar does not offer (anonymous users, phone, web3, MFA, identity
//! linking, SSO), answered as GoTrue answers them on an install that has them switched
//! off, so a client shows its usual "not available here" instead of a confusing "no such
//! endpoint". docs/product.md §1: e-mail and password only.

use axum::http::StatusCode;
use serde::Deserialize;

use super::caller::{ApiKey, Caller};
use super::error::AuthError;
use crate::extract::AuthJson as Json;

/// `POST /signup` with neither e-mail nor phone: auth-js's `signInAnonymously()`.
pub(crate) fn anonymous_sign_ins() -> AuthError {
    AuthError::unprocessable(
        "anonymous_provider_disabled",
        "Anonymous sign-ins are disabled",
    )
}

/// `POST /signup` with a phone number and no e-mail.
pub(crate) fn phone_signups() -> AuthError {
    AuthError::bad_request("phone_provider_disabled", "Phone signups are disabled")
}

/// `POST /token?grant_type=password` with a phone number: 422, as GoTrue token.go
/// answers it with phones off.
pub(crate) fn phone_logins() -> AuthError {
    AuthError::unprocessable("phone_provider_disabled", "Phone logins are disabled")
}

/// Body of `POST /otp`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub(crate) struct OtpBody {
    /// A magic link or e-mailed code to this address.
    email: Option<String>,
    /// A text-message code to this number.
    phone: Option<String>,
}

/// `POST /otp`: a magic link or one-time code (auth-js `signInWithOtp()`). Checked as
/// GoTrue's otp.go checks it; a phone is GoTrue's answer with phones off. For an e-mail,
/// GoTrue has no switch for magic links alone, so Radar answers with its code for
/// one-time sign-ins being off.
#[utoipa::path(post, path = "/otp", tag = "auth", request_body = OtpBody, responses(
    (status = 400, body = radar_api::auth::AuthErrorBody), (status = 401, body = radar_api::auth::AuthErrorBody),
    (status = 422, body = radar_api::auth::AuthErrorBody, description = "Magic links and one-time codes are off")))]
pub(crate) async fn post_otp(_key: ApiKey, Json(body): Json<OtpBody>) -> AuthError {
    match (body.email, body.phone) {
        (Some(_), Some(_)) => AuthError::bad_request(
            "validation_failed",
            "Only an email address or phone number should be provided",
        ),
        (None, Some(_)) => {
            AuthError::bad_request("phone_provider_disabled", "Unsupported phone provider")
        }
        (Some(_), None) => AuthError::unprocessable(
            "otp_disabled",
            "Magic links and one-time codes are not enabled on this server: sign in with your email and password",
        ),
        (None, None) => {
            AuthError::bad_request("validation_failed", "One of email or phone must be set")
        }
    }
}

/// `POST /token?grant_type=web3`: auth-js's `signInWithWeb3()`.
pub(crate) fn web3() -> AuthError {
    AuthError::unprocessable("web3_provider_disabled", "Web3 provider is disabled")
}

/// Body of `POST /factors`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub(crate) struct EnrollBody {
    /// `totp`, `phone` or `webauthn`.
    factor_type: Option<String>,
}

/// `POST /factors`: enrolling a second factor (auth-js `mfa.enroll()`). The caller is
/// checked first, as GoTrue does: 401 without a bearer token.
#[utoipa::path(post, path = "/factors", tag = "auth", request_body = EnrollBody, responses(
    (status = 400, body = radar_api::auth::AuthErrorBody), (status = 401, body = radar_api::auth::AuthErrorBody),
    (status = 403, body = radar_api::auth::AuthErrorBody), (status = 422, body = radar_api::auth::AuthErrorBody, description = "MFA is disabled")))]
pub(crate) async fn post_factors(
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

/// `GET /user/identities/authorize`: linking another sign-in identity to the signed-in
/// account (auth-js `linkIdentity()`).
#[utoipa::path(get, path = "/user/identities/authorize", tag = "auth", responses(
    (status = 401, body = radar_api::auth::AuthErrorBody), (status = 403, body = radar_api::auth::AuthErrorBody),
    (status = 404, body = radar_api::auth::AuthErrorBody, description = "Manual linking is disabled")))]
pub(crate) async fn get_identities_authorize(_key: ApiKey, _caller: Caller) -> AuthError {
    AuthError::new(
        StatusCode::NOT_FOUND,
        "manual_linking_disabled",
        "Manual linking is disabled",
    )
}

/// `POST /sso`: single sign-on through a SAML identity provider (auth-js
/// `signInWithSSO()`).
#[utoipa::path(post, path = "/sso", tag = "auth", responses(
    (status = 401, body = radar_api::auth::AuthErrorBody),
    (status = 404, body = radar_api::auth::AuthErrorBody, description = "SAML 2.0 is disabled")))]
pub(crate) async fn post_sso(_key: ApiKey) -> AuthError {
    AuthError::new(
        StatusCode::NOT_FOUND,
        "saml_provider_disabled",
        "SAML 2.0 is disabled",
    )
}
