//! Custom news alerts: a reader's saved searches, announced in the app and by e-mail
//! when new items match (docs/product.md §15).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// At most how often an alert's mail is sent: the items that match meanwhile wait for
/// the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum AlertInterval {
    /// At most one mail an hour.
    Hourly,
    /// At most one mail a day.
    Daily,
    /// At most one mail a week.
    Weekly,
}

impl AlertInterval {
    /// The interval's length.
    pub fn duration(self) -> chrono::Duration {
        match self {
            Self::Hourly => chrono::Duration::hours(1),
            Self::Daily => chrono::Duration::days(1),
            Self::Weekly => chrono::Duration::weeks(1),
        }
    }
}

/// One alert as its reader sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Alert {
    /// UUID.
    pub id: String,
    /// The saved search, in the search box's syntax.
    pub query: String,
    /// At most how often it mails.
    pub interval: AlertInterval,
    /// Whether matches are also sent by e-mail.
    pub email: bool,
    /// When it was saved: items published before never trigger it.
    pub created_at: DateTime<Utc>,
    /// When its last mail was sent, if ever.
    pub mailed_at: Option<DateTime<Utc>>,
    /// Matches the reader has not seen in the app yet.
    pub unseen: u64,
}

/// `GET /api/alerts`: the reader's alerts and how many they may keep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlertList {
    /// Oldest first.
    pub alerts: Vec<Alert>,
    /// How many alerts this reader may keep (free readers fewer than subscribers).
    pub limit: u64,
    /// Matches of all their alerts not seen yet: the badge.
    pub unseen: u64,
}

/// `POST /api/alerts`: a new alert.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewAlert {
    /// The search to watch for, in the search box's syntax.
    pub query: String,
    /// At most how often to mail; daily when left out.
    #[serde(default)]
    pub interval: Option<AlertInterval>,
    /// Whether to mail matches; true when left out.
    #[serde(default)]
    pub email: Option<bool>,
}

/// `PATCH /api/alerts/{id}`: what to change; what is left out stays.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AlertChange {
    /// At most how often to mail.
    #[serde(default)]
    pub interval: Option<AlertInterval>,
    /// Whether to mail matches.
    #[serde(default)]
    pub email: Option<bool>,
}

/// One item an alert announced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlertHit {
    /// The alert that matched.
    pub alert_id: String,
    /// Its search.
    pub query: String,
    /// When the item arrived and matched.
    pub matched_at: DateTime<Utc>,
    /// Whether the reader had seen it in the app before this answer.
    pub seen: bool,
    /// The item, as in the feed.
    pub item: crate::NewsItem,
}

/// `GET /api/alerts/matches`: what the alerts announced, newest first (the last 100).
/// Asking marks them seen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AlertHits {
    /// Newest first.
    pub items: Vec<AlertHit>,
}

/// `POST /api/unsubscribe`: what the link in a mail stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Unsubscribed {
    /// The mails that stopped, as a page says it: `the alert “open weights”`, or `the
    /// weekly summary`.
    pub stopped: String,
}
