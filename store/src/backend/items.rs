//! The catalogue of news items: the items, the orders they are listed in, and the
//! ordered log of their changes that search replicas follow.

use chrono::{DateTime, Utc};

use super::Json;
use crate::catalogue::{SortBy, SortOrder};
use crate::{Mark, NewsItem, Result};

/// An item to store: the typed item, for the indexes, and its wire JSON, which every
/// listing serves byte for byte (so a page is assembled without parsing an item).
#[derive(Debug, Clone)]
pub struct StoredItem {
    /// The item.
    pub item: NewsItem,
    /// `item` as JSON.
    pub json: Json,
}

impl StoredItem {
    /// The item with its JSON.
    pub fn new(item: NewsItem) -> Self {
        let json = Json::from(crate::to_json(&item));
        Self { item, json }
    }
}

/// What storing one item did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemWritten {
    /// The item did not exist before.
    pub created: bool,
    /// Its entry in the change log (see [`ItemStore::item_changes`]).
    pub change: u64,
}

/// A place in the newest-first order of items: publication time, then id. A feed
/// cursor is one of these, so it does not depend on how a backend keys its rows.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FeedPosition {
    /// Publication time in milliseconds since the epoch.
    pub published_ms: i64,
    /// The item's id.
    pub id: String,
}

impl FeedPosition {
    /// The position of an item.
    pub fn of(item: &NewsItem) -> Self {
        Self {
            published_ms: item.published_date.timestamp_millis(),
            id: item.id.clone(),
        }
    }
}

/// Which items a page of the newest-first listing holds.
#[derive(Debug, Clone, Copy)]
pub struct NewestQuery<'a> {
    /// Leave out the items this reader marked with one of `leave_out`.
    pub reader: Option<&'a str>,
    /// The marks that take an item out of the reader's listing (the rules' table:
    /// [`Mark::leaves_feed`]).
    pub leave_out: &'a [Mark],
    /// Only items strictly older than this position (the previous page's last).
    pub after: Option<&'a FeedPosition>,
    /// Only items published at or after this time (milliseconds): the reader's read-before
    /// cut-off. The walk stops there, so older items cost nothing.
    pub since_ms: Option<i64>,
    /// At most this many items.
    pub limit: usize,
    /// Leave out the items another item's card stands for: the members of a story that
    /// are not its lead (see [`super::StoryStore`]).
    pub leads_only: bool,
}

/// A page of the newest-first listing.
#[derive(Debug, Clone, Default)]
pub struct NewestPage {
    /// The items' JSON, newest first.
    pub items: Vec<Json>,
    /// The position of the last item, where the next page starts.
    pub last: Option<FeedPosition>,
    /// Whether more items follow the last one.
    pub has_more: bool,
}

/// One entry of the item change log: an item written or removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemChange {
    /// The entry's number; entries are numbered in the order their writes happened.
    pub seq: u64,
    /// The item written or removed (look it up to tell which).
    pub id: String,
}

/// News items and their listings.
#[async_trait::async_trait]
pub trait ItemStore: Send + Sync {
    /// A number that changes whenever any item is written or removed: pages cached
    /// above the backend are kept under it and never served once it has moved on.
    async fn items_version(&self) -> Result<u64>;

    /// One item's JSON.
    async fn item(&self, id: &str) -> Result<Option<Json>>;

    /// Several items' JSON, in the order asked (none where an id is unknown).
    async fn items(&self, ids: &[String]) -> Result<Vec<Option<Json>>>;

    /// Whether the item exists.
    async fn item_exists(&self, id: &str) -> Result<bool>;

    /// How many items exist: kept as a counter, never counted.
    async fn item_count(&self) -> Result<u64>;

    /// The id of the item with this source URL, if any (URLs are unique among items).
    async fn item_id_by_url(&self, url: &str) -> Result<Option<String>>;

    /// Adds or replaces items by id, keeping every listing and the URL lookup in step,
    /// and logs each change (the items of one call may share one change number; a later
    /// call's are greater). Visible on return, and durable once [`super::Backend::flush`]
    /// has returned after it, so that a bulk write pays for one sync. A URL another item
    /// holds is taken over by the written item (the rules match by URL before they
    /// write).
    async fn put_items(&self, items: &[StoredItem]) -> Result<Vec<ItemWritten>>;

    /// Removes an item with every reader's marks of it; answers it and its change log
    /// entry, or none when it did not exist. Durable on return.
    async fn remove_item(&self, id: &str) -> Result<Option<(NewsItem, u64)>>;

    /// A page of items newest first (publication time, then id, descending).
    async fn newest(&self, query: NewestQuery<'_>) -> Result<NewestPage>;

    /// How many items [`ItemStore::newest`] lists for `query` over all its pages (`after`
    /// and `limit` are ignored). Used only with a `since_ms` cut-off: it walks the items
    /// since then, so it costs what that span holds, not the whole store.
    async fn count_newest(&self, query: NewestQuery<'_>) -> Result<u64>;

    /// Page `offset / limit` of the whole catalogue in the given order (the public API).
    async fn catalogue(
        &self,
        sort: SortBy,
        order: SortOrder,
        offset: u64,
        limit: u64,
    ) -> Result<Vec<Json>>;

    /// The items published in `[from, to)`, oldest first (a weekly summary's week).
    async fn published_between(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> Result<Vec<Json>>;

    /// Up to `limit` items in id order after `after`: a walk over every item in pages
    /// (rebuilding the search index, moving an install).
    async fn items_after(&self, after: Option<&str>, limit: usize) -> Result<Vec<Json>>;

    /// Change log entries after `after`, oldest first, about `limit` (entries sharing a
    /// number come together, so a page may run past it): what a search replica has not
    /// applied yet. A backend may keep only the entries not yet
    /// forgotten (see [`ItemStore::forget_item_changes`]).
    async fn item_changes(&self, after: u64, limit: usize) -> Result<Vec<ItemChange>>;

    /// Says that the search index has committed these entries: a backend with one
    /// replica (sled) deletes them; a shared one keeps them for the other replicas.
    async fn forget_item_changes(&self, seqs: &[u64]) -> Result<()>;

    /// The last number pruned from a shared change log (entries older than its
    /// retention go, whether every replica applied them or not): a replica whose
    /// position is before it cannot follow the log and must be rebuilt from the items.
    /// A log that only forgets what its one replica applied is never pruned: 0.
    async fn change_log_pruned_through(&self) -> Result<u64> {
        Ok(0)
    }
}
