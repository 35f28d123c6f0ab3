//! API keys and their daily quotas in memory.

use std::collections::HashMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};

use super::MemoryBackend;
use crate::backend::KeyStore;
use crate::{QuotaUse, Result};

/// Keys by owner and by hash; request counts by owner and UTC day.
#[derive(Default)]
pub(super) struct Keys {
    by_owner: HashMap<String, (String, [u8; 32])>,
    by_hash: HashMap<[u8; 32], String>,
    quotas: HashMap<(String, NaiveDate), u64>,
}

impl Keys {
    /// Forgets an owner's key and counts (a deleted account).
    pub(super) fn forget_owner(&mut self, owner: &str) {
        if let Some((_, hash)) = self.by_owner.remove(owner) {
            self.by_hash.remove(&hash);
        }
        self.quotas.retain(|(o, _), _| o != owner);
    }
}

#[async_trait::async_trait]
impl KeyStore for MemoryBackend {
    async fn api_key(&self, user_id: &str) -> Result<Option<String>> {
        Ok(self
            .lock()
            .keys
            .by_owner
            .get(user_id)
            .map(|(k, _)| k.clone()))
    }

    async fn put_api_key(
        &self,
        user_id: &str,
        key: &str,
        hash: &[u8; 32],
        replace: bool,
    ) -> Result<String> {
        let mut state = self.lock();
        let keys = &mut state.keys;
        if let Some((old, old_hash)) = keys.by_owner.get(user_id) {
            if !replace {
                return Ok(old.clone());
            }
            let old_hash = *old_hash;
            keys.by_hash.remove(&old_hash);
        }
        keys.by_owner
            .insert(user_id.to_string(), (key.to_string(), *hash));
        keys.by_hash.insert(*hash, user_id.to_string());
        Ok(key.to_string())
    }

    async fn api_key_owner(&self, hash: &[u8; 32]) -> Result<Option<String>> {
        Ok(self.lock().keys.by_hash.get(hash).cloned())
    }

    async fn consume_quota(&self, owner: &str, limit: u64, now: DateTime<Utc>) -> Result<QuotaUse> {
        let today = now.date_naive();
        let mut state = self.lock();
        let used = state
            .keys
            .quotas
            .entry((owner.to_string(), today))
            .or_default();
        let allowed = *used < limit;
        if allowed {
            *used += 1;
        }
        let used = *used;
        let reset_at = (today + Duration::days(1))
            .and_hms_opt(0, 0, 0)
            .expect("midnight exists")
            .and_utc();
        Ok(QuotaUse {
            limit,
            remaining: limit.saturating_sub(used),
            reset_at,
            allowed,
        })
    }

    async fn quota_used(&self, owner: &str, now: DateTime<Utc>) -> Result<u64> {
        let state = self.lock();
        let key = (owner.to_string(), now.date_naive());
        Ok(state.keys.quotas.get(&key).copied().unwrap_or(0))
    }
}
