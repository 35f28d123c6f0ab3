//! The Stripe provider: Checkout Sessions in subscription mode over Stripe's REST API
//! (form-encoded requests, bearer secret key), and `POST /api/stripe/webhook`.
//!
//! The webhook verifies `Stripe-Signature` as Stripe documents it: `t=<unix time>` and one
//! or more `v1=<hex>` entries, each an HMAC-SHA256 of `"{t}.{raw body}"` under the
//! endpoint secret; a timestamp outside the tolerance window is refused, so a captured
//! request cannot be replayed later. `checkout.session.completed` marks the session paid
//! and activates its owner's subscription, so a user who closes the tab before the
//! success page still gets what they paid for. `customer.subscription.deleted`, and
//! `customer.subscription.updated` to `canceled`, `unpaid` or `incomplete_expired`, end
//! the subscription of that customer's user. Other event types are acknowledged and
//! ignored.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use hmac::{Hmac, Mac};
use radar_store::{CheckoutSession, User};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::{ApiError, Result};
use crate::extract::{Json, RawBody};
use crate::state::AppState;

/// The webhook route.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(post_stripe_webhook))
}

/// The part of a Stripe Checkout Session the daemon reads.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct StripeSession {
    /// `cs_...`
    pub id: String,
    /// Hosted checkout page (present on creation).
    #[serde(default)]
    pub url: Option<String>,
    /// `open`, `complete` or `expired`.
    #[serde(default)]
    pub status: Option<String>,
    /// `paid`, `unpaid` or `no_payment_required`.
    #[serde(default)]
    pub payment_status: Option<String>,
    /// The customer id, once there is one.
    #[serde(default)]
    pub customer: Option<String>,
    /// Our user id, set on creation.
    #[serde(default)]
    pub client_reference_id: Option<String>,
}

impl StripeSession {
    fn is_paid(&self) -> bool {
        self.status.as_deref() == Some("complete")
            && matches!(
                self.payment_status.as_deref(),
                Some("paid" | "no_payment_required")
            )
    }
}

fn upstream(detail: impl std::fmt::Display) -> ApiError {
    tracing::warn!(error = %detail, "stripe request failed");
    ApiError::new(
        StatusCode::BAD_GATEWAY,
        "payment_provider_error",
        "The payment provider could not be reached. Please try again later.",
    )
}

fn client() -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(20))
        .build()
        .map_err(ApiError::internal)
}

fn endpoint(s: &AppState, path: &str) -> Result<url::Url> {
    s.config
        .payments
        .stripe_api_base
        .join(path)
        .map_err(ApiError::internal)
}

async fn read_session(res: reqwest::Response) -> Result<StripeSession> {
    let status = res.status();
    if !status.is_success() {
        let body = res.text().await.unwrap_or_default();
        return Err(upstream(format!("{status}: {body}")));
    }
    res.json::<StripeSession>().await.map_err(upstream)
}

/// Creates a Stripe Checkout Session for a user; answers Stripe's hosted page URL.
pub(crate) async fn create(s: &AppState, user: &User) -> Result<String> {
    let p = &s.config.payments;
    let secret = p
        .stripe_secret_key
        .as_deref()
        .ok_or_else(|| ApiError::internal("stripe secret key missing"))?;
    let price = p
        .stripe_price_id
        .as_deref()
        .ok_or_else(|| ApiError::internal("stripe price id missing"))?;
    // Stripe substitutes {CHECKOUT_SESSION_ID} itself; the braces must reach it unescaped.
    let success = format!(
        "{}subscribe/success?session_id={{CHECKOUT_SESSION_ID}}",
        s.site_url
    );
    let cancel = format!("{}subscribe", s.site_url);
    // A returning customer pays as the same Stripe customer; a new one is created from the e-mail.
    let customer = match user.subscription.customer_id.as_deref() {
        Some(c) if c.starts_with("cus_") && !c.starts_with("cus_test_") => ("customer", c),
        _ => ("customer_email", user.email.as_str()),
    };
    let form = [
        ("mode", "subscription"),
        ("line_items[0][price]", price),
        ("line_items[0][quantity]", "1"),
        ("success_url", &success),
        ("cancel_url", &cancel),
        ("client_reference_id", &user.id),
        customer,
        ("metadata[user_id]", &user.id),
    ];
    let res = client()?
        .post(endpoint(s, "/v1/checkout/sessions")?)
        .bearer_auth(secret)
        .form(&form)
        .send()
        .await
        .map_err(upstream)?;
    let session = read_session(res).await?;
    let url = session
        .url
        .clone()
        .filter(|u| !u.is_empty())
        .ok_or_else(|| upstream("checkout session without a url"))?;
    s.store
        .create_checkout(&session.id, &user.id, "stripe")
        .await?;
    Ok(url)
}

/// Asks Stripe whether a session is paid and records it; answers a failure message
/// when it is not.
pub(crate) async fn settle(s: &AppState, session: &CheckoutSession) -> Result<Option<String>> {
    let secret = s
        .config
        .payments
        .stripe_secret_key
        .as_deref()
        .ok_or_else(|| ApiError::internal("stripe secret key missing"))?;
    let res = client()?
        .get(endpoint(
            s,
            &format!("/v1/checkout/sessions/{}", session.id),
        )?)
        .bearer_auth(secret)
        .send()
        .await
        .map_err(upstream)?;
    let remote = read_session(res).await?;
    if remote
        .client_reference_id
        .as_deref()
        .is_some_and(|r| r != session.user_id)
    {
        return Ok(Some(
            "This checkout session was not found for your account.".into(),
        ));
    }
    if !remote.is_paid() {
        return Ok(Some("This checkout session has not been paid yet.".into()));
    }
    let customer = remote.customer.unwrap_or_default();
    s.store.mark_checkout_paid(&session.id, &customer).await?;
    Ok(None)
}

/// Checks a `Stripe-Signature` header against the raw body: a `v1` HMAC-SHA256 of
/// `"{t}.{body}"` under `secret`, with `t` within `tolerance` seconds of `now`.
pub(crate) fn verify_signature(
    header: &str,
    body: &[u8],
    secret: &str,
    now: i64,
    tolerance: i64,
) -> Result<(), &'static str> {
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", t)) => timestamp = t.parse::<i64>().ok(),
            Some(("v1", sig)) => signatures.extend(hex::decode(sig).ok()),
            _ => {}
        }
    }
    let t = timestamp.ok_or("the signature has no timestamp")?;
    if (now - t).abs() > tolerance {
        return Err("the signature timestamp is outside the tolerance window");
    }
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).map_err(|_| "bad secret")?;
    mac.update(t.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    if signatures
        .iter()
        .any(|sig| mac.clone().verify_slice(sig).is_ok())
    {
        Ok(())
    } else {
        Err("no signature matches")
    }
}

/// The part of a Stripe event the daemon reads.
#[derive(Debug, Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    data: EventData,
}

#[derive(Debug, Deserialize)]
struct EventData {
    object: serde_json::Value,
}

/// Acknowledgement of a webhook delivery.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct WebhookAck {
    /// Always true on a 200 answer.
    pub received: bool,
}

/// Stripe's webhook: verifies the signature, then applies `checkout.session.completed`.
#[utoipa::path(post, path = "/api/stripe/webhook", tag = "payments",
    request_body(content = serde_json::Value, description = "A Stripe event, signed in the Stripe-Signature header"),
    params(("Stripe-Signature" = String, Header, description = "t=...,v1=...")),
    responses(
        (status = 200, body = WebhookAck),
        (status = 400, body = crate::error::ErrorBody, description = "Missing or bad signature, or not an event"),
        (status = 404, body = crate::error::ErrorBody, description = "Webhooks are not configured"),
))]
pub(crate) async fn post_stripe_webhook(
    State(s): State<AppState>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> Result<Json<WebhookAck>> {
    let event = verified_event(&s, &headers, &body)?;
    match event.kind.as_str() {
        "checkout.session.completed" => checkout_completed(&s, event.data.object).await?,
        "customer.subscription.deleted" | "customer.subscription.updated" => {
            subscription_changed(&s, &event).await?;
        }
        _ => {}
    }
    Ok(Json(WebhookAck { received: true }))
}

/// The event in `body`, once its Stripe-Signature header is found valid for this
/// server's webhook secret.
fn verified_event(s: &AppState, headers: &HeaderMap, body: &[u8]) -> Result<Event> {
    // A request without the signature is malformed whatever the configuration.
    let header = headers
        .get("stripe-signature")
        .and_then(|h| h.to_str().ok())
        .ok_or_else(|| {
            ApiError::bad_request(
                "invalid_signature",
                "The Stripe-Signature header is missing.",
            )
        })?;
    let p = &s.config.payments;
    let Some(secret) = p.stripe_webhook_secret.as_deref().filter(|k| !k.is_empty()) else {
        return Err(ApiError::not_found(
            "Stripe webhooks are not configured on this server.",
        ));
    };
    verify_signature(
        header,
        body,
        secret,
        chrono::Utc::now().timestamp(),
        p.stripe_webhook_tolerance,
    )
    .map_err(|why| {
        ApiError::bad_request(
            "invalid_signature",
            format!("The Stripe-Signature header is not valid: {why}."),
        )
    })?;
    serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(
            "invalid_body",
            format!("The body is not a Stripe event: {e}"),
        )
    })
}

/// A paid checkout session this server created makes its reader a subscriber.
async fn checkout_completed(s: &AppState, object: serde_json::Value) -> Result<()> {
    let remote: StripeSession = serde_json::from_value(object).map_err(|e| {
        ApiError::bad_request(
            "invalid_body",
            format!("The event holds no checkout session: {e}"),
        )
    })?;
    match s.store.checkout(&remote.id).await? {
        Some(local) if remote.is_paid() => {
            s.store
                .mark_checkout_paid(&local.id, remote.customer.as_deref().unwrap_or_default())
                .await?;
            s.store.activate_checkout(&local.id, &local.user_id).await?;
            tracing::info!(session = %local.id, "stripe checkout completed");
        }
        Some(_) => {
            tracing::info!(session = %remote.id, "stripe checkout completed without payment yet");
        }
        None => {
            tracing::warn!(session = %remote.id, "webhook for a checkout session this server did not create");
        }
    }
    Ok(())
}

/// A subscription deleted, or updated to a status that ends it, ends the customer's
/// subscription here.
async fn subscription_changed(s: &AppState, event: &Event) -> Result<()> {
    let status = event.data.object["status"].as_str().unwrap_or_default();
    let ended = event.kind == "customer.subscription.deleted"
        || matches!(status, "canceled" | "unpaid" | "incomplete_expired");
    let customer = event.data.object["customer"].as_str().unwrap_or_default();
    if ended && !customer.is_empty() {
        if let Some(user) = s.store.end_customer_subscription(customer).await? {
            tracing::info!(user = %user.id, "stripe subscription ended");
        } else {
            tracing::warn!("stripe subscription ended for a customer this server does not know");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sign(secret: &str, t: i64, body: &[u8]) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(format!("{t}.").as_bytes());
        mac.update(body);
        hex::encode(mac.finalize().into_bytes())
    }

    #[test]
    fn signatures_are_checked_with_a_tolerance() {
        let body = br#"{"type":"x"}"#;
        let good = sign("whsec_1", 1000, body);
        assert!(verify_signature(&format!("t=1000,v1={good}"), body, "whsec_1", 1100, 300).is_ok());
        // Several v1 entries (a secret being rolled): one match is enough.
        assert!(
            verify_signature(
                &format!("t=1000,v1=00ff,v1={good},v0=abc"),
                body,
                "whsec_1",
                1000,
                300
            )
            .is_ok()
        );
        assert!(
            verify_signature(&format!("t=1000,v1={good}"), body, "whsec_2", 1000, 300).is_err()
        );
        assert!(
            verify_signature(&format!("t=1000,v1={good}"), b"{}", "whsec_1", 1000, 300).is_err()
        );
        assert!(
            verify_signature(&format!("t=1000,v1={good}"), body, "whsec_1", 1301, 300).is_err()
        );
        assert!(verify_signature(&format!("v1={good}"), body, "whsec_1", 1000, 300).is_err());
        assert!(verify_signature("garbage", body, "whsec_1", 1000, 300).is_err());
    }
}
