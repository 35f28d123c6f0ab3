//! Checkout sessions and the subscriptions they activate (spec sections 2 and 7).
//!
//! The daemon's payment provider (its own test checkout, or Stripe) creates a session;
//! the store remembers whose it is, so verifying a session of another user fails, and
//! activation sets the subscription and customer id of the owner in one step. Operators
//! grant and revoke subscriptions with the helpers at the end.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sled::Transactional;

use crate::users::User;
use crate::{Error, Result, Store, from_json, keys, to_json};
use radar_api::account::SubscriptionStatus;

/// Where a checkout session stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckoutStatus {
    /// Created; the user has not paid yet.
    Created,
    /// Paid; verification activates the subscription.
    Paid,
}

/// A checkout session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckoutSession {
    /// The provider's session id (`cs_test_...` for the built-in test provider).
    pub id: String,
    /// The user who started it.
    pub user_id: String,
    /// `test` or `stripe`.
    pub provider: String,
    /// Created or paid.
    pub status: CheckoutStatus,
    /// The provider's customer id, once known.
    #[serde(default)]
    pub customer_id: Option<String>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it was paid.
    #[serde(default)]
    pub paid_at: Option<DateTime<Utc>>,
    /// When it activated the subscription.
    #[serde(default)]
    pub activated_at: Option<DateTime<Utc>>,
}

impl Store {
    /// Records a new checkout session for a user.
    pub fn create_checkout(
        &self,
        id: &str,
        user_id: &str,
        provider: &str,
    ) -> Result<CheckoutSession> {
        self.writable()?;
        let session = CheckoutSession {
            id: id.to_string(),
            user_id: user_id.to_string(),
            provider: provider.to_string(),
            status: CheckoutStatus::Created,
            customer_id: None,
            created_at: Utc::now(),
            paid_at: None,
            activated_at: None,
        };
        let t = &self.t;
        (&t.checkouts, &t.userid_checkouts).transaction(|(checkouts, recent)| {
            if checkouts.get(id.as_bytes())?.is_some() {
                return Err(
                    Error::Conflict(format!("checkout session {id} already exists")).into(),
                );
            }
            checkouts.insert(id.as_bytes(), to_json(&session))?;
            recent.insert(keys::owner_time(user_id, session.created_at, id), &[])?;
            Ok(())
        })?;
        self.flush()?;
        Ok(session)
    }

    /// How many checkouts the user started since `since` (to bound how many one account
    /// may start). Index entries older than `since` are dropped on the way, unless the
    /// disk is full: counting is a read, and the entries are dropped by a later count.
    pub fn count_checkouts_since(&self, user_id: &str, since: DateTime<Utc>) -> Result<usize> {
        let prefix = keys::prefix(user_id);
        let mut count = 0;
        let mut pruned = false;
        let mut may_prune = None;
        for key in self.t.userid_checkouts.scan_prefix(&prefix).keys() {
            let key = key?;
            match keys::time_from(&key[prefix.len()..]) {
                Some(at) if at >= since => count += 1,
                _ if !*may_prune.get_or_insert_with(|| self.writable().is_ok()) => {}
                _ => {
                    self.t.userid_checkouts.remove(&key)?;
                    pruned = true;
                }
            }
        }
        if pruned {
            self.flush()?;
        }
        Ok(count)
    }

    /// One checkout session by id.
    pub fn checkout(&self, id: &str) -> Result<Option<CheckoutSession>> {
        self.t.checkouts.get(id)?.map(|v| from_json(&v)).transpose()
    }

    /// Marks a session paid by `customer_id` (empty when unknown); paying twice keeps the first date.
    pub fn mark_checkout_paid(&self, id: &str, customer_id: &str) -> Result<CheckoutSession> {
        self.writable()?;
        let now = Utc::now();
        let session = self.t.checkouts.transaction(|checkouts| {
            let Some(raw) = checkouts.get(id.as_bytes())? else {
                return Err(Error::NotFound("checkout session").into());
            };
            let mut s: CheckoutSession = from_json(&raw)?;
            if s.status != CheckoutStatus::Paid {
                s.status = CheckoutStatus::Paid;
                s.paid_at = Some(now);
            }
            if !customer_id.is_empty() {
                s.customer_id.get_or_insert_with(|| customer_id.to_string());
            }
            checkouts.insert(id.as_bytes(), to_json(&s))?;
            Ok(s)
        })?;
        self.flush()?;
        Ok(session)
    }

    /// Activates the subscription a paid session bought, for the session's owner only.
    /// Another user's session is `NotFound` (its existence is not revealed); an unpaid one
    /// is `Invalid`. Activating twice is harmless.
    pub fn activate_checkout(&self, id: &str, user_id: &str) -> Result<User> {
        self.writable()?;
        let now = Utc::now();
        let t = &self.t;
        let user = (&t.checkouts, &t.users, &t.customerid_userid).transaction(
            |(checkouts, users, customers)| {
                let Some(raw) = checkouts.get(id.as_bytes())? else {
                    return Err(Error::NotFound("checkout session").into());
                };
                let mut s: CheckoutSession = from_json(&raw)?;
                if s.user_id != user_id {
                    return Err(Error::NotFound("checkout session").into());
                }
                if s.status != CheckoutStatus::Paid {
                    return Err(Error::Invalid(
                        "This checkout session has not been paid yet.".into(),
                    )
                    .into());
                }
                let Some(raw_user) = users.get(user_id.as_bytes())? else {
                    return Err(Error::NotFound("user").into());
                };
                let mut user: User = from_json(&raw_user)?;
                user.subscription.is_active = true;
                user.subscription.until = None;
                if let Some(c) = &s.customer_id {
                    user.subscription.customer_id = Some(c.clone());
                    customers.insert(c.as_bytes(), user_id.as_bytes())?;
                }
                user.updated_at = now;
                users.insert(user_id.as_bytes(), to_json(&user))?;
                s.activated_at.get_or_insert(now);
                checkouts.insert(id.as_bytes(), to_json(&s))?;
                Ok(user)
            },
        )?;
        self.flush()?;
        Ok(user)
    }

    /// The subscription as clients see it (`GET /api/user/metadata`): `isActive` is spec
    /// section 4's verdict ([`Store::is_subscriber`], complimentary accounts included) and
    /// `customerId` is shown only while it holds, because clients also treat "a customerId
    /// exists" as subscribed and must not see one left over from a revoked subscription.
    pub fn subscription_status(&self, user: &User) -> SubscriptionStatus {
        let active = self.is_subscriber(user);
        SubscriptionStatus {
            is_active: active,
            customer_id: if active {
                user.subscription.customer_id.clone()
            } else {
                None
            },
        }
    }

    /// The user a payment provider's customer id belongs to.
    pub fn user_by_customer(&self, customer_id: &str) -> Result<Option<User>> {
        match self.t.customerid_userid.get(customer_id)? {
            Some(id) => self.user(&String::from_utf8_lossy(&id)),
            None => Ok(None),
        }
    }

    /// Ends the subscription of a provider's customer (the provider cancelled it); answers
    /// the user, or none for a customer this store does not know.
    pub fn end_customer_subscription(&self, customer_id: &str) -> Result<Option<User>> {
        self.writable()?;
        match self.user_by_customer(customer_id)? {
            Some(user) => self.revoke_subscription(&user.id).map(Some),
            None => Ok(None),
        }
    }

    /// Grants a subscription without payment (operators), until a date or until revoked.
    pub fn grant_subscription(&self, user_id: &str, until: Option<DateTime<Utc>>) -> Result<User> {
        self.writable()?;
        self.update_user(user_id, |u| {
            u.subscription.is_active = true;
            u.subscription.until = until;
        })
    }

    /// Ends a subscription now. The customer id is kept for the provider's records, but
    /// with `until` in the past the user is no longer a subscriber.
    pub fn revoke_subscription(&self, user_id: &str) -> Result<User> {
        self.writable()?;
        let now = Utc::now();
        self.update_user(user_id, |u| {
            u.subscription.is_active = false;
            u.subscription.until = Some(now);
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_store;

    #[test]
    fn session_to_active_subscription() {
        let (_d, store) = test_store();
        let u = store
            .create_user("p@example.com", "h".into(), Default::default(), true)
            .unwrap();
        let other = store
            .create_user("o@example.com", "h".into(), Default::default(), true)
            .unwrap();
        store.create_checkout("cs_1", &u.id, "test").unwrap();
        let hour_ago = Utc::now() - chrono::Duration::hours(1);
        assert_eq!(store.count_checkouts_since(&u.id, hour_ago).unwrap(), 1);
        assert_eq!(store.count_checkouts_since(&other.id, hour_ago).unwrap(), 0);
        // Counting from the future prunes the entry.
        assert_eq!(
            store
                .count_checkouts_since(&u.id, Utc::now() + chrono::Duration::hours(1))
                .unwrap(),
            0
        );
        assert!(store.t.userid_checkouts.is_empty());
        assert!(matches!(
            store.create_checkout("cs_1", &u.id, "test"),
            Err(Error::Conflict(_))
        ));
        assert!(matches!(
            store.activate_checkout("cs_1", &u.id),
            Err(Error::Invalid(_))
        ));
        assert!(matches!(
            store.activate_checkout("cs_nope", &u.id),
            Err(Error::NotFound(_))
        ));
        store.mark_checkout_paid("cs_1", "cus_1").unwrap();
        assert!(matches!(
            store.activate_checkout("cs_1", &other.id),
            Err(Error::NotFound(_))
        ));
        let user = store.activate_checkout("cs_1", &u.id).unwrap();
        assert!(user.subscription.is_active);
        assert_eq!(user.subscription.customer_id.as_deref(), Some("cus_1"));
        assert!(store.is_subscriber(&user));
        assert!(
            store
                .checkout("cs_1")
                .unwrap()
                .unwrap()
                .activated_at
                .is_some()
        );
        assert_eq!(store.user_by_customer("cus_1").unwrap().unwrap().id, u.id);
        let ended = store.end_customer_subscription("cus_1").unwrap().unwrap();
        assert!(!store.is_subscriber(&ended));
        assert!(
            store
                .end_customer_subscription("cus_unknown")
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn grant_and_revoke() {
        let (_d, store) = test_store();
        let u = store
            .create_user("g@example.com", "h".into(), Default::default(), true)
            .unwrap();
        assert!(store.is_subscriber(&store.grant_subscription(&u.id, None).unwrap()));
        let mut revoked = store.revoke_subscription(&u.id).unwrap();
        assert!(!store.is_subscriber(&revoked));
        // Even with a customer id from an earlier payment, a revoked user is not a subscriber.
        revoked = store
            .update_user(&u.id, |u| u.subscription.customer_id = Some("cus_9".into()))
            .unwrap();
        assert!(!store.is_subscriber(&revoked));
        assert_eq!(
            store.subscription_status(&revoked),
            SubscriptionStatus {
                is_active: false,
                customer_id: None
            }
        );
        let regranted = store.grant_subscription(&u.id, None).unwrap();
        assert_eq!(
            store.subscription_status(&regranted).customer_id.as_deref(),
            Some("cus_9")
        );
        assert!(matches!(
            store.grant_subscription("nobody", None),
            Err(Error::NotFound(_))
        ));
    }
}
