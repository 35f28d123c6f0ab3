//! Source feeds in sled: `feeds` by id, `feedurl_feedid` by URL, `feedguid_itemid` by
//! feed and entry guid. Leases of due feeds are kept in memory: sled's lock lets one
//! process poll.

use chrono::{DateTime, Utc};
use sled::Transactional;

use super::{SledBackend, from_json, keys, to_json};
use crate::backend::{FeedChange, SourceStore};
use crate::{Error, Feed, Result};

#[async_trait::async_trait]
impl SourceStore for SledBackend {
    async fn insert_feed(&self, feed: &Feed) -> Result<()> {
        self.writable()?;
        let url = &feed.url;
        (&self.t.feeds, &self.t.feedurl_feedid).transaction(|(feeds, urls)| {
            if urls.get(url.as_bytes())?.is_some() {
                return Err(Error::Conflict(format!("the feed {url} is already added")).into());
            }
            urls.insert(url.as_bytes(), feed.id.as_bytes())?;
            feeds.insert(feed.id.as_bytes(), to_json(feed))?;
            Ok(())
        })?;
        self.sync()
    }

    async fn feed(&self, id: &str) -> Result<Option<Feed>> {
        self.t.feeds.get(id)?.map(|v| from_json(&v)).transpose()
    }

    async fn feed_by_url(&self, url: &str) -> Result<Option<Feed>> {
        match self.t.feedurl_feedid.get(url)? {
            Some(id) => self.feed(&String::from_utf8_lossy(&id)).await,
            None => Ok(None),
        }
    }

    async fn feeds(&self) -> Result<Vec<Feed>> {
        let mut out: Vec<Feed> = self
            .t
            .feeds
            .iter()
            .values()
            .map(|v| from_json(&v?))
            .collect::<Result<_>>()?;
        out.sort_by(|a, b| a.added_at.cmp(&b.added_at).then_with(|| a.id.cmp(&b.id)));
        Ok(out)
    }

    async fn update_feed(&self, id: &str, change: &mut FeedChange<'_>) -> Result<Feed> {
        self.writable()?;
        let change = std::cell::RefCell::new(change);
        let (updated, rescheduled) = self.t.feeds.transaction(|feeds| {
            let Some(raw) = feeds.get(id.as_bytes())? else {
                return Err(Error::NotFound("feed").into());
            };
            let mut feed: Feed = from_json(&raw)?;
            let due = feed.next_due;
            (change.borrow_mut())(&mut feed);
            feeds.insert(id.as_bytes(), to_json(&feed))?;
            Ok((feed.clone(), feed.next_due != due))
        })?;
        // A new due time is a fetcher's report: its lease ends. Other edits (a name)
        // leave a fetch under way alone.
        if rescheduled {
            self.coordination.release_feed(id);
        }
        self.sync()?;
        Ok(updated)
    }

    async fn remove_feed(&self, id: &str) -> Result<Option<Feed>> {
        self.writable()?;
        let Some(feed) = self.feed(id).await? else {
            return Ok(None);
        };
        let guids: Vec<_> = self
            .t
            .feedguid_itemid
            .scan_prefix(keys::prefix(id))
            .keys()
            .collect::<std::result::Result<_, _>>()?;
        (
            &self.t.feeds,
            &self.t.feedurl_feedid,
            &self.t.feedguid_itemid,
        )
            .transaction(|(feeds, urls, guids_tree)| {
                feeds.remove(id.as_bytes())?;
                urls.remove(feed.url.as_bytes())?;
                for g in &guids {
                    guids_tree.remove(g)?;
                }
                Ok::<_, sled::transaction::ConflictableTransactionError<Error>>(())
            })?;
        self.coordination.release_feed(id);
        self.sync()?;
        Ok(Some(feed))
    }

    async fn entry_item(&self, feed_id: &str, guid: &str) -> Result<Option<String>> {
        Ok(self
            .t
            .feedguid_itemid
            .get(keys::join(feed_id.as_bytes(), guid.as_bytes()))?
            .map(|v| String::from_utf8_lossy(&v).into_owned()))
    }

    async fn put_entry_item(&self, feed_id: &str, guid: &str, item_id: &str) -> Result<()> {
        self.writable()?;
        let key = keys::join(feed_id.as_bytes(), guid.as_bytes());
        if self.t.feedguid_itemid.get(&key)?.as_deref() != Some(item_id.as_bytes()) {
            self.t.feedguid_itemid.insert(key, item_id.as_bytes())?;
            self.sync()?;
        }
        Ok(())
    }

    async fn lease_due_feeds(
        &self,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<Feed>> {
        let due = self
            .feeds()
            .await?
            .into_iter()
            .filter(|f| f.next_due.is_none_or(|d| d <= now));
        Ok(self.coordination.lease_feeds(due, now, until, limit))
    }
}
