//! Wire types: the JSON shapes of the API that are not domain records themselves, kept
//! here so the daemon and every Rust client (terminal reader, admin commands) share one
//! definition. Field names follow spec section 3 exactly. Append only.

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

/// `GET /api/user/profile`, and the body and answer of `PATCH /api/user/profile`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ProfileBody {
    /// The professional resume, free text (at most [`crate::MAX_RESUME_CHARS`] characters).
    pub resume: String,
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
    /// Whether the user is a subscriber now (spec section 4's rule, evaluated by the server).
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

/// One item of the public news API: spec section 3's public fields only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PublicItem {
    /// Stable identifier.
    pub id: String,
    /// Headline.
    pub title: String,
    /// A paragraph or two.
    pub summary: String,
    /// Full text.
    pub content: String,
    /// When the source published it (RFC 3339).
    pub published_date: DateTime<Utc>,
    /// Link to the original, when there is one.
    pub url: Option<String>,
}

impl From<crate::NewsItem> for PublicItem {
    fn from(i: crate::NewsItem) -> Self {
        Self {
            id: i.id,
            title: i.title,
            summary: i.summary,
            content: i.content,
            published_date: i.published_date,
            url: i.url,
        }
    }
}

/// Position of a public API page in the whole listing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Pagination {
    /// How many items there are in all.
    pub total: u64,
    /// This page's number, from 1.
    pub page: u64,
    /// Items per page.
    pub limit: u64,
    /// How many pages there are (0 when there are no items).
    pub total_pages: u64,
    /// Whether a later page has items.
    pub has_next: bool,
    /// Whether this is not the first page.
    pub has_prev: bool,
}

/// `GET /api/v1/news`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PublicPage {
    /// Where this page sits.
    pub pagination: Pagination,
    /// The items of this page.
    pub items: Vec<PublicItem>,
}

// ---- The auth service (`/auth/v1`, the Supabase Auth protocol; issue #3) ----

/// `app_metadata` of an auth user: how the account signs in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
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
/// {isActive, customerId}` and `avatar_url` (spec section 3).
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
    /// Whether the user is a subscriber now (spec section 4's rule, evaluated by the server).
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

/// An error answer of `/auth/v1`, in the protocol's form (API version 2024-01-01).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AuthErrorBody {
    /// The error code (`invalid_credentials`, `refresh_token_already_used`...).
    pub code: String,
    /// The same code, for clients of older API versions.
    pub error_code: String,
    /// A sentence for people.
    pub msg: String,
    /// Present on `weak_password` errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weak_password: Option<AuthWeakPassword>,
}

// ---- Search (`GET /api/search`; issue #16) ----

/// A text with the words a search matched. `ranges` are `[start, end)` pairs counted in
/// Unicode code points of `text` (in JavaScript, index `Array.from(text)`), sorted and never
/// overlapping; no markup is ever inside `text`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Highlighted {
    /// The text as cards show it (citation markers such as `[1]` removed).
    pub text: String,
    /// The matched words.
    #[schema(value_type = Vec<Vec<u32>>)]
    pub ranges: Vec<[usize; 2]>,
}

/// A passage of an item's content (or short text) around the words a search matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Snippet {
    /// Which field it is cut from: `content` or `short`.
    pub field: String,
    /// The passage, about 200 characters, cut at word boundaries (no ellipsis added).
    pub text: String,
    /// The matched words, as in [`Highlighted`].
    #[schema(value_type = Vec<Vec<u32>>)]
    pub ranges: Vec<[usize; 2]>,
}

/// Where a result matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Highlights {
    /// The whole title, marked.
    pub title: Highlighted,
    /// The whole summary, marked.
    pub summary: Highlighted,
    /// A marked passage of the content or short text, when either matched; else null.
    pub snippet: Option<Snippet>,
}

/// One search result: the item, as in the feed, and its highlights.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SearchHit {
    /// The item.
    #[serde(flatten)]
    pub item: crate::NewsItem,
    /// Where it matched.
    pub highlights: Highlights,
}

/// `GET /api/search`: one page of results, best first. `hasMore` and `nextCursor` work as
/// in the feed: free readers get the best 5 and no cursor, subscribers pages of 20.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchPage {
    /// The results, best first (newer first among equally good ones).
    pub items: Vec<SearchHit>,
    /// Opaque position after the last result, for `?cursor=` with the same `q`; null when
    /// there is nothing more or the reader is not a subscriber.
    pub next_cursor: Option<String>,
    /// Whether more results remain after these.
    pub has_more: bool,
    /// The most results a page holds for this reader (5 or 20).
    pub limit: usize,
}
