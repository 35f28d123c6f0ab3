//! Checkouts (`checkouts` by id, `userid_checkouts` per user and time) and the waitlist
//! (`waitlist` by user, `joined_userid` in join order) in sled.

use chrono::{DateTime, Utc};
use sled::Transactional;

use super::{SledBackend, from_json, keys, to_json};
use crate::backend::{BillingStore, CheckoutChange};
use crate::{CheckoutSession, Error, Result, WaitlistEntry};

impl SledBackend {
    /// Deletes a user's waitlist entry (account deletion).
    pub(crate) fn forget_waitlist_entry(&self, user_id: &str) -> Result<()> {
        let t = &self.t;
        (&t.waitlist, &t.joined_userid).transaction(|(waitlist, joined)| {
            if let Some(old) = waitlist.remove(user_id.as_bytes())? {
                let old: WaitlistEntry = from_json(&old)?;
                joined.remove(keys::published(old.joined_at, &old.user_id))?;
            }
            Ok(())
        })?;
        Ok(())
    }

    /// Deletes a user's checkout sessions (account deletion). Walks every checkout:
    /// `userid_checkouts` forgets entries older than a day, and a deletion is an
    /// operator's rare act.
    pub(crate) fn forget_checkouts(&self, user_id: &str) -> Result<()> {
        for key in self
            .t
            .userid_checkouts
            .scan_prefix(keys::prefix(user_id))
            .keys()
        {
            self.t.userid_checkouts.remove(key?)?;
        }
        for entry in &self.t.checkouts {
            let (key, value) = entry?;
            let owner = serde_json::from_slice::<serde_json::Value>(&value)
                .ok()
                .and_then(|v| v["user_id"].as_str().map(str::to_string));
            if owner.as_deref() == Some(user_id) {
                self.t.checkouts.remove(key)?;
            }
        }
        Ok(())
    }
}

#[async_trait::async_trait]
impl BillingStore for SledBackend {
    async fn insert_checkout(&self, checkout: &CheckoutSession) -> Result<()> {
        self.writable()?;
        let t = &self.t;
        let id = &checkout.id;
        (&t.checkouts, &t.userid_checkouts).transaction(|(checkouts, recent)| {
            if checkouts.get(id.as_bytes())?.is_some() {
                return Err(
                    Error::Conflict(format!("checkout session {id} already exists")).into(),
                );
            }
            checkouts.insert(id.as_bytes(), to_json(checkout))?;
            recent.insert(
                keys::owner_time(&checkout.user_id, checkout.created_at, id),
                &[],
            )?;
            Ok(())
        })?;
        self.sync()
    }

    async fn checkout(&self, id: &str) -> Result<Option<CheckoutSession>> {
        self.t.checkouts.get(id)?.map(|v| from_json(&v)).transpose()
    }

    async fn update_checkout(
        &self,
        id: &str,
        change: &mut CheckoutChange<'_>,
    ) -> Result<CheckoutSession> {
        self.writable()?;
        let change = std::cell::RefCell::new(change);
        let session = self.t.checkouts.transaction(|checkouts| {
            let Some(raw) = checkouts.get(id.as_bytes())? else {
                return Err(Error::NotFound("checkout session").into());
            };
            let mut s: CheckoutSession = from_json(&raw)?;
            (change.borrow_mut())(&mut s)?;
            checkouts.insert(id.as_bytes(), to_json(&s))?;
            Ok(s)
        })?;
        self.sync()?;
        Ok(session)
    }

    async fn count_checkouts_since(&self, user_id: &str, since: DateTime<Utc>) -> Result<usize> {
        let prefix = keys::prefix(user_id);
        let mut count = 0;
        let mut pruned = false;
        let writable = self.writable().is_ok();
        for key in self.t.userid_checkouts.scan_prefix(&prefix).keys() {
            let key = key?;
            match keys::time_from(&key[prefix.len()..]) {
                Some(at) if at >= since => count += 1,
                _ if !writable => {}
                _ => {
                    self.t.userid_checkouts.remove(&key)?;
                    pruned = true;
                }
            }
        }
        if pruned {
            self.sync()?;
        }
        Ok(count)
    }

    async fn join_waitlist(&self, entry: &WaitlistEntry) -> Result<WaitlistEntry> {
        self.writable()?;
        let t = &self.t;
        let kept = (&t.waitlist, &t.joined_userid).transaction(|(waitlist, joined)| {
            if let Some(old) = waitlist.get(entry.user_id.as_bytes())? {
                return Ok(from_json::<WaitlistEntry>(&old)?);
            }
            waitlist.insert(entry.user_id.as_bytes(), to_json(entry))?;
            joined.insert(keys::published(entry.joined_at, &entry.user_id), &[])?;
            Ok(entry.clone())
        })?;
        self.sync()?;
        Ok(kept)
    }

    async fn waitlist_entry(&self, user_id: &str) -> Result<Option<WaitlistEntry>> {
        self.t
            .waitlist
            .get(user_id)?
            .map(|v| from_json(&v))
            .transpose()
    }

    async fn waitlist(&self) -> Result<Vec<WaitlistEntry>> {
        let mut out = Vec::new();
        for key in self.t.joined_userid.iter().keys() {
            let key = key?;
            if let Some(raw) = keys::published_item_id(&key)
                .map(|id| self.t.waitlist.get(id))
                .transpose()?
                .flatten()
            {
                out.push(from_json(&raw)?);
            }
        }
        Ok(out)
    }

    async fn approve_waitlist_entry(
        &self,
        user_id: &str,
        at: DateTime<Utc>,
    ) -> Result<WaitlistEntry> {
        self.writable()?;
        let entry = self.t.waitlist.transaction(|waitlist| {
            let Some(raw) = waitlist.get(user_id.as_bytes())? else {
                return Err(Error::NotFound("waitlist entry").into());
            };
            let mut entry: WaitlistEntry = from_json(&raw)?;
            entry.approved_at.get_or_insert(at);
            waitlist.insert(user_id.as_bytes(), to_json(&entry))?;
            Ok(entry)
        })?;
        self.sync()?;
        Ok(entry)
    }

    async fn remove_waitlist_entry(&self, user_id: &str) -> Result<Option<WaitlistEntry>> {
        self.writable()?;
        let t = &self.t;
        let old = (&t.waitlist, &t.joined_userid).transaction(|(waitlist, joined)| {
            let Some(old) = waitlist.remove(user_id.as_bytes())? else {
                return Ok(None);
            };
            let old: WaitlistEntry = from_json(&old)?;
            joined.remove(keys::published(old.joined_at, &old.user_id))?;
            Ok(Some(old))
        })?;
        self.sync()?;
        Ok(old)
    }
}
