//! The account's calls: waitlist, profile, API key, subscription state, checkout, and
//! the web app's start-up configuration.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `GET /api/waitlist/status` and `POST /api/waitlist/join`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaitlistStatus {
    /// Whether the user joined the waitlist.
    pub is_on_waitlist: bool,
    /// When they first joined (RFC 3339), null when not on it.
    pub joined_at: Option<DateTime<Utc>>,
}

/// `GET /api/user/profile`, and the answer of `PATCH /api/user/profile`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileBody {
    /// The professional resume, free text (the server answers 413 past its limit).
    pub resume: String,
    /// Whether opening an unmarked item from the feed, Drops, TV or search marks it read
    /// (on until the reader turns it off; web and terminal follow the same setting).
    pub mark_on_open: bool,
    /// Whether each weekly summary is also sent by e-mail (subscribers; off until asked).
    #[serde(default)]
    pub weekly_email: bool,
    /// Whether the feed, Drops, TV and search show one card per story ("N sources"), and
    /// read and hidden apply to the whole story (on until the reader turns it off).
    #[serde(default = "on")]
    pub stories: bool,
}

fn on() -> bool {
    true
}

/// Body of `PATCH /api/user/profile`: the fields to change, at least one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileChange {
    /// A new resume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<String>,
    /// Turns mark-on-open on or off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark_on_open: Option<bool>,
    /// Turns the weekly summary by e-mail on or off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weekly_email: Option<bool>,
    /// Turns reading by story on or off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stories: Option<bool>,
}

/// `GET /api/key` and `POST /api/key/rotate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyBody {
    /// The caller's key for the public news API (`rk_live_...`), sent as `X-API-Key`.
    pub api_key: String,
}

/// The subscription part of `GET /api/user/metadata`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionStatus {
    /// Whether the user is a subscriber now (docs/product.md §4's rule, evaluated by the server).
    pub is_active: bool,
    /// The payment provider's customer id while the subscription is current, else null.
    pub customer_id: Option<String>,
}

/// `GET /api/user/metadata`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct UserMetadata {
    /// Subscription state.
    pub subscription: SubscriptionStatus,
}

/// `POST /api/create-checkout-session`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CheckoutUrl {
    /// Where the browser goes to pay.
    pub url: String,
}

/// Body of `POST /api/verify-subscription`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerifyRequest {
    /// The checkout session id from `/subscribe/success?session_id=...`.
    pub session_id: String,
}

/// `POST /api/verify-subscription`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct VerifyResult {
    /// Whether the subscription is now active.
    pub success: bool,
    /// What happened, for people.
    pub message: String,
}
