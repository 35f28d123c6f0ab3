//! API keys in sled: `userid_apikey` holds each user's key (shown again on /api-docs),
//! `apikeyhash_userid` maps a key's SHA-256 to its owner, so authenticating a request is
//! one lookup.

use sled::Transactional;

use super::SledBackend;
use crate::Result;
use crate::backend::KeyStore;

impl SledBackend {
    /// Removes a user's key (account deletion).
    pub(crate) fn forget_api_key(&self, user_id: &str) -> Result<()> {
        let t = &self.t;
        (&t.userid_apikey, &t.apikeyhash_userid).transaction(|(keys, hashes)| {
            if let Some(old) = keys.remove(user_id.as_bytes())? {
                hashes.remove(&crate::api_keys::key_hash(&String::from_utf8_lossy(&old)))?;
            }
            Ok(())
        })?;
        Ok(())
    }
}

#[async_trait::async_trait]
impl KeyStore for SledBackend {
    async fn api_key(&self, user_id: &str) -> Result<Option<String>> {
        Ok(self
            .t
            .userid_apikey
            .get(user_id)?
            .map(|k| String::from_utf8_lossy(&k).into_owned()))
    }

    async fn put_api_key(
        &self,
        user_id: &str,
        key: &str,
        hash: &[u8; 32],
        replace: bool,
    ) -> Result<String> {
        self.writable()?;
        let t = &self.t;
        let kept = (&t.userid_apikey, &t.apikeyhash_userid).transaction(|(keys, hashes)| {
            if let Some(old) = keys.get(user_id.as_bytes())? {
                if !replace {
                    return Ok(String::from_utf8_lossy(&old).into_owned());
                }
                hashes.remove(&crate::api_keys::key_hash(&String::from_utf8_lossy(&old)))?;
            }
            keys.insert(user_id.as_bytes(), key.as_bytes())?;
            hashes.insert(hash, user_id.as_bytes())?;
            Ok(key.to_string())
        })?;
        self.sync()?;
        Ok(kept)
    }

    async fn api_key_owner(&self, hash: &[u8; 32]) -> Result<Option<String>> {
        Ok(self
            .t
            .apikeyhash_userid
            .get(hash)?
            .map(|v| String::from_utf8_lossy(&v).into_owned()))
    }

    async fn consume_quota(
        &self,
        owner: &str,
        limit: u64,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<crate::QuotaUse> {
        self.count_quota(owner, limit, now)
    }

    async fn quota_used(&self, owner: &str, now: chrono::DateTime<chrono::Utc>) -> Result<u64> {
        self.counted_quota(owner, now)
    }
}
