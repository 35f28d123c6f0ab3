//! Keys of the public news API and their daily quotas in PostgreSQL.

use chrono::{DateTime, Days, Utc};

use super::{PostgresBackend, bigint, get, get_unsigned, unsigned};
use crate::backend::KeyStore;
use crate::{Error, QuotaUse, Result};

/// The next UTC midnight after `now`: when the day's quota starts over.
fn next_midnight(now: DateTime<Utc>) -> DateTime<Utc> {
    (now.date_naive() + Days::new(1))
        .and_hms_opt(0, 0, 0)
        .expect("midnight exists")
        .and_utc()
}

#[async_trait::async_trait]
impl KeyStore for PostgresBackend {
    async fn api_key(&self, user_id: &str) -> Result<Option<String>> {
        match self
            .opt("SELECT key FROM api_keys WHERE user_id = $1", &[&user_id])
            .await?
        {
            Some(row) => Ok(Some(get(&row, 0)?)),
            None => Ok(None),
        }
    }

    async fn put_api_key(
        &self,
        user_id: &str,
        key: &str,
        hash: &[u8; 32],
        replace: bool,
    ) -> Result<String> {
        let sql = if replace {
            // The old key's row is the user's row: its hash changes, so the old key
            // stops finding an owner in the same statement.
            "INSERT INTO api_keys (hash, user_id, key) VALUES ($1, $2, $3) \
             ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, key = excluded.key \
             RETURNING key"
        } else {
            "INSERT INTO api_keys (hash, user_id, key) VALUES ($1, $2, $3) \
             ON CONFLICT (user_id) DO NOTHING RETURNING key"
        };
        let client = self.client().await?;
        let written = super::rows(&client, sql, &[&&hash[..], &user_id, &key]).await?;
        if let Some(row) = written.first() {
            return get(row, 0);
        }
        // Another request gave the user a key first: that one is the user's key.
        let row = super::opt(
            &client,
            "SELECT key FROM api_keys WHERE user_id = $1",
            &[&user_id],
        )
        .await?
        .ok_or(Error::NotFound("API key"))?;
        get(&row, 0)
    }

    async fn api_key_owner(&self, hash: &[u8; 32]) -> Result<Option<String>> {
        match self
            .opt(
                "SELECT user_id FROM api_keys WHERE hash = $1",
                &[&&hash[..]],
            )
            .await?
        {
            Some(row) => Ok(Some(get(&row, 0)?)),
            None => Ok(None),
        }
    }

    async fn consume_quota(&self, owner: &str, limit: u64, now: DateTime<Utc>) -> Result<QuotaUse> {
        let day = now.date_naive();
        let cap = bigint(limit);
        let row = self
            .one(
                "SELECT radar_consume_quota($1, $2, $3)",
                &[&owner, &day, &cap],
            )
            .await?;
        let used: Option<u64> = get::<Option<i64>>(&row, 0)?.map(unsigned).transpose()?;
        Ok(QuotaUse {
            limit,
            remaining: used.map_or(0, |u| limit.saturating_sub(u)),
            reset_at: next_midnight(now),
            allowed: used.is_some(),
        })
    }

    async fn quota_used(&self, owner: &str, now: DateTime<Utc>) -> Result<u64> {
        let row = self
            .opt(
                "SELECT used FROM quotas WHERE owner = $1 AND day = $2",
                &[&owner, &now.date_naive()],
            )
            .await?;
        Ok(match row {
            Some(row) => get_unsigned(&row, 0)?,
            None => 0,
        })
    }
}
