//! Source feeds, the entries they delivered and the scheduler's leases in memory.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::MemoryBackend;
use crate::backend::SourceStore;
use crate::{Error, Feed, Result};

/// `crate::backend`'s rule type of `update_feed`, which it does not export (see
/// `billing.rs`).
type FeedChange<'a> = dyn FnMut(&mut Feed) + Send + 'a;

/// Feeds by id and URL, entries by feed and guid, leases by feed.
#[derive(Default)]
pub(super) struct Sources {
    feeds: HashMap<String, Feed>,
    by_url: HashMap<String, String>,
    entries: HashMap<(String, String), String>,
    /// Feed id -> the end of the lease a fetcher holds on it.
    leases: HashMap<String, DateTime<Utc>>,
}

impl Sources {
    fn url_taken(&self, url: &str, by_other_than: &str) -> Result<()> {
        match self.by_url.get(url) {
            Some(id) if id != by_other_than => {
                Err(Error::Conflict(format!("the feed {url} is already added")))
            }
            _ => Ok(()),
        }
    }
}

#[async_trait::async_trait]
impl SourceStore for MemoryBackend {
    async fn insert_feed(&self, feed: &Feed) -> Result<()> {
        let mut state = self.lock();
        let sources = &mut state.sources;
        if sources.feeds.contains_key(&feed.id) {
            return Err(Error::Conflict(format!("feed {} already exists", feed.id)));
        }
        sources.url_taken(&feed.url, &feed.id)?;
        sources.by_url.insert(feed.url.clone(), feed.id.clone());
        sources.feeds.insert(feed.id.clone(), feed.clone());
        Ok(())
    }

    async fn feed(&self, id: &str) -> Result<Option<Feed>> {
        Ok(self.lock().sources.feeds.get(id).cloned())
    }

    async fn feed_by_url(&self, url: &str) -> Result<Option<Feed>> {
        let state = self.lock();
        let sources = &state.sources;
        Ok(sources
            .by_url
            .get(url)
            .and_then(|id| sources.feeds.get(id))
            .cloned())
    }

    async fn feeds(&self) -> Result<Vec<Feed>> {
        let state = self.lock();
        let mut feeds: Vec<Feed> = state.sources.feeds.values().cloned().collect();
        feeds.sort_by(|a, b| a.added_at.cmp(&b.added_at).then_with(|| a.id.cmp(&b.id)));
        Ok(feeds)
    }

    async fn update_feed(&self, id: &str, change: &mut FeedChange<'_>) -> Result<Feed> {
        let mut state = self.lock();
        let sources = &mut state.sources;
        let old = sources.feeds.get(id).ok_or(Error::NotFound("feed"))?;
        let (old_url, old_due) = (old.url.clone(), old.next_due);
        let mut feed = old.clone();
        change(&mut feed);
        feed.id = id.to_string();
        if feed.url != old_url {
            sources.url_taken(&feed.url, id)?;
            sources.by_url.remove(&old_url);
            sources.by_url.insert(feed.url.clone(), id.to_string());
        }
        // A new due time is the fetcher's report: the feed's lease ends with it.
        if feed.next_due != old_due {
            sources.leases.remove(id);
        }
        sources.feeds.insert(id.to_string(), feed.clone());
        Ok(feed)
    }

    async fn remove_feed(&self, id: &str) -> Result<Option<Feed>> {
        let mut state = self.lock();
        let sources = &mut state.sources;
        let Some(feed) = sources.feeds.remove(id) else {
            return Ok(None);
        };
        sources.by_url.remove(&feed.url);
        sources.entries.retain(|(f, _), _| f != id);
        sources.leases.remove(id);
        Ok(Some(feed))
    }

    async fn entry_item(&self, feed_id: &str, guid: &str) -> Result<Option<String>> {
        let state = self.lock();
        let key = (feed_id.to_string(), guid.to_string());
        Ok(state.sources.entries.get(&key).cloned())
    }

    async fn put_entry_item(&self, feed_id: &str, guid: &str, item_id: &str) -> Result<()> {
        let mut state = self.lock();
        let key = (feed_id.to_string(), guid.to_string());
        state.sources.entries.insert(key, item_id.to_string());
        Ok(())
    }

    async fn lease_due_feeds(
        &self,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<Feed>> {
        let mut state = self.lock();
        let sources = &mut state.sources;
        let mut due: Vec<&Feed> = sources
            .feeds
            .values()
            .filter(|f| f.next_due.is_none_or(|at| at <= now))
            .filter(|f| sources.leases.get(&f.id).is_none_or(|end| *end <= now))
            .collect();
        // Never fetched first, then the longest overdue.
        due.sort_by(|a, b| (a.next_due, a.added_at, &a.id).cmp(&(b.next_due, b.added_at, &b.id)));
        let taken: Vec<Feed> = due.into_iter().take(limit).cloned().collect();
        for feed in &taken {
            sources.leases.insert(feed.id.clone(), until);
        }
        Ok(taken)
    }
}
