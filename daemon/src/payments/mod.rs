//! Payments (docs/product.md §2 and §7): checkout sessions and subscription verification
//! behind one provider interface, chosen by `--payments-provider`.
//!
//! - `test` (the default) needs nothing outside: the daemon serves its own checkout page
//!   (see [`checkout`]) where a Pay button marks the session paid.
//! - `stripe` talks to Stripe's REST API (Checkout Sessions in subscription mode, see
//!   [`stripe`]) at a configurable base URL, and accepts Stripe's signed webhooks.
//!
//! Either way the store records each session with its owner, so verifying someone else's
//! session fails as if it did not exist, and activation is one store transaction.
//!
//! Verification answers 200 with `success: false` and a message for a session that is
//! unknown, another user's or unpaid: these are outcomes the /subscribe/success page
//! shows, not malformed requests (a missing or empty `sessionId` is a 400).
//!
//! Subscriptions closed (docs/product.md §1, `--subscriptions-open` off, the default): the
//! waitlist is the offered path and the Stripe checkout refuses with 403
//! `subscriptions_closed`; the test checkout stays available.

pub(crate) mod checkout;
pub(crate) mod stripe;

use axum::extract::State;
use axum::http::StatusCode;
use radar_api::account::{CheckoutUrl, VerifyRequest, VerifyResult};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::{ApiError, Result};
use crate::extract::{AuthUser, Json};
use crate::state::AppState;

/// Checkouts one account may start in 24 hours; each is a stored record (and, with
/// Stripe, a call to Stripe), so an account cannot grow the store or spend the
/// provider's rate limit without bound.
pub(crate) const MAX_CHECKOUTS_PER_DAY: usize = 20;

/// Which payment provider serves checkouts.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// The daemon's own checkout page; no money moves.
    Test,
    /// Stripe Checkout in subscription mode.
    Stripe,
}

impl ProviderKind {
    /// The name used in configuration and in `GET /api/config`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Test => "test",
            Self::Stripe => "stripe",
        }
    }
}

/// Payment and subscription settings.
#[derive(Debug, Clone, clap::Args)]
pub struct PaymentsConfig {
    /// Payment provider: `test` (built-in checkout page) or `stripe`.
    #[arg(
        long,
        env = "RADAR_PAYMENTS_PROVIDER",
        value_enum,
        default_value = "test"
    )]
    pub payments_provider: ProviderKind,

    /// Open subscriptions (docs/product.md §1: closed by default, the waitlist is offered).
    #[arg(long, env = "RADAR_SUBSCRIPTIONS_OPEN")]
    pub subscriptions_open: bool,

    /// Stripe secret API key (`sk_...`), required with `--payments-provider stripe`.
    #[arg(long, env = "RADAR_STRIPE_SECRET_KEY", hide_env_values = true)]
    pub stripe_secret_key: Option<String>,

    /// Stripe price id of the premium subscription (`price_...`).
    #[arg(long, env = "RADAR_STRIPE_PRICE_ID")]
    pub stripe_price_id: Option<String>,

    /// Secret of the Stripe webhook endpoint (`whsec_...`); without it webhooks are refused.
    #[arg(long, env = "RADAR_STRIPE_WEBHOOK_SECRET", hide_env_values = true)]
    pub stripe_webhook_secret: Option<String>,

    /// Base URL of Stripe's API (tests point it at a local stub).
    #[arg(
        long,
        env = "RADAR_STRIPE_API_BASE",
        default_value = "https://api.stripe.com"
    )]
    pub stripe_api_base: url::Url,

    /// How old a webhook's signature timestamp may be, in seconds.
    #[arg(long, env = "RADAR_STRIPE_WEBHOOK_TOLERANCE", default_value_t = 300)]
    pub stripe_webhook_tolerance: i64,
}

impl PaymentsConfig {
    /// Checks that the chosen provider has what it needs; called before serving.
    pub fn validate(&self) -> anyhow::Result<()> {
        if self.payments_provider == ProviderKind::Stripe {
            anyhow::ensure!(
                self.stripe_secret_key
                    .as_deref()
                    .is_some_and(|k| !k.is_empty()),
                "--payments-provider stripe needs --stripe-secret-key (or RADAR_STRIPE_SECRET_KEY)"
            );
            anyhow::ensure!(
                self.stripe_price_id
                    .as_deref()
                    .is_some_and(|k| !k.is_empty()),
                "--payments-provider stripe needs --stripe-price-id (or RADAR_STRIPE_PRICE_ID)"
            );
        }
        Ok(())
    }
}

/// The payment routes.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_checkout_session))
        .routes(routes!(verify_subscription))
        .merge(checkout::router())
        .merge(stripe::router())
}

/// Starts a checkout for the caller and answers where to pay.
#[utoipa::path(post, path = "/api/create-checkout-session", tag = "payments", responses(
    (status = 200, body = CheckoutUrl),
    (status = 401, body = crate::error::ErrorBody),
    (status = 403, body = crate::error::ErrorBody, description = "Subscriptions are closed (Stripe provider)"),
    (status = 409, body = crate::error::ErrorBody, description = "Already a subscriber"),
    (status = 429, body = crate::error::ErrorBody, description = "20 checkouts started in the last 24 hours"),
    (status = 502, body = crate::error::ErrorBody, description = "The payment provider failed"),
))]
pub(crate) async fn create_checkout_session(
    State(s): State<AppState>,
    caller: AuthUser,
) -> Result<Json<CheckoutUrl>> {
    if s.store.is_subscriber(&caller.user) {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "already_subscribed",
            "You already have an active subscription.",
        ));
    }
    let day_ago = chrono::Utc::now() - chrono::Duration::days(1);
    if s.store
        .count_checkouts_since(&caller.user.id, day_ago)
        .await?
        >= MAX_CHECKOUTS_PER_DAY
    {
        return Err(ApiError::too_many(
            "too_many_checkouts",
            format!(
                "You started {MAX_CHECKOUTS_PER_DAY} checkouts in the last day. Please finish one or try again later."
            ),
            3600,
        ));
    }
    let p = &s.config.payments;
    let url = match p.payments_provider {
        ProviderKind::Test => checkout::create(&s, &caller.user).await?,
        ProviderKind::Stripe => {
            if !p.subscriptions_open {
                return Err(ApiError::new(
                    StatusCode::FORBIDDEN,
                    "subscriptions_closed",
                    "Subscriptions are closed for now. Join the waitlist on /subscribe to be told when they open.",
                ));
            }
            stripe::create(&s, &caller.user).await?
        }
    };
    Ok(Json(CheckoutUrl { url }))
}

/// Verifies a checkout session of the caller and, when it is paid, activates the
/// subscription.
#[utoipa::path(post, path = "/api/verify-subscription", tag = "payments", request_body = VerifyRequest, responses(
    (status = 200, body = VerifyResult, description = "success false with a message for an unknown, foreign or unpaid session"),
    (status = 400, body = crate::error::ErrorBody),
    (status = 401, body = crate::error::ErrorBody),
    (status = 502, body = crate::error::ErrorBody, description = "The payment provider failed"),
))]
pub(crate) async fn verify_subscription(
    State(s): State<AppState>,
    caller: AuthUser,
    Json(body): Json<serde_json::Value>,
) -> Result<Json<VerifyResult>> {
    // Read as any JSON so every wrong shape is a 400 (see `VerifyRequest` for the schema).
    let id = body
        .get("sessionId")
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .trim();
    if id.is_empty() || id.len() > 256 {
        return Err(ApiError::bad_request(
            "invalid_body",
            "sessionId must be a checkout session id.",
        ));
    }
    let fail = |message: &str| {
        Ok(Json(VerifyResult {
            success: false,
            message: message.to_string(),
        }))
    };
    // A session of another user is reported exactly as an unknown one.
    let Some(session) = s
        .store
        .checkout(id)
        .await?
        .filter(|c| c.user_id == caller.user.id)
    else {
        return fail("This checkout session was not found for your account.");
    };
    if session.provider == "stripe"
        && let Some(failure) = stripe::settle(&s, &session).await?
    {
        return fail(&failure);
    }
    match s.store.activate_checkout(id, &caller.user.id).await {
        Ok(_) => Ok(Json(VerifyResult {
            success: true,
            message: "Your premium subscription is active.".into(),
        })),
        Err(radar_store::Error::Invalid(_)) => fail("This checkout session has not been paid yet."),
        Err(radar_store::Error::NotFound(_)) => {
            fail("This checkout session was not found for your account.")
        }
        Err(e) => Err(e.into()),
    }
}
