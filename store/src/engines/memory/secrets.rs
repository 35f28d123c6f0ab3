//! One-time secrets in memory: by hash, and the one live secret of each owner and
//! purpose.

use std::collections::{BTreeMap, HashMap};

use super::MemoryBackend;
use crate::backend::{SecretLookup, SecretRule, SecretStore, UserChange};
use crate::secrets::{SecretRecord, SecretUse};
use crate::{Error, Result, User};

/// Secrets by hash and by (owner, purpose).
#[derive(Default)]
pub(super) struct Secrets {
    by_hash: HashMap<[u8; 32], SecretRecord>,
    slots: BTreeMap<(String, String), [u8; 32]>,
}

fn slot(record: &SecretRecord) -> (String, String) {
    (record.owner.clone(), record.purpose.clone())
}

impl Secrets {
    /// Stores a secret in its owner's slot for its purpose, spending the one there.
    fn put(&mut self, record: &SecretRecord) {
        if let Some(old) = self.by_hash.remove(&record.hash) {
            self.slots.remove(&slot(&old));
        }
        if let Some(old) = self.slots.insert(slot(record), record.hash) {
            self.by_hash.remove(&old);
        }
        self.by_hash.insert(record.hash, record.clone());
    }

    fn clear(&mut self, owner: &str, purpose: &str) {
        if let Some(hash) = self.slots.remove(&(owner.to_string(), purpose.to_string())) {
            self.by_hash.remove(&hash);
        }
    }

    fn spend(&mut self, hash: &[u8; 32]) {
        if let Some(record) = self.by_hash.remove(hash) {
            self.slots.remove(&slot(&record));
        }
    }

    fn owner_slots(&self, owner: &str) -> impl Iterator<Item = (&(String, String), &[u8; 32])> {
        let from = (owner.to_string(), String::new());
        self.slots
            .range(from..)
            .take_while(move |((o, _), _)| o == owner)
    }

    /// Spends every secret of an owner (a deleted account).
    pub(super) fn forget_owner(&mut self, owner: &str) {
        let purposes: Vec<String> = self
            .owner_slots(owner)
            .map(|((_, p), _)| p.clone())
            .collect();
        for purpose in purposes {
            self.clear(owner, &purpose);
        }
    }
}

#[async_trait::async_trait]
impl SecretStore for MemoryBackend {
    async fn put_secret(
        &self,
        secret: &SecretRecord,
        stamp: Option<&mut UserChange<'_>>,
    ) -> Result<()> {
        let mut state = self.lock();
        if state.accounts.get(&secret.owner).is_none() {
            return Err(Error::NotFound("user"));
        }
        if let Some(stamp) = stamp {
            state.accounts.update(&secret.owner, stamp)?;
        }
        state.secrets.put(secret);
        Ok(())
    }

    async fn put_secrets(
        &self,
        owner: &str,
        secrets: &[SecretRecord],
        clear: &[&str],
        change: &mut UserChange<'_>,
    ) -> Result<User> {
        if let Some(other) = secrets.iter().find(|s| s.owner != owner) {
            return Err(Error::Invalid(format!(
                "a secret of {} among the secrets of {owner}",
                other.owner
            )));
        }
        let mut state = self.lock();
        let user = state.accounts.update(owner, change)?;
        for purpose in clear {
            state.secrets.clear(owner, purpose);
        }
        for secret in secrets {
            state.secrets.put(secret);
        }
        Ok(User::clone(&user))
    }

    async fn use_secret(
        &self,
        by: SecretLookup<'_>,
        rule: &mut SecretRule<'_>,
    ) -> Result<Option<SecretRecord>> {
        let mut state = self.lock();
        let secrets = &mut state.secrets;
        let hash = match by {
            SecretLookup::Hash(hash) => Some(*hash),
            SecretLookup::Slot { owner, purpose } => secrets
                .slots
                .get(&(owner.to_string(), purpose.to_string()))
                .copied(),
        };
        let found = hash.and_then(|h| secrets.by_hash.get(&h)).cloned();
        let purposes: Vec<String> = match &found {
            Some(record) => secrets
                .owner_slots(&record.owner)
                .map(|((_, p), _)| p.clone())
                .collect(),
            None => Vec::new(),
        };
        // The trait's `rule` cannot be handed references to what this step read: async
        // trait methods turn the elided lifetimes of `dyn FnMut(Option<&SecretRecord>,
        // &[String])` into lifetimes of the call (dtolnay/async-trait#257), which no
        // local outlives. Until the trait declares them higher-ranked, the rule gets
        // leaked copies: a few hundred bytes per call, in a backend that lives for one
        // test.
        let shown: Option<&'static SecretRecord> = found.clone().map(|r| &*Box::leak(Box::new(r)));
        let listed: &'static [String] = Box::leak(purposes.into_boxed_slice());
        let decided = rule(shown, listed);
        if let Some(record) = &found {
            match decided {
                SecretUse::Keep => {}
                SecretUse::Update(body) => {
                    let mut updated = record.clone();
                    updated.body = body;
                    secrets.by_hash.insert(record.hash, updated);
                }
                SecretUse::Spend => secrets.spend(&record.hash),
            }
        }
        Ok(found)
    }
}
