//! Keys for the public news API (docs/product.md §1 and §6): one per user, created on first
//! request, replaceable by rotation when it leaks.
//!
//! A key is `rk_live_` and 48 hex digits (192 random bits). `userid_apikey` keeps the key
//! so the owner can see it again on /api-docs; `apikeyhash_userid` maps the key's SHA-256 to
//! its owner, so authenticating a request is one point lookup and never a scan of users.

use crate::{Result, Store};
use sha2::{Digest, Sha256};

/// Prefix of every key, so leaked keys are recognisable by secret scanners.
pub const API_KEY_PREFIX: &str = "rk_live_";

fn new_key() -> String {
    format!(
        "{API_KEY_PREFIX}{}",
        hex::encode(rand::random::<[u8; 24]>())
    )
}

/// The SHA-256 of a key: what the lookup of its owner is kept by.
pub(crate) fn key_hash(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

impl Store {
    /// The user's API key, made on first request: two first requests at once agree on
    /// one key.
    pub async fn api_key(&self, user_id: &str) -> Result<String> {
        if let Some(k) = self.backend().api_key(user_id).await? {
            return Ok(k);
        }
        let fresh = new_key();
        self.backend()
            .put_api_key(user_id, &fresh, &key_hash(&fresh), false)
            .await
    }

    /// Replaces the user's API key with a new one; the old one stops working at once.
    pub async fn rotate_api_key(&self, user_id: &str) -> Result<String> {
        let fresh = new_key();
        self.backend()
            .put_api_key(user_id, &fresh, &key_hash(&fresh), true)
            .await
    }

    /// The owner (user id) of an API key, or none for an unknown or rotated-away key.
    pub async fn api_key_owner(&self, key: &str) -> Result<Option<String>> {
        if !key.starts_with(API_KEY_PREFIX) {
            return Ok(None);
        }
        self.backend().api_key_owner(&key_hash(key)).await
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::{store_tests, user_with_id};

    store_tests! {
        async fn key_is_created_once_and_found_by_hash(store) {
            let k = store.api_key("u1").await.unwrap();
            assert!(k.starts_with("rk_live_") && k.len() == 8 + 48, "{k}");
            assert_eq!(store.api_key("u1").await.unwrap(), k);
            assert_ne!(store.api_key("u2").await.unwrap(), k);
            assert_eq!(
                store.api_key_owner(&k).await.unwrap().as_deref(),
                Some("u1")
            );
            assert_eq!(store.api_key_owner("rk_live_nope").await.unwrap(), None);
            assert_eq!(store.api_key_owner("").await.unwrap(), None);
        }

        async fn rotation_retires_the_old_key(store) {
            user_with_id(&store, "u1").await;
            let old = store.api_key("u1").await.unwrap();
            let new = store.rotate_api_key("u1").await.unwrap();
            assert_ne!(old, new);
            assert_eq!(store.api_key("u1").await.unwrap(), new);
            assert_eq!(store.api_key_owner(&old).await.unwrap(), None);
            assert_eq!(
                store.api_key_owner(&new).await.unwrap().as_deref(),
                Some("u1")
            );
            if let Some(engine) = store.internals() {
                assert_eq!(engine.index_len("apikeyhash_userid"), 1);
            }
            // Deleting the account is what removes its key.
            store.delete_user("u1").await.unwrap();
            assert_eq!(store.api_key_owner(&new).await.unwrap(), None);
        }
    }
}
