//! The embedded auth service, speaking the Supabase Auth (GoTrue) protocol under
//! `/auth/v1`, so `@supabase/auth-js` (and `supabase-js`) works against it unmodified.
//!
//! The subset is what that client calls for e-mail and password: `signup`, `token`
//! (password, refresh and PKCE grants), `logout`, `user` (GET, PUT, with e-mail change),
//! `recover`, `resend`, `verify`, `reauthenticate`, `settings`. Answers and errors have
//! the shapes auth-js parses (its `lib/fetch.ts`); errors take the form the request's
//! `X-Supabase-Api-Version` asks for (see [`error`]). Every route but the e-mailed
//! `GET /verify` link wants the install's anonymous key as `apikey`.
//!
//! ## GoTrue's behaviours: what Radar implements, where it differs, what it leaves out
//!
//! Pinned against GoTrue's source (supabase/auth: `internal/api/token.go`, `signup.go`,
//! `verify.go`, `mail.go`, `user.go`, `resend.go`, `reauthenticate.go`, `errors.go`,
//! `utilities/request.go`, `tokens/service.go`); each tested one is named in
//! `tests/auth.rs` or `tests/auth_gotrue.rs`.
//!
//! | GoTrue behaviour | Radar | Why |
//! |---|---|---|
//! | E-mail + password sign-up; `password` grant; `logout` scopes `global`/`local`/`others`; `GET`/`PUT /user`; `/recover`; `/resend` (`signup`); `GET /verify` link and `POST /verify`; `/settings`; `/health` | implemented, in the shapes auth-js parses | what the client calls for e-mail and password |
//! | PKCE for mailed links: `code_challenge` + `code_challenge_method` (`s256`/`plain`, any case) on `/signup`, `/recover`, `/resend`; `pkce_` link tokens; `/verify` lands with `?code=`; `grant_type=pkce` with `auth_code` + `code_verifier`: 400 `bad_code_verifier` (code stays usable), 404 `flow_state_not_found` (unknown or spent), 422 `flow_state_expired` | implemented; differs in storage: GoTrue keeps a flow-state row from the request on, Radar keeps the challenge with the link's token and stores the code (by its hash, one live per user and kind, `--auth-code-expiry`, 300 s) only once the link is followed. A bad PKCE link lands with the error in the query and the fragment | an unclicked link leaves nothing behind |
//! | Implicit flow: the link lands with the session in the fragment | implemented, unchanged without PKCE fields; the web app uses it | docs/product.md §1 |
//! | Access-token claims `aud`, `exp`, `iat`, `iss`, `sub`, `email`, `phone`, `role`, `aal`, `amr`, `session_id`, `is_anonymous`, `app_metadata`, `user_metadata` | implemented (`phone` always empty) | apps read metadata from the token |
//! | E-mail send frequency (`SMTP_MAX_FREQUENCY`, 60 s): 429 `over_email_send_rate_limit` "For security purposes, you can only request this after N seconds." | implemented per address and kind (`--email-max-frequency`); differs: unknown addresses are timed too, and the clock is in memory (see [`pace`]) | GoTrue's 429 only for registered addresses tells them apart |
//! | Refresh-token reuse (`token_refresh.go`): a spent token that is the parent of the session's active token gets that active token back, at any time; any other spent token gets a new token within the reuse interval; after it, 400 `refresh_token_already_used` and the session ends | implemented (`--refresh-reuse-interval`, 10 s); differs in storage: the store keeps token hashes only, and a spent token's record keeps its child sealed with a key derived from the spent token, so the active token can be sent again to whoever holds its parent | a copy of the database resumes no session |
//! | Refresh grant without a token: 400 `invalid_request` "refresh_token required" (an OAuth-shaped error); a malformed token 400 `validation_failed` "Refresh token is not valid"; an unknown one 400 `refresh_token_not_found` "Invalid Refresh Token: Refresh Token Not Found" | implemented; differs for a missing token: 400 `validation_failed`, in the shape auth-js parses like every other error | one error shape under `/auth/v1` |
//! | Error bodies per `X-Supabase-Api-Version` (`errors.go`): none or before 2024-01-01 `{"code": <status>, "error_code", "msg"}`; 2024-01-01 on `{"code": <error code>, "message"}` and the version echoed; `x-sb-error-code` on both | implemented (see [`error`]) | |
//! | E-mail change (`user.go`, `mail.go`, `verify.go`, `resend.go`): `PUT /user {"email"}` answers the user with `new_email`; secure change mails both addresses, the first link answers "Confirmation link accepted…", the last signs in; `/resend {"type":"email_change"}`; a notice to the old address; an address another account has 422 `email_exists` | implemented (see [`email_change`]; `--single-email-change-confirm` for the new address alone); also refused when the last link is followed if another account took the address since; sessions stay valid | |
//! | Redirect allow-list (`utilities/request.go`, `conf/configuration.go`): globs with `.` and `/` as separators, exact otherwise; the site's host on any port for loopback hosts, any loopback IP | implemented (see [`redirect`]); differs: loopback hosts and the site's host on other ports only with `--redirect-loopback` | with the implicit flow a session would reach whatever listens there |
//! | `/reauthenticate` mails a nonce; with `SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION` a password change in a session older than 24 h needs it: 400 `reauthentication_needed`, 422 `reauthentication_not_valid` | implemented (`--secure-password-change`, `--reauthentication-window`); a code is six digits, so five wrong guesses spend it | a stolen session could otherwise try every code |
//! | `PUT /user` with `app_metadata`: 403 `not_admin`; sign-up or sign-in with both e-mail and phone: 400 `validation_failed`; phone sign-in with phones off: 422 `phone_provider_disabled`; `GET /verify` without type or token: 400 JSON; `POST /verify` with both or neither of `token` and `token_hash`: 400; `type=email` takes a confirmation or recovery link | implemented | |
//! | `/recover` (`recover.go`): 429 for a registered address asked again within the send interval | differs: `{}` for every address, known or not, and every address is paced alike | GoTrue's 429 for known addresses tells an attacker which exist |
//! | New passwords over 72 bytes (`password.go`, bcrypt's limit): 400 `validation_failed` | implemented for new passwords (sign-up, `PUT /user`, the admin commands); differs: sign-in does not check it | accounts made with a longer password before the limit keep signing in |
//! | Request rate limits | Radar's own: a token bucket per e-mail and per client IP for sign-in, sign-up and mailed links (`--sign-in-rate`, see [`limiter`]), 429 `over_request_rate_limit` | limits guessing per account as well as per client |
//! | Signing up again with a registered address while confirmations are on: 200 with an obfuscated user with `identities: []` for a confirmed address; for an unconfirmed one the confirmation again and the real user | implemented (`--confirm-email`): a stand-in user (`identities: []` for a confirmed address), confirmation mailed again while unconfirmed; differs: the unconfirmed case answers a stand-in with an identity, as a fresh sign-up. Without confirmations, 422 `user_already_exists` as GoTrue | the real user's id would tell the address is registered |
//! | Malformed e-mail (`validateEmail`): 400 `validation_failed` | implemented; Radar's rule is stricter (controls, invisible and look-alike characters refused; see `radar_store`'s e-mail rules) and the message names the rule broken | one strict check for every path |
//! | Unknown or missing `grant_type`: 400 `invalid_credentials` | implemented, with a message naming the grants | |
//! | `confirmation_sent_at`, `recovery_sent_at` on the user | implemented: set when a link is issued, absent before | |
//! | `DISABLE_SIGNUP`: `/signup` 422 `signup_disabled` "Signups not allowed for this instance", `/settings` `disable_signup: true` | implemented (`--disable-signup`) | |
//! | `/settings` (`settings.go`): `external` (every provider GoTrue names), `disable_signup`, `mailer_autoconfirm`, `phone_autoconfirm`, `sms_provider`, `saml_enabled` | implemented: e-mail on, every other provider off | docs/product.md §1 |
//! | A token of a deleted account: 403 `user_not_found` | implemented (the user is looked up before the session) | |
//! | "Disabled" answers of switched-off features: anonymous sign-in (`/signup` without e-mail or phone) 422 `anonymous_provider_disabled`; phone sign-up 400 `phone_provider_disabled`; `grant_type=web3` 422 `web3_provider_disabled`; `POST /factors` 401 without a bearer, then 422 `mfa_*_enroll_not_enabled`; `GET /user/identities/authorize` 404 `manual_linking_disabled`; `POST /sso` 404 `saml_provider_disabled` | implemented (see [`disabled`]) | docs/product.md §1: e-mail and password only |
//! | `POST /otp` (`otp.go`): a phone with phones off 400 `phone_provider_disabled`; e-mail and phone both, or neither, 400 `validation_failed`; a password grant with a phone 400 `phone_provider_disabled` "Phone logins are disabled" | implemented; differs for an e-mail: 422 `otp_disabled` (GoTrue sends a magic link whenever e-mail sign-in is on) | docs/product.md §1: e-mail and password only |
//! | The other MFA routes (`/factors/{id}/...`), SSO/SAML metadata routes, invites, the admin API | left out: 404 `not_found`; `GET /authorize` 400 `provider_disabled` | they need an account to act on (factors) or the service role (admin, invites), which Radar never hands out |
//!
//! Other decisions where the protocol or the product (docs/product.md) leave room (tested in `tests/auth.rs`):
//! - `apikey` is required (header or query), as the hosted service's gateway requires
//!   it: missing is 401 `no_api_key`, any other key 401 `invalid_api_key`.
//! - Sign-in, sign-up and recovery each allow `--sign-in-rate` attempts a minute (that many
//!   at once, then one more every minute / rate; see [`limiter`]) per e-mail and per
//!   client IP: the TCP peer's, or behind a reverse proxy (and only with
//!   `--trust-forwarded-for`) the last X-Forwarded-For entry.
//! - A redeemed recovery link also confirms the e-mail (it reached the mailbox). Asking
//!   for a new link invalidates the previous one. `POST /verify` answers a session for
//!   either kind of link's token.
//! - `PUT /user` changes the password and metadata and starts an e-mail change; the
//!   same password again is 422 `same_password`. `subscription` and `has_active_subscription` in `data` are
//!   ignored: the server owns them.

pub(crate) mod account;
pub(crate) mod caller;
pub(crate) mod disabled;
pub(crate) mod email_change;
pub(crate) mod error;
pub(crate) mod limiter;
pub(crate) mod pace;
pub(crate) mod password;
pub(crate) mod reauthenticate;
pub(crate) mod recovery;
pub(crate) mod redirect;
pub(crate) mod session;
pub(crate) mod tokens;
pub(crate) mod user_shape;

use std::net::IpAddr;
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, Method, StatusCode};
use tower_http::cors::{AllowOrigin, CorsLayer};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::extract::AuthJson as Json;
use crate::state::AppState;
use error::{API_VERSION_HEADER, AuthError, AuthResult, ERROR_CODE_HEADER};

/// Authentication settings.
#[derive(Debug, Clone, clap::Args)]
pub struct AuthConfig {
    /// Secret for signing tokens (at least 32 characters). Default: generated once and
    /// kept in DATA/jwt_secret, mode 0600.
    #[arg(long, env = "RADAR_JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<String>,

    /// Lifetime of access tokens, in seconds.
    #[arg(long, env = "RADAR_JWT_EXPIRY", default_value_t = 3600)]
    pub jwt_expiry: i64,

    /// Require new accounts to confirm their e-mail through a mailed link before they
    /// can sign in.
    #[arg(long, env = "RADAR_CONFIRM_EMAIL")]
    pub confirm_email: bool,

    /// Close sign-ups (GoTrue's `DISABLE_SIGNUP`): `POST /auth/v1/signup` answers 422
    /// `signup_disabled`; existing accounts sign in as before, and `radar users create`
    /// still adds accounts.
    #[arg(long, env = "RADAR_DISABLE_SIGNUP")]
    pub disable_signup: bool,

    /// Other URLs that e-mailed links may redirect to, comma-separated, matched as
    /// GoTrue's `URI_ALLOW_LIST`: `*` stands for any run of characters without `.` or
    /// `/`, `**` for any run at all, and an entry without either must match exactly.
    /// The site URL's origin is always allowed.
    #[arg(long, env = "RADAR_REDIRECT_ALLOW", value_delimiter = ',', value_parser = redirect::parse_pattern)]
    pub redirect_allow: Vec<String>,

    /// Also let e-mailed links redirect to loopback addresses (localhost, 127.0.0.1,
    /// ::1) on any port and to the site's host on other ports, as GoTrue does for native
    /// apps. Off by default: with the implicit flow, a session would reach whatever
    /// listens there.
    #[arg(long, env = "RADAR_REDIRECT_LOOPBACK")]
    pub redirect_loopback: bool,

    /// An e-mail change needs only the link mailed to the new address. By default both
    /// the current and the new address must confirm (GoTrue's secure e-mail change).
    #[arg(long, env = "RADAR_SINGLE_EMAIL_CHANGE_CONFIRM")]
    pub single_email_change_confirm: bool,

    /// A new password through `PUT /auth/v1/user` needs the code mailed by
    /// `GET /auth/v1/reauthenticate` (`nonce`) when the session is older than
    /// `--reauthentication-window` (GoTrue's `SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION`).
    #[arg(long, env = "RADAR_SECURE_PASSWORD_CHANGE")]
    pub secure_password_change: bool,

    /// With `--secure-password-change`: sessions younger than this many seconds change
    /// the password without a code (GoTrue: 24 hours).
    #[arg(long, env = "RADAR_REAUTHENTICATION_WINDOW", default_value_t = 86_400)]
    pub reauthentication_window: i64,

    /// Send mail through this SMTP server as well as keeping it in the outbox:
    /// `smtps://user:pass@host:465`, `smtp://user:pass@host:587?tls=required`, or plain
    /// `smtp://127.0.0.1:2525` (unencrypted only to this machine).
    #[arg(long, env = "RADAR_SMTP_URL", hide_env_values = true, value_parser = crate::mail::parse_smtp_url)]
    pub smtp_url: Option<url::Url>,

    /// Sender of e-mails.
    #[arg(long, env = "RADAR_MAIL_FROM", default_value = "Radar <noreply@localhost>", value_parser = crate::mail::parse_mailbox)]
    pub mail_from: String,

    /// Other web origins allowed to call `/api` and `/auth/v1` from a browser,
    /// comma-separated (the site URL's origin always is).
    #[arg(long, env = "RADAR_CORS_ORIGIN", value_delimiter = ',')]
    pub cors_origin: Vec<url::Url>,

    /// Lifetime of e-mailed links (password reset, confirmation), in seconds.
    #[arg(long, env = "RADAR_OTP_EXPIRY", default_value_t = 3600)]
    pub otp_expiry: i64,

    /// Lifetime of the authorization code a PKCE link lands with (`?code=`), in seconds:
    /// the client must exchange it at `POST /token?grant_type=pkce` within it.
    #[arg(long, env = "RADAR_AUTH_CODE_EXPIRY", default_value_t = 300)]
    pub auth_code_expiry: i64,

    /// Seconds an address waits between two mailed links of one kind (confirmation,
    /// password reset); 0 turns the limit off.
    #[arg(long, env = "RADAR_EMAIL_MAX_FREQUENCY", default_value_t = 60)]
    pub email_max_frequency: u64,

    /// Seconds during which a just-spent refresh token still refreshes (two tabs
    /// refreshing at once); after that, presenting it again ends its session.
    #[arg(long, env = "RADAR_REFRESH_REUSE_INTERVAL", default_value_t = 10)]
    pub refresh_reuse_interval: i64,

    /// Sign-in attempts allowed per e-mail and per client IP each minute (sign-ups and
    /// recovery mails have the same allowance, counted apart).
    #[arg(long, env = "RADAR_SIGN_IN_RATE", default_value_t = 10)]
    pub sign_in_rate: u32,

    /// Behind a reverse proxy: take the client IP for rate limits from the last
    /// X-Forwarded-For entry (which the proxy sets) instead of the TCP peer. Leave off
    /// when clients reach the daemon directly, or they could pick their own IP.
    #[arg(long, env = "RADAR_TRUST_FORWARDED_FOR")]
    pub trust_forwarded_for: bool,
}

/// The `/auth/v1` routes (nested there by the application), with the protocol's own
/// answers for unknown paths and methods.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    let (routes, doc) = OpenApiRouter::new()
        .routes(routes!(account::post_signup))
        .routes(routes!(session::post_token))
        .routes(routes!(session::post_logout))
        .routes(routes!(account::get_user, account::put_user))
        .routes(routes!(recovery::post_recover))
        .routes(routes!(reauthenticate::get_reauthenticate))
        .routes(routes!(recovery::post_resend))
        .routes(routes!(recovery::get_verify, recovery::post_verify))
        .routes(routes!(get_settings))
        .routes(routes!(get_health))
        .routes(routes!(get_authorize))
        .routes(routes!(disabled::post_factors))
        .routes(routes!(disabled::get_identities_authorize))
        .routes(routes!(disabled::post_sso))
        .routes(routes!(disabled::post_otp))
        .split_for_parts();
    let routes = routes
        .fallback(|| async {
            AuthError::new(StatusCode::NOT_FOUND, "not_found", "No such auth endpoint.")
        })
        .method_not_allowed_fallback(|| async {
            AuthError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                "This endpoint does not accept that method.",
            )
        })
        .layer(axum::middleware::from_fn(error::versioned_errors));
    let mut router = OpenApiRouter::from(routes);
    *router.get_openapi_mut() = doc;
    router
}

/// The auth service's base URL: `{site_url}/auth/v1`.
pub(crate) fn auth_url(state: &AppState) -> String {
    format!("{}/auth/v1", state.site_url.as_str().trim_end_matches('/'))
}

/// Counts an attempt at `action` (`sign-in`, `sign-up`, `recover`: each has its own
/// allowance) against the per-e-mail and per-IP limits; 429 past them. `email` is the
/// checked, lower-cased address. The IP is the TCP peer's unless `--trust-forwarded-for`
/// says a proxy sets X-Forwarded-For.
pub(crate) async fn limit(
    state: &AppState,
    action: &str,
    email: &str,
    ip: IpAddr,
) -> AuthResult<()> {
    let counted = state
        .limiter
        .hit(&state.store, action, email, ip)
        .await
        .map_err(crate::error::ApiError::from)?;
    counted.map_err(|secs| {
        tracing::warn!(%ip, action, "rate limit reached");
        AuthError {
            inner: crate::error::ApiError::too_many(
                "over_request_rate_limit",
                format!("Too many attempts. Please try again in {secs} seconds."),
                secs,
            ),
            weak_password: None,
        }
    })
}

/// Counts a request for a mailed link of `kind` (`signup`, `recovery`) to `email`
/// against the send frequency limit (see [`pace`]): 429 `over_email_send_rate_limit`
/// with GoTrue's message inside it.
pub(crate) async fn pace_mail(state: &AppState, kind: &str, email: &str) -> AuthResult<()> {
    let counted = state
        .send_pace
        .hit(&state.store, kind, email)
        .await
        .map_err(crate::error::ApiError::from)?;
    counted.map_err(|secs| AuthError {
        inner: crate::error::ApiError::too_many(
            "over_email_send_rate_limit",
            format!("For security purposes, you can only request this after {secs} seconds."),
            secs,
        ),
        weak_password: None,
    })
}

/// Response headers browser clients on other origins may read: the auth protocol's, and
/// the public news API's quota headers.
pub(crate) const CORS_EXPOSED: [HeaderName; 6] = [
    API_VERSION_HEADER,
    ERROR_CODE_HEADER,
    HeaderName::from_static("x-ratelimit-limit"),
    HeaderName::from_static("x-ratelimit-remaining"),
    HeaderName::from_static("x-ratelimit-reset"),
    HeaderName::from_static("retry-after"),
];

/// CORS for browsers on other origins (the site URL's and `--cors-origin`): answers
/// the auth client's preflight and lets it read the API version header. A request
/// without `Origin` skips the layer and gets [`cors_headers_without_origin`] instead
/// (see [`crate::front`]).
pub(crate) fn cors_layer(config: &AuthConfig, site_url: &url::Url) -> CorsLayer {
    let origins: Vec<HeaderValue> = std::iter::once(site_url)
        .chain(config.cors_origin.iter())
        .filter_map(|u| HeaderValue::from_str(&u.origin().ascii_serialization()).ok())
        .collect();
    CorsLayer::new()
        .allow_origin(AllowOrigin::list(origins))
        .allow_methods([
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
            Method::OPTIONS,
        ])
        .allow_headers([
            HeaderName::from_static("apikey"),
            HeaderName::from_static("authorization"),
            HeaderName::from_static("x-client-info"),
            HeaderName::from_static("x-supabase-api-version"),
            HeaderName::from_static("content-type"),
            HeaderName::from_static("x-api-key"),
        ])
        .expose_headers(CORS_EXPOSED)
        .allow_credentials(true)
        .max_age(Duration::from_secs(3600))
}

/// What [`cors_layer`] adds to the answer of a request other than a preflight that
/// names no `Origin`: the same for every such request, so made once.
pub(crate) fn cors_headers_without_origin() -> Vec<(HeaderName, HeaderValue)> {
    let join = |names: &[HeaderName]| {
        let joined = names
            .iter()
            .map(HeaderName::as_str)
            .collect::<Vec<_>>()
            .join(",");
        HeaderValue::from_str(&joined).expect("header names are valid header values")
    };
    vec![
        (
            axum::http::header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
            HeaderValue::from_static("true"),
        ),
        (
            axum::http::header::VARY,
            HeaderValue::from_static(
                "origin, access-control-request-method, access-control-request-headers",
            ),
        ),
        (
            axum::http::header::ACCESS_CONTROL_EXPOSE_HEADERS,
            join(&CORS_EXPOSED),
        ),
    ]
}

/// `GET /settings`: which sign-in methods are on (e-mail on, Google and the rest off).
#[utoipa::path(get, path = "/settings", tag = "auth", responses((status = 200, description = "Which sign-in methods are on")))]
pub(crate) async fn get_settings(State(state): State<AppState>) -> Json<serde_json::Value> {
    // GoTrue's `ProviderSettings` (internal/api/settings.go): every provider it names,
    // all off but e-mail.
    let off = [
        "anonymous_users",
        "apple",
        "azure",
        "bitbucket",
        "discord",
        "facebook",
        "figma",
        "fly",
        "github",
        "gitlab",
        "google",
        "keycloak",
        "kakao",
        "linkedin",
        "linkedin_oidc",
        "notion",
        "spotify",
        "slack",
        "slack_oidc",
        "workos",
        "twitch",
        "twitter",
        "phone",
        "zoom",
    ];
    let mut external: serde_json::Map<String, serde_json::Value> = off
        .iter()
        .map(|p| (p.to_string(), serde_json::Value::Bool(false)))
        .collect();
    external.insert("email".into(), serde_json::Value::Bool(true));
    Json(serde_json::json!({
        "external": external,
        "disable_signup": state.config.auth.disable_signup,
        "mailer_autoconfirm": !state.config.auth.confirm_email,
        "phone_autoconfirm": false,
        "sms_provider": "",
        "saml_enabled": false,
    }))
}

/// `GET /health`.
#[utoipa::path(get, path = "/health", tag = "auth", responses((status = 200, description = "The service is up")))]
pub(crate) async fn get_health() -> Json<serde_json::Value> {
    Json(serde_json::json!({
        "name": "GoTrue",
        "version": concat!("radar-", env!("CARGO_PKG_VERSION")),
        "description": "Radar's embedded auth service, speaking the Supabase Auth protocol",
    }))
}

/// `GET /authorize`: third-party sign-in (Google and others) is off (docs/product.md §1).
#[utoipa::path(get, path = "/authorize", tag = "auth", responses((status = 400, body = radar_api::auth::AuthErrorBody, description = "Third-party sign-in is disabled")))]
pub(crate) async fn get_authorize() -> AuthError {
    AuthError::bad_request(
        "provider_disabled",
        "Google sign in is temporarily disabled",
    )
}
