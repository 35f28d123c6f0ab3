//! The premium waitlist (spec sections 1 and 2): while subscriptions are closed, users
//! join it; an operator later approves them, which grants the subscription.
//!
//! Joining is idempotent and keeps the first join date. `waitlist` holds one entry per
//! user; `joined_userid` orders them by join time so operators list them in join order
//! without sorting every entry.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sled::Transactional;
use utoipa::ToSchema;

use crate::users::User;
use crate::{Error, Result, Store, from_json, keys, to_json};
use radar_api::account::WaitlistStatus;

/// One user's place on the waitlist.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WaitlistEntry {
    /// The user.
    pub user_id: String,
    /// The user's e-mail when they joined (for operators' listings).
    pub email: String,
    /// When they first joined.
    pub joined_at: DateTime<Utc>,
    /// When an operator approved them (and granted the subscription).
    #[serde(default)]
    pub approved_at: Option<DateTime<Utc>>,
}

impl WaitlistEntry {
    /// The status answer for a user with this entry, or without one.
    pub fn status(entry: Option<&WaitlistEntry>) -> WaitlistStatus {
        WaitlistStatus {
            is_on_waitlist: entry.is_some(),
            joined_at: entry.map(|e| e.joined_at),
        }
    }
}

impl Store {
    /// Puts the user on the waitlist; joining again keeps the first date. Answers the entry.
    pub fn join_waitlist(&self, user: &User) -> Result<WaitlistEntry> {
        self.writable()?;
        let fresh = WaitlistEntry {
            user_id: user.id.clone(),
            email: user.email.clone(),
            joined_at: Utc::now(),
            approved_at: None,
        };
        let t = &self.t;
        let entry = (&t.waitlist, &t.joined_userid).transaction(|(waitlist, joined)| {
            if let Some(old) = waitlist.get(user.id.as_bytes())? {
                return Ok(from_json::<WaitlistEntry>(&old)?);
            }
            waitlist.insert(user.id.as_bytes(), to_json(&fresh))?;
            joined.insert(keys::published(fresh.joined_at, &fresh.user_id), &[])?;
            Ok(fresh.clone())
        })?;
        self.flush()?;
        Ok(entry)
    }

    /// The user's waitlist entry, if they joined.
    pub fn waitlist_entry(&self, user_id: &str) -> Result<Option<WaitlistEntry>> {
        self.t
            .waitlist
            .get(user_id)?
            .map(|v| from_json(&v))
            .transpose()
    }

    /// The user's waitlist status as the web app reads it.
    pub fn waitlist_status(&self, user_id: &str) -> Result<WaitlistStatus> {
        Ok(WaitlistEntry::status(
            self.waitlist_entry(user_id)?.as_ref(),
        ))
    }

    /// Every waitlist entry in join order, first joiner first (for operators).
    pub fn waitlist(&self) -> Result<Vec<WaitlistEntry>> {
        let mut out = Vec::new();
        for entry in self.t.joined_userid.iter() {
            let (key, _) = entry?;
            if let Some(e) = keys::published_item_id(&key)
                .map(|id| self.waitlist_entry(id))
                .transpose()?
                .flatten()
            {
                out.push(e);
            }
        }
        Ok(out)
    }

    /// Takes a user off the waitlist; not being on it is `NotFound`.
    pub fn remove_from_waitlist(&self, user_id: &str) -> Result<WaitlistEntry> {
        self.writable()?;
        let t = &self.t;
        let entry = (&t.waitlist, &t.joined_userid).transaction(|(waitlist, joined)| {
            let Some(old) = waitlist.remove(user_id.as_bytes())? else {
                return Err(Error::NotFound("waitlist entry").into());
            };
            let old: WaitlistEntry = from_json(&old)?;
            joined.remove(keys::published(old.joined_at, &old.user_id))?;
            Ok(old)
        })?;
        self.flush()?;
        Ok(entry)
    }

    /// Approves a waitlisted user: grants the subscription (until `until`, or until revoked)
    /// and records the approval date, keeping the join date. One transaction.
    pub fn approve_waitlist(
        &self,
        user_id: &str,
        until: Option<DateTime<Utc>>,
    ) -> Result<WaitlistEntry> {
        self.writable()?;
        let now = Utc::now();
        let t = &self.t;
        let entry = (&t.waitlist, &t.users).transaction(|(waitlist, users)| {
            let Some(raw) = waitlist.get(user_id.as_bytes())? else {
                return Err(Error::NotFound("waitlist entry").into());
            };
            let mut entry: WaitlistEntry = from_json(&raw)?;
            let Some(raw_user) = users.get(user_id.as_bytes())? else {
                return Err(Error::NotFound("user").into());
            };
            let mut user: User = from_json(&raw_user)?;
            user.subscription.is_active = true;
            user.subscription.until = until;
            user.updated_at = now;
            users.insert(user_id.as_bytes(), to_json(&user))?;
            entry.approved_at.get_or_insert(now);
            waitlist.insert(user_id.as_bytes(), to_json(&entry))?;
            Ok(entry)
        })?;
        self.flush()?;
        Ok(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_store;

    #[test]
    fn joining_twice_keeps_the_first_date() {
        let (_d, store) = test_store();
        let u = store
            .create_user("w@example.com", "h".into(), Default::default(), true)
            .unwrap();
        assert!(!store.waitlist_status(&u.id).unwrap().is_on_waitlist);
        let first = store.join_waitlist(&u).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let second = store.join_waitlist(&u).unwrap();
        assert_eq!(first.joined_at, second.joined_at);
        let status = store.waitlist_status(&u.id).unwrap();
        assert!(status.is_on_waitlist);
        assert_eq!(status.joined_at, Some(first.joined_at));
        assert_eq!(store.t.joined_userid.len(), 1);
    }

    #[test]
    fn listing_is_in_join_order_and_remove_clears_both_trees() {
        let (_d, store) = test_store();
        let a = store
            .create_user("a@example.com", "h".into(), Default::default(), true)
            .unwrap();
        let b = store
            .create_user("b@example.com", "h".into(), Default::default(), true)
            .unwrap();
        store.join_waitlist(&b).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5));
        store.join_waitlist(&a).unwrap();
        let order: Vec<_> = store
            .waitlist()
            .unwrap()
            .into_iter()
            .map(|e| e.email)
            .collect();
        assert_eq!(order, ["b@example.com", "a@example.com"]);
        store.remove_from_waitlist(&b.id).unwrap();
        assert!(matches!(
            store.remove_from_waitlist(&b.id),
            Err(Error::NotFound(_))
        ));
        assert_eq!(store.waitlist().unwrap().len(), 1);
        assert_eq!(store.t.joined_userid.len(), 1);
    }

    #[test]
    fn approval_grants_the_subscription_and_keeps_dates() {
        let (_d, store) = test_store();
        let u = store
            .create_user("w@example.com", "h".into(), Default::default(), true)
            .unwrap();
        assert!(matches!(
            store.approve_waitlist(&u.id, None),
            Err(Error::NotFound(_))
        ));
        let joined = store.join_waitlist(&u).unwrap();
        let approved = store.approve_waitlist(&u.id, None).unwrap();
        assert_eq!(approved.joined_at, joined.joined_at);
        let at = approved.approved_at.unwrap();
        assert_eq!(
            store.approve_waitlist(&u.id, None).unwrap().approved_at,
            Some(at)
        );
        assert!(store.is_subscriber(&store.user(&u.id).unwrap().unwrap()));
    }
}
