//! Source feeds (RSS, Atom, JSON Feed), their polling state, and the entries they
//! delivered.

use chrono::{DateTime, Utc};

use crate::{Feed, Result};

/// A rule that changes a feed's record in place.
pub type FeedChange<'a> = dyn FnMut(&mut Feed) + Send + 'a;

/// Source feeds.
#[async_trait::async_trait]
pub trait SourceStore: Send + Sync {
    /// Adds a feed; a URL another feed has is `Error::Conflict`.
    async fn insert_feed(&self, feed: &Feed) -> Result<()>;

    /// One feed.
    async fn feed(&self, id: &str) -> Result<Option<Feed>>;

    /// The feed with this (normalised) URL.
    async fn feed_by_url(&self, url: &str) -> Result<Option<Feed>>;

    /// Every feed, in the order they were added.
    async fn feeds(&self) -> Result<Vec<Feed>>;

    /// Applies `change` to a feed atomically; an unknown id is `Error::NotFound("feed")`.
    async fn update_feed(&self, id: &str, change: &mut FeedChange<'_>) -> Result<Feed>;

    /// Removes a feed with the record of its entries (the items stay); answers it, or
    /// none when it did not exist.
    async fn remove_feed(&self, id: &str) -> Result<Option<Feed>>;

    /// The item a feed's entry (by guid) became, if it is remembered.
    async fn entry_item(&self, feed_id: &str, guid: &str) -> Result<Option<String>>;

    /// Remembers the item a feed's entry became.
    async fn put_entry_item(&self, feed_id: &str, guid: &str, item_id: &str) -> Result<()>;

    /// Takes up to `limit` feeds due at `now` that no one else holds, and holds them
    /// until `until` (or until their next update): the scheduler's lease, so that each
    /// due feed is fetched by one fetcher, in this process or another.
    async fn lease_due_feeds(
        &self,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<Feed>>;
}
