//! The premium waitlist (docs/product.md §1 and §2): while subscriptions are closed, users
//! join it; an operator later approves them, which grants the subscription.
//!
//! Joining is idempotent and keeps the first join date. `waitlist` holds one entry per
//! user; `joined_userid` orders them by join time so operators list them in join order
//! without sorting every entry.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::users::User;
use crate::{Error, Result, Store};
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
    /// Puts the user on the waitlist; joining again keeps the first join date.
    pub async fn join_waitlist(&self, user: &User) -> Result<WaitlistEntry> {
        let fresh = WaitlistEntry {
            user_id: user.id.clone(),
            email: user.email.clone(),
            joined_at: Utc::now(),
            approved_at: None,
        };
        self.backend().join_waitlist(&fresh).await
    }

    /// The user's waitlist entry.
    pub async fn waitlist_entry(&self, user_id: &str) -> Result<Option<WaitlistEntry>> {
        self.backend().waitlist_entry(user_id).await
    }

    /// Whether the user is on the waitlist and since when.
    pub async fn waitlist_status(&self, user_id: &str) -> Result<WaitlistStatus> {
        Ok(WaitlistEntry::status(
            self.waitlist_entry(user_id).await?.as_ref(),
        ))
    }

    /// Every entry, in join order.
    pub async fn waitlist(&self) -> Result<Vec<WaitlistEntry>> {
        self.backend().waitlist().await
    }

    /// Takes the user off the waitlist.
    pub async fn remove_from_waitlist(&self, user_id: &str) -> Result<WaitlistEntry> {
        self.backend()
            .remove_waitlist_entry(user_id)
            .await?
            .ok_or(Error::NotFound("waitlist entry"))
    }

    /// Approves an entry: grants the subscription (until a date, or until revoked), then
    /// marks the entry approved. (A crash between the two leaves a subscriber whose entry
    /// the next approval marks.)
    pub async fn approve_waitlist(
        &self,
        user_id: &str,
        until: Option<DateTime<Utc>>,
    ) -> Result<WaitlistEntry> {
        if self.waitlist_entry(user_id).await?.is_none() {
            return Err(Error::NotFound("waitlist entry"));
        }
        self.grant_subscription(user_id, until).await?;
        self.backend()
            .approve_waitlist_entry(user_id, Utc::now())
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::store_tests;

    store_tests! {
        async fn joining_twice_keeps_the_first_date(store) {
            let u = store
                .create_user("w@example.com", "h".into(), Default::default(), true)
                .await
                .unwrap();
            assert!(!store.waitlist_status(&u.id).await.unwrap().is_on_waitlist);
            let first = store.join_waitlist(&u).await.unwrap();
            std::thread::sleep(std::time::Duration::from_millis(5));
            let second = store.join_waitlist(&u).await.unwrap();
            assert_eq!(first.joined_at, second.joined_at);
            let status = store.waitlist_status(&u.id).await.unwrap();
            assert!(status.is_on_waitlist);
            assert_eq!(status.joined_at, Some(first.joined_at));
            if let Some(engine) = store.internals() {
                assert_eq!(engine.index_len("joined_userid"), 1);
            }
        }

        async fn listing_is_in_join_order_and_remove_clears_both_trees(store) {
            let a = store
                .create_user("a@example.com", "h".into(), Default::default(), true)
                .await
                .unwrap();
            let b = store
                .create_user("b@example.com", "h".into(), Default::default(), true)
                .await
                .unwrap();
            store.join_waitlist(&b).await.unwrap();
            std::thread::sleep(std::time::Duration::from_millis(5));
            store.join_waitlist(&a).await.unwrap();
            let order: Vec<_> = store
                .waitlist()
                .await
                .unwrap()
                .into_iter()
                .map(|e| e.email)
                .collect();
            assert_eq!(order, ["b@example.com", "a@example.com"]);
            store.remove_from_waitlist(&b.id).await.unwrap();
            assert!(matches!(
                store.remove_from_waitlist(&b.id).await,
                Err(Error::NotFound(_))
            ));
            assert_eq!(store.waitlist().await.unwrap().len(), 1);
            if let Some(engine) = store.internals() {
                assert_eq!(engine.index_len("joined_userid"), 1);
            }
        }

        async fn approval_grants_the_subscription_and_keeps_dates(store) {
            let u = store
                .create_user("w@example.com", "h".into(), Default::default(), true)
                .await
                .unwrap();
            assert!(matches!(
                store.approve_waitlist(&u.id, None).await,
                Err(Error::NotFound(_))
            ));
            let joined = store.join_waitlist(&u).await.unwrap();
            let approved = store.approve_waitlist(&u.id, None).await.unwrap();
            assert_eq!(approved.joined_at, joined.joined_at);
            let at = approved.approved_at.unwrap();
            assert_eq!(
                store
                    .approve_waitlist(&u.id, None)
                    .await
                    .unwrap()
                    .approved_at,
                Some(at)
            );
            assert!(store.is_subscriber(&store.user(&u.id).await.unwrap().unwrap()));
        }
    }
}
