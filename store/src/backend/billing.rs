//! Checkout sessions of the payment provider, and the premium waitlist.

use chrono::{DateTime, Utc};

use crate::{CheckoutSession, Result, WaitlistEntry};

/// A rule that changes a checkout session in place (or refuses with an error).
pub type CheckoutChange<'a> = dyn FnMut(&mut CheckoutSession) -> Result<()> + Send + 'a;

/// Checkouts and the waitlist.
#[async_trait::async_trait]
pub trait BillingStore: Send + Sync {
    /// Adds a checkout session; an id that exists is `Error::Conflict`.
    async fn insert_checkout(&self, checkout: &CheckoutSession) -> Result<()>;

    /// One checkout session.
    async fn checkout(&self, id: &str) -> Result<Option<CheckoutSession>>;

    /// Applies `change` to a checkout session atomically; an unknown id is
    /// `Error::NotFound("checkout session")`.
    async fn update_checkout(
        &self,
        id: &str,
        change: &mut CheckoutChange<'_>,
    ) -> Result<CheckoutSession>;

    /// How many checkout sessions the user created since `since` (a backend may forget
    /// older ones as it counts).
    async fn count_checkouts_since(&self, user_id: &str, since: DateTime<Utc>) -> Result<usize>;

    /// Puts the user on the waitlist, unless they are on it: answers the entry kept
    /// (the first join wins, so its date stays).
    async fn join_waitlist(&self, entry: &WaitlistEntry) -> Result<WaitlistEntry>;

    /// The user's waitlist entry.
    async fn waitlist_entry(&self, user_id: &str) -> Result<Option<WaitlistEntry>>;

    /// Every entry, in join order.
    async fn waitlist(&self) -> Result<Vec<WaitlistEntry>>;

    /// Sets the approval time of an entry that has none; an unknown entry is
    /// `Error::NotFound("waitlist entry")`. Answers the entry.
    async fn approve_waitlist_entry(
        &self,
        user_id: &str,
        at: DateTime<Utc>,
    ) -> Result<WaitlistEntry>;

    /// Removes the user's entry; answers it, or none when there was none.
    async fn remove_waitlist_entry(&self, user_id: &str) -> Result<Option<WaitlistEntry>>;
}
