//! Keys of the public news API and their daily quotas.

use chrono::{DateTime, Utc};

use crate::{QuotaUse, Result};

/// API keys (one per user, stored with its SHA-256 for the lookup) and quota counters.
#[async_trait::async_trait]
pub trait KeyStore: Send + Sync {
    /// The user's API key, if one was made.
    async fn api_key(&self, user_id: &str) -> Result<Option<String>>;

    /// Gives the user `key` (with its SHA-256 `hash`): with `replace`, in place of the
    /// key they had, which stops working; without, only when they have none, so two
    /// first requests at once agree on one key. Answers the user's key afterwards.
    async fn put_api_key(
        &self,
        user_id: &str,
        key: &str,
        hash: &[u8; 32],
        replace: bool,
    ) -> Result<String>;

    /// The owner of the key with this SHA-256: one lookup, never a scan.
    async fn api_key_owner(&self, hash: &[u8; 32]) -> Result<Option<String>>;

    /// Counts one request of `owner` on the UTC day of `now` against `limit`: exact
    /// however many requests arrive at once, and a refused request is not counted, so
    /// the count never passes the limit.
    async fn consume_quota(&self, owner: &str, limit: u64, now: DateTime<Utc>) -> Result<QuotaUse>;

    /// How many requests `owner` made on the UTC day of `now`. The rules ask only of
    /// today: a backend may forget a past day's count once a new day has begun.
    async fn quota_used(&self, owner: &str, now: DateTime<Utc>) -> Result<u64>;
}
