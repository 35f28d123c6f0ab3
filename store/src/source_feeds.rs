//! Subscribed source feeds (RSS, Atom, JSON Feed) and their polling state.
//!
//! A feed's id is derived from its URL, so adding the same URL twice is a conflict rather
//! than a second feed. Each feed remembers what the conditional GET needs (ETag and
//! Last-Modified), its last error, its run of consecutive failures and when it is next
//! due; the daemon's scheduler reads only this. Entries a feed delivered are remembered by
//! guid, so an entry whose URL changes still updates its item.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::{Error, ImportOutcome, NewItem, Result, Store};

/// A source feed and its polling state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Feed {
    /// Short stable id derived from the URL.
    pub id: String,
    /// Where the feed document lives (http or https).
    pub url: String,
    /// Display name given by the operator, or the feed's own title once fetched.
    #[serde(default)]
    pub name: Option<String>,
    /// When the feed was added.
    pub added_at: DateTime<Utc>,
    /// The validator of the last successful answer, sent back as If-None-Match.
    #[serde(default)]
    pub etag: Option<String>,
    /// The Last-Modified of the last successful answer, sent back as If-Modified-Since.
    #[serde(default)]
    pub last_modified: Option<String>,
    /// When the feed was last fetched, successfully or not.
    #[serde(default)]
    pub last_fetched_at: Option<DateTime<Utc>>,
    /// The last error, cleared by the next success.
    #[serde(default)]
    pub last_error: Option<String>,
    /// Consecutive failed fetches (drives the back-off).
    #[serde(default)]
    pub failures: u32,
    /// When the scheduler fetches it next; none means at once.
    #[serde(default)]
    pub next_due: Option<DateTime<Utc>>,
    /// Why it is next due then: `interval`, `max-age` (the source's Cache-Control),
    /// `retry-after` (the source's answer to a 429 or 503) or `backoff` (failures).
    #[serde(default)]
    pub next_due_reason: Option<String>,
    /// How many entries it has delivered in all (new items only).
    #[serde(default)]
    pub items_added: u64,
}

/// The id of a feed URL: the first 6 bytes of its SHA-256, in hex.
fn feed_id(url: &str) -> String {
    hex::encode(&Sha256::digest(url.as_bytes())[..6])
}

/// Checks a feed URL: absolute http or https.
pub fn validate_feed_url(url: &str) -> Result<String> {
    let u = url.trim();
    let parsed = url::Url::parse(u)
        .map_err(|e| Error::Invalid(format!("feed url {u:?} is not valid: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(Error::Invalid(format!(
            "feed url {u:?} must be http or https"
        )));
    }
    Ok(parsed.to_string())
}

impl Store {
    /// Adds a feed; a URL already added is a conflict. Durable on return.
    pub async fn add_feed(&self, url: &str, name: Option<String>) -> Result<Feed> {
        let url = validate_feed_url(url)?;
        let name = name.map(|n| n.trim().to_string()).filter(|n| !n.is_empty());
        let feed = Feed {
            id: feed_id(&url),
            url,
            name,
            added_at: Utc::now(),
            etag: None,
            last_modified: None,
            last_fetched_at: None,
            last_error: None,
            failures: 0,
            next_due: None,
            next_due_reason: None,
            items_added: 0,
        };
        self.backend().insert_feed(&feed).await?;
        Ok(feed)
    }

    /// Every feed, in the order they were added.
    pub async fn feeds(&self) -> Result<Vec<Feed>> {
        self.backend().feeds().await
    }

    /// One feed by id.
    pub async fn feed(&self, id: &str) -> Result<Option<Feed>> {
        self.backend().feed(id).await
    }

    /// One feed by URL.
    pub async fn feed_by_url(&self, url: &str) -> Result<Option<Feed>> {
        let Ok(url) = validate_feed_url(url) else {
            return Ok(None);
        };
        self.backend().feed_by_url(&url).await
    }

    /// Removes a feed and its guid memory; the items it delivered stay. Durable on return.
    pub async fn remove_feed(&self, id: &str) -> Result<Feed> {
        self.backend()
            .remove_feed(id)
            .await?
            .ok_or(Error::NotFound("feed"))
    }

    /// Applies `change` to a feed's record atomically (polling state, name) and returns it.
    pub async fn update_feed(
        &self,
        id: &str,
        change: impl Fn(&mut Feed) + Send + Sync,
    ) -> Result<Feed> {
        self.backend().update_feed(id, &mut |f| change(f)).await
    }

    /// Takes up to `limit` due feeds that no fetcher holds, holding them until `until`
    /// or their next update: so each due feed is fetched once, by this process or
    /// another sharing the backend.
    pub async fn lease_due_feeds(
        &self,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<Feed>> {
        self.backend().lease_due_feeds(now, until, limit).await
    }

    /// Stores one entry of a feed: the item it delivered before under the same guid is
    /// updated (even when its URL changed), else the item with the same URL, else a new
    /// one. Unchanged entries are not rewritten. Durable on return.
    ///
    /// An entry without a date of its own (`dated` false) keeps the date its item got when
    /// first seen, so it does not move to the top of the feed on every fetch.
    ///
    /// The item write and the guid record are two steps; if the process dies between them
    /// the next fetch finds the item by URL and records the guid then.
    pub async fn upsert_feed_entry(
        &self,
        feed_id: &str,
        guid: &str,
        mut item: NewItem,
        dated: bool,
    ) -> Result<ImportOutcome> {
        if item.id.is_none()
            && let Some(id) = self.backend().entry_item(feed_id, guid).await?
            && self.item_exists(&id).await?
        {
            item.id = Some(id);
        }
        if !dated && let Some(old) = self.existing_item(&item).await? {
            item.published_date = old.published_date;
        }
        let outcome = self.import_item(item).await?;
        self.backend()
            .put_entry_item(feed_id, guid, &outcome.id)
            .await?;
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ImportStatus;
    use crate::items::tests::new_item;
    use crate::testing::store_tests;

    store_tests! {
        async fn adding_twice_is_a_conflict_and_remove_forgets_guids(store) {
            let f = store
                .add_feed("https://blog.example/feed.xml", Some(" Blog ".into()))
                .await
                .unwrap();
            assert_eq!(f.name.as_deref(), Some("Blog"));
            assert!(matches!(
                store.add_feed("https://blog.example/feed.xml", None).await,
                Err(Error::Conflict(_))
            ));
            assert!(store.add_feed("ftp://x/y", None).await.is_err());
            assert_eq!(
                store
                    .feed_by_url("https://blog.example/feed.xml")
                    .await
                    .unwrap()
                    .unwrap()
                    .id,
                f.id
            );
            store
                .upsert_feed_entry(
                    &f.id,
                    "g1",
                    new_item("A", Some("https://blog.example/a"), "2026-01-01T00:00:00Z"),
                    true,
                )
                .await
                .unwrap();
            store.remove_feed(&f.id).await.unwrap();
            if let Some(engine) = store.internals() {
                assert!((engine.index_len("feedguid_itemid") == 0) && (engine.index_len("feedurl_feedid") == 0));
            }
            assert_eq!(
                store.item_count().await.unwrap(),
                1,
                "items stay when their feed goes"
            );
            assert!(matches!(
                store.remove_feed(&f.id).await,
                Err(Error::NotFound("feed"))
            ));
        }

        async fn same_guid_updates_even_when_the_url_changes(store) {
            let f = store
                .add_feed("https://blog.example/feed.xml", None)
                .await
                .unwrap();
            let a = store
                .upsert_feed_entry(
                    &f.id,
                    "g1",
                    new_item("A", Some("https://blog.example/a"), "2026-01-01T00:00:00Z"),
                    true,
                )
                .await
                .unwrap();
            assert_eq!(a.status, ImportStatus::Added);
            let again = store
                .upsert_feed_entry(
                    &f.id,
                    "g1",
                    new_item("A", Some("https://blog.example/a"), "2026-01-01T00:00:00Z"),
                    true,
                )
                .await
                .unwrap();
            assert_eq!(again.status, ImportStatus::Unchanged);
            let moved = store
                .upsert_feed_entry(
                    &f.id,
                    "g1",
                    new_item(
                        "A",
                        Some("https://blog.example/a?x=1"),
                        "2026-01-01T00:00:00Z",
                    ),
                    true,
                )
                .await
                .unwrap();
            assert_eq!(
                (moved.status, moved.id.as_str()),
                (ImportStatus::Updated, a.id.as_str())
            );
            assert_eq!(store.item_count().await.unwrap(), 1);
        }

        async fn undated_entries_keep_their_first_date(store) {
            let f = store
                .add_feed("https://blog.example/feed.xml", None)
                .await
                .unwrap();
            let url = Some("https://blog.example/a");
            let first = store
                .upsert_feed_entry(
                    &f.id,
                    "g",
                    new_item("A", url, "2026-01-01T00:00:00Z"),
                    false,
                )
                .await
                .unwrap();
            let again = store
                .upsert_feed_entry(
                    &f.id,
                    "g",
                    new_item("A", url, "2026-03-01T00:00:00Z"),
                    false,
                )
                .await
                .unwrap();
            assert_eq!(again.status, ImportStatus::Unchanged);
            assert_eq!(
                store
                    .item(&first.id)
                    .await
                    .unwrap()
                    .unwrap()
                    .published_date
                    .to_rfc3339(),
                "2026-01-01T00:00:00+00:00"
            );
        }
    }
}
