//! Keys for the public news API (spec sections 1 and 6): one per user, created on first
//! request, replaceable by rotation when it leaks.
//!
//! A key is `rk_live_` and 48 hex digits (192 random bits). `userid_apikey` keeps the key
//! so the owner can see it again on /api-docs; `apikeyhash_userid` maps the key's SHA-256 to
//! its owner, so authenticating a request is one point lookup and never a scan of users.

use sha2::{Digest, Sha256};
use sled::Transactional;

use crate::{Result, Store};

/// Prefix of every key, so leaked keys are recognisable by secret scanners.
pub const API_KEY_PREFIX: &str = "rk_live_";

fn new_key() -> String {
    format!(
        "{API_KEY_PREFIX}{}",
        hex::encode(rand::random::<[u8; 24]>())
    )
}

fn key_hash(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

impl Store {
    /// The user's API key, created on the first call and the same afterwards.
    pub fn api_key(&self, user_id: &str) -> Result<String> {
        if let Some(k) = self.t.userid_apikey.get(user_id)? {
            return Ok(String::from_utf8_lossy(&k).into_owned());
        }
        self.writable()?;
        let fresh = new_key();
        let t = &self.t;
        // Two first requests at once must agree on one key: the check is inside the transaction.
        let key = (&t.userid_apikey, &t.apikeyhash_userid).transaction(|(keys, hashes)| {
            if let Some(k) = keys.get(user_id.as_bytes())? {
                return Ok(String::from_utf8_lossy(&k).into_owned());
            }
            keys.insert(user_id.as_bytes(), fresh.as_bytes())?;
            hashes.insert(&key_hash(&fresh), user_id.as_bytes())?;
            Ok(fresh.clone())
        })?;
        self.flush()?;
        Ok(key)
    }

    /// Replaces the user's API key with a new one; the old key stops working at once.
    pub fn rotate_api_key(&self, user_id: &str) -> Result<String> {
        self.writable()?;
        let fresh = new_key();
        let t = &self.t;
        (&t.userid_apikey, &t.apikeyhash_userid).transaction(|(keys, hashes)| {
            if let Some(old) = keys.insert(user_id.as_bytes(), fresh.as_bytes())? {
                hashes.remove(&key_hash(&String::from_utf8_lossy(&old)))?;
            }
            hashes.insert(&key_hash(&fresh), user_id.as_bytes())?;
            Ok(())
        })?;
        self.flush()?;
        Ok(fresh)
    }

    /// The owner (user id) of an API key, or none for an unknown or rotated-away key.
    pub fn api_key_owner(&self, key: &str) -> Result<Option<String>> {
        if !key.starts_with(API_KEY_PREFIX) {
            return Ok(None);
        }
        Ok(self
            .t
            .apikeyhash_userid
            .get(key_hash(key))?
            .map(|v| String::from_utf8_lossy(&v).into_owned()))
    }

    /// Removes the user's API key (used when an account is deleted).
    pub fn remove_api_key(&self, user_id: &str) -> Result<()> {
        self.writable()?;
        let t = &self.t;
        (&t.userid_apikey, &t.apikeyhash_userid).transaction(|(keys, hashes)| {
            if let Some(old) = keys.remove(user_id.as_bytes())? {
                hashes.remove(&key_hash(&String::from_utf8_lossy(&old)))?;
            }
            Ok(())
        })?;
        self.flush()
    }
}

#[cfg(test)]
mod tests {
    use crate::test_store;

    #[test]
    fn key_is_created_once_and_found_by_hash() {
        let (_d, store) = test_store();
        let k = store.api_key("u1").unwrap();
        assert!(k.starts_with("rk_live_") && k.len() == 8 + 48, "{k}");
        assert_eq!(store.api_key("u1").unwrap(), k);
        assert_ne!(store.api_key("u2").unwrap(), k);
        assert_eq!(store.api_key_owner(&k).unwrap().as_deref(), Some("u1"));
        assert_eq!(store.api_key_owner("rk_live_nope").unwrap(), None);
        assert_eq!(store.api_key_owner("").unwrap(), None);
    }

    #[test]
    fn rotation_retires_the_old_key() {
        let (_d, store) = test_store();
        let old = store.api_key("u1").unwrap();
        let new = store.rotate_api_key("u1").unwrap();
        assert_ne!(old, new);
        assert_eq!(store.api_key("u1").unwrap(), new);
        assert_eq!(store.api_key_owner(&old).unwrap(), None);
        assert_eq!(store.api_key_owner(&new).unwrap().as_deref(), Some("u1"));
        assert_eq!(store.t.apikeyhash_userid.len(), 1);
        store.remove_api_key("u1").unwrap();
        assert_eq!(store.api_key_owner(&new).unwrap(), None);
    }
}
