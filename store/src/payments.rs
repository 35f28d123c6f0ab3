//! Checkout sessions and the subscriptions they activate (docs/product.md §2 and §7).
//!
//! The daemon's payment provider (its own test checkout, or Stripe) creates a session;
//! the store remembers whose it is, so verifying a session of another user fails, and
//! activation sets the subscription and customer id of the owner in one step. Operators
//! grant and revoke subscriptions with the helpers at the end.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::users::User;
use crate::{Error, Result, Store};
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
    /// Records a checkout session the provider created for `user_id`. An id that exists
    /// is a conflict.
    pub async fn create_checkout(
        &self,
        id: &str,
        user_id: &str,
        provider: &str,
    ) -> Result<CheckoutSession> {
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
        self.backend().insert_checkout(&session).await?;
        Ok(session)
    }

    /// How many checkout sessions the user created since `since` (the rate limit of
    /// checkouts).
    pub async fn count_checkouts_since(
        &self,
        user_id: &str,
        since: DateTime<Utc>,
    ) -> Result<usize> {
        self.backend().count_checkouts_since(user_id, since).await
    }

    /// One checkout session.
    pub async fn checkout(&self, id: &str) -> Result<Option<CheckoutSession>> {
        self.backend().checkout(id).await
    }

    /// Records that the provider says a session was paid, with its customer id (kept
    /// once set).
    pub async fn mark_checkout_paid(&self, id: &str, customer_id: &str) -> Result<CheckoutSession> {
        let now = Utc::now();
        self.backend()
            .update_checkout(id, &mut |s| {
                if s.status != CheckoutStatus::Paid {
                    s.status = CheckoutStatus::Paid;
                    s.paid_at = Some(now);
                }
                if !customer_id.is_empty() {
                    s.customer_id.get_or_insert_with(|| customer_id.to_string());
                }
                Ok(())
            })
            .await
    }

    /// Activates the subscription a paid session of `user_id` bought: the user's
    /// subscription and customer id are set, then the session marked activated. A
    /// session of another user is not found; an unpaid one is refused. (A crash between
    /// the two steps leaves an active subscription whose session is activated again by
    /// the next verification.)
    pub async fn activate_checkout(&self, id: &str, user_id: &str) -> Result<User> {
        let now = Utc::now();
        let session = self
            .checkout(id)
            .await?
            .filter(|s| s.user_id == user_id)
            .ok_or(Error::NotFound("checkout session"))?;
        if session.status != CheckoutStatus::Paid {
            return Err(Error::Invalid(
                "This checkout session has not been paid yet.".into(),
            ));
        }
        let user = self
            .backend()
            .update_user(user_id, &mut |u| {
                u.subscription.is_active = true;
                u.subscription.until = None;
                if let Some(c) = &session.customer_id {
                    u.subscription.customer_id = Some(c.clone());
                }
                u.updated_at = now;
                Ok(())
            })
            .await?;
        self.backend()
            .update_checkout(id, &mut |s| {
                s.activated_at.get_or_insert(now);
                Ok(())
            })
            .await?;
        Ok(user)
    }

    /// The subscription object clients read (`GET /api/user/metadata`): active by the
    /// subscriber rule, with the customer id while active.
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

    /// The user whose subscription has this provider customer id.
    pub async fn user_by_customer(&self, customer_id: &str) -> Result<Option<User>> {
        Ok(self
            .backend()
            .user_by_customer(customer_id)
            .await?
            .map(std::sync::Arc::unwrap_or_clone))
    }

    /// Ends the subscription of the provider's customer (a cancellation).
    pub async fn end_customer_subscription(&self, customer_id: &str) -> Result<Option<User>> {
        match self.user_by_customer(customer_id).await? {
            Some(user) => self.revoke_subscription(&user.id).await.map(Some),
            None => Ok(None),
        }
    }

    /// Grants a subscription (an operator's), until a date or until revoked.
    pub async fn grant_subscription(
        &self,
        user_id: &str,
        until: Option<DateTime<Utc>>,
    ) -> Result<User> {
        self.update_user(user_id, |u| {
            u.subscription.is_active = true;
            u.subscription.until = until;
        })
        .await
    }

    /// Ends a subscription now.
    pub async fn revoke_subscription(&self, user_id: &str) -> Result<User> {
        let now = Utc::now();
        self.update_user(user_id, |u| {
            u.subscription.is_active = false;
            u.subscription.until = Some(now);
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::store_tests;

    store_tests! {
        async fn session_to_active_subscription(store) {
            let u = store
                .create_user("p@example.com", "h".into(), Default::default(), true)
                .await
                .unwrap();
            let other = store
                .create_user("o@example.com", "h".into(), Default::default(), true)
                .await
                .unwrap();
            store.create_checkout("cs_1", &u.id, "test").await.unwrap();
            let hour_ago = Utc::now() - chrono::Duration::hours(1);
            assert_eq!(
                store.count_checkouts_since(&u.id, hour_ago).await.unwrap(),
                1
            );
            assert_eq!(
                store
                    .count_checkouts_since(&other.id, hour_ago)
                    .await
                    .unwrap(),
                0
            );
            // Counting from the future prunes the entry.
            assert_eq!(
                store
                    .count_checkouts_since(&u.id, Utc::now() + chrono::Duration::hours(1))
                    .await
                    .unwrap(),
                0
            );
            if let Some(engine) = store.internals() {
                assert!((engine.index_len("userid_checkouts") == 0));
            }
            assert!(matches!(
                store.create_checkout("cs_1", &u.id, "test").await,
                Err(Error::Conflict(_))
            ));
            assert!(matches!(
                store.activate_checkout("cs_1", &u.id).await,
                Err(Error::Invalid(_))
            ));
            assert!(matches!(
                store.activate_checkout("cs_nope", &u.id).await,
                Err(Error::NotFound(_))
            ));
            store.mark_checkout_paid("cs_1", "cus_1").await.unwrap();
            assert!(matches!(
                store.activate_checkout("cs_1", &other.id).await,
                Err(Error::NotFound(_))
            ));
            let user = store.activate_checkout("cs_1", &u.id).await.unwrap();
            assert!(user.subscription.is_active);
            assert_eq!(user.subscription.customer_id.as_deref(), Some("cus_1"));
            assert!(store.is_subscriber(&user));
            assert!(
                store
                    .checkout("cs_1")
                    .await
                    .unwrap()
                    .unwrap()
                    .activated_at
                    .is_some()
            );
            assert_eq!(
                store.user_by_customer("cus_1").await.unwrap().unwrap().id,
                u.id
            );
            let ended = store
                .end_customer_subscription("cus_1")
                .await
                .unwrap()
                .unwrap();
            assert!(!store.is_subscriber(&ended));
            assert!(
                store
                    .end_customer_subscription("cus_unknown")
                    .await
                    .unwrap()
                    .is_none()
            );
        }

        async fn grant_and_revoke(store) {
            let u = store
                .create_user("g@example.com", "h".into(), Default::default(), true)
                .await
                .unwrap();
            assert!(store.is_subscriber(&store.grant_subscription(&u.id, None).await.unwrap()));
            let mut revoked = store.revoke_subscription(&u.id).await.unwrap();
            assert!(!store.is_subscriber(&revoked));
            // Even with a customer id from an earlier payment, a revoked user is not a subscriber.
            revoked = store
                .update_user(&u.id, |u| u.subscription.customer_id = Some("cus_9".into()))
                .await
                .unwrap();
            assert!(!store.is_subscriber(&revoked));
            assert_eq!(
                store.subscription_status(&revoked),
                SubscriptionStatus {
                    is_active: false,
                    customer_id: None
                }
            );
            let regranted = store.grant_subscription(&u.id, None).await.unwrap();
            assert_eq!(
                store.subscription_status(&regranted).customer_id.as_deref(),
                Some("cus_9")
            );
            assert!(matches!(
                store.grant_subscription("nobody", None).await,
                Err(Error::NotFound(_))
            ));
        }
    }
}
