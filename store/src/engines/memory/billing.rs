//! Checkout sessions and the waitlist in memory.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::MemoryBackend;
use crate::backend::BillingStore;
use crate::{CheckoutSession, Error, Result, WaitlistEntry};

/// `crate::backend`'s rule type of `update_checkout`, which it does not export; the
/// impl must spell the parameter as the trait does (an alias), or async-trait binds its
/// lifetime differently.
type CheckoutChange<'a> = dyn FnMut(&mut CheckoutSession) -> Result<()> + Send + 'a;

/// Checkouts by id, waitlist entries by user.
#[derive(Default)]
pub(super) struct Billing {
    checkouts: HashMap<String, CheckoutSession>,
    waitlist: HashMap<String, WaitlistEntry>,
}

impl Billing {
    /// Forgets a user's checkouts and waitlist entry (a deleted account).
    pub(super) fn forget_user(&mut self, user_id: &str) {
        self.checkouts.retain(|_, c| c.user_id != user_id);
        self.waitlist.remove(user_id);
    }
}

#[async_trait::async_trait]
impl BillingStore for MemoryBackend {
    async fn insert_checkout(&self, checkout: &CheckoutSession) -> Result<()> {
        let mut state = self.lock();
        let checkouts = &mut state.billing.checkouts;
        if checkouts.contains_key(&checkout.id) {
            return Err(Error::Conflict(format!(
                "checkout session {} already exists",
                checkout.id
            )));
        }
        checkouts.insert(checkout.id.clone(), checkout.clone());
        Ok(())
    }

    async fn checkout(&self, id: &str) -> Result<Option<CheckoutSession>> {
        Ok(self.lock().billing.checkouts.get(id).cloned())
    }

    async fn update_checkout(
        &self,
        id: &str,
        change: &mut CheckoutChange<'_>,
    ) -> Result<CheckoutSession> {
        let mut state = self.lock();
        let stored = state
            .billing
            .checkouts
            .get_mut(id)
            .ok_or(Error::NotFound("checkout session"))?;
        let mut checkout = stored.clone();
        change(&mut checkout)?;
        checkout.id = id.to_string();
        *stored = checkout.clone();
        Ok(checkout)
    }

    async fn count_checkouts_since(&self, user_id: &str, since: DateTime<Utc>) -> Result<usize> {
        let state = self.lock();
        Ok(state
            .billing
            .checkouts
            .values()
            .filter(|c| c.user_id == user_id && c.created_at >= since)
            .count())
    }

    async fn join_waitlist(&self, entry: &WaitlistEntry) -> Result<WaitlistEntry> {
        let mut state = self.lock();
        Ok(state
            .billing
            .waitlist
            .entry(entry.user_id.clone())
            .or_insert_with(|| entry.clone())
            .clone())
    }

    async fn waitlist_entry(&self, user_id: &str) -> Result<Option<WaitlistEntry>> {
        Ok(self.lock().billing.waitlist.get(user_id).cloned())
    }

    async fn waitlist(&self) -> Result<Vec<WaitlistEntry>> {
        let state = self.lock();
        let mut entries: Vec<WaitlistEntry> = state.billing.waitlist.values().cloned().collect();
        entries.sort_by(|a, b| {
            a.joined_at
                .cmp(&b.joined_at)
                .then_with(|| a.user_id.cmp(&b.user_id))
        });
        Ok(entries)
    }

    async fn approve_waitlist_entry(
        &self,
        user_id: &str,
        at: DateTime<Utc>,
    ) -> Result<WaitlistEntry> {
        let mut state = self.lock();
        let entry = state
            .billing
            .waitlist
            .get_mut(user_id)
            .ok_or(Error::NotFound("waitlist entry"))?;
        entry.approved_at.get_or_insert(at);
        Ok(entry.clone())
    }

    async fn remove_waitlist_entry(&self, user_id: &str) -> Result<Option<WaitlistEntry>> {
        Ok(self.lock().billing.waitlist.remove(user_id))
    }
}
