//! The catalogue in memory: items by id, the orders they are listed in, the URL lookup
//! and the change log.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Bound;

use chrono::{DateTime, Utc};

use super::MemoryBackend;
use crate::backend::{
    FeedPosition, ItemChange, ItemStore, ItemWritten, Json, NewestPage, NewestQuery, StoredItem,
};
use crate::catalogue::{SortBy, SortOrder};
use crate::{NewsItem, Result};

/// The items and their indexes.
#[derive(Default)]
pub(super) struct Items {
    by_id: BTreeMap<String, StoredItem>,
    /// Publication order (oldest first; listings walk it backwards).
    by_position: BTreeSet<FeedPosition>,
    /// Title order: the lower-cased title, then the id.
    by_title: BTreeSet<(String, String)>,
    /// URL -> the id of the last item written with it.
    by_url: HashMap<String, String>,
    /// Change log: number -> item id.
    changes: BTreeMap<u64, String>,
    /// The last change number handed out.
    last_change: u64,
    /// Moves on with every write.
    pub(super) version: u64,
}

fn title_key(item: &NewsItem) -> (String, String) {
    (item.title.to_lowercase(), item.id.clone())
}

impl Items {
    pub(super) fn exists(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    /// Takes an item out of every index; its URL is released only if it still holds it
    /// (another item may have taken it over since).
    fn unindex(&mut self, old: &NewsItem) {
        self.by_position.remove(&FeedPosition::of(old));
        self.by_title.remove(&title_key(old));
        if let Some(url) = &old.url
            && self.by_url.get(url) == Some(&old.id)
        {
            self.by_url.remove(url);
        }
    }

    fn log(&mut self, id: &str) -> u64 {
        self.last_change += 1;
        self.changes.insert(self.last_change, id.to_string());
        self.last_change
    }

    fn put(&mut self, stored: &StoredItem) -> ItemWritten {
        let item = &stored.item;
        let old = self.by_id.remove(&item.id);
        if let Some(old) = &old {
            self.unindex(&old.item);
        }
        self.by_position.insert(FeedPosition::of(item));
        self.by_title.insert(title_key(item));
        if let Some(url) = &item.url {
            self.by_url.insert(url.clone(), item.id.clone());
        }
        self.by_id.insert(item.id.clone(), stored.clone());
        ItemWritten {
            created: old.is_none(),
            change: self.log(&item.id),
        }
    }

    /// Removes an item from the catalogue (the caller removes its marks).
    pub(super) fn remove(&mut self, id: &str) -> Option<(NewsItem, u64)> {
        let old = self.by_id.remove(id)?;
        self.unindex(&old.item);
        self.version += 1;
        let change = self.log(id);
        Some((old.item, change))
    }

    fn json(&self, id: &str) -> Option<Json> {
        self.by_id.get(id).map(|s| s.json.clone())
    }
}

/// Whether a listing of `query` holds the item.
fn listed(state: &super::State, query: &NewestQuery<'_>, id: &str) -> bool {
    let marked = query
        .reader
        .is_some_and(|reader| state.marks.has_any(reader, id, query.leave_out));
    !(marked || query.leads_only && state.stories.covered(id))
}

#[async_trait::async_trait]
impl ItemStore for MemoryBackend {
    async fn items_version(&self) -> Result<u64> {
        Ok(self.lock().items.version)
    }

    async fn item(&self, id: &str) -> Result<Option<Json>> {
        Ok(self.lock().items.json(id))
    }

    async fn items(&self, ids: &[String]) -> Result<Vec<Option<Json>>> {
        let state = self.lock();
        Ok(ids.iter().map(|id| state.items.json(id)).collect())
    }

    async fn item_exists(&self, id: &str) -> Result<bool> {
        Ok(self.lock().items.exists(id))
    }

    async fn item_count(&self) -> Result<u64> {
        Ok(self.lock().items.by_id.len() as u64)
    }

    async fn item_id_by_url(&self, url: &str) -> Result<Option<String>> {
        Ok(self.lock().items.by_url.get(url).cloned())
    }

    async fn put_items(&self, items: &[StoredItem]) -> Result<Vec<ItemWritten>> {
        let mut state = self.lock();
        let written: Vec<_> = items.iter().map(|s| state.items.put(s)).collect();
        if !written.is_empty() {
            state.items.version += 1;
        }
        Ok(written)
    }

    async fn remove_item(&self, id: &str) -> Result<Option<(NewsItem, u64)>> {
        let mut state = self.lock();
        let removed = state.items.remove(id);
        if removed.is_some() {
            state.marks.forget_item(id);
        }
        Ok(removed)
    }

    async fn newest(&self, query: NewestQuery<'_>) -> Result<NewestPage> {
        let state = self.lock();
        let upper = match query.after {
            Some(after) => Bound::Excluded(after.clone()),
            None => Bound::Unbounded,
        };
        let mut passing = state
            .items
            .by_position
            .range((since(&query), upper))
            .rev()
            .filter(|p| listed(&state, &query, &p.id));
        let mut page = NewestPage::default();
        for position in passing.by_ref().take(query.limit) {
            page.items.extend(state.items.json(&position.id));
            page.last = Some(position.clone());
        }
        page.has_more = passing.next().is_some();
        Ok(page)
    }

    async fn count_newest(&self, query: NewestQuery<'_>) -> Result<u64> {
        let state = self.lock();
        let count = state
            .items
            .by_position
            .range((since(&query), Bound::Unbounded))
            .filter(|p| listed(&state, &query, &p.id))
            .count();
        Ok(count as u64)
    }

    async fn catalogue(
        &self,
        sort: SortBy,
        order: SortOrder,
        offset: u64,
        limit: u64,
    ) -> Result<Vec<Json>> {
        let state = self.lock();
        let items = &state.items;
        let ids: Box<dyn DoubleEndedIterator<Item = &String> + '_> = match sort {
            SortBy::PublishedDate => Box::new(items.by_position.iter().map(|p| &p.id)),
            SortBy::Title => Box::new(items.by_title.iter().map(|(_, id)| id)),
            SortBy::Id => Box::new(items.by_id.keys()),
        };
        let ids: Box<dyn Iterator<Item = &String> + '_> = match order {
            SortOrder::Asc => ids,
            SortOrder::Desc => Box::new(ids.rev()),
        };
        let skip = usize::try_from(offset).unwrap_or(usize::MAX);
        let take = usize::try_from(limit).unwrap_or(usize::MAX);
        Ok(ids
            .skip(skip)
            .take(take)
            .filter_map(|id| items.json(id))
            .collect())
    }

    async fn published_between(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> Result<Vec<Json>> {
        let state = self.lock();
        let items = &state.items;
        let start = FeedPosition {
            published_ms: from.timestamp_millis(),
            id: String::new(),
        };
        Ok(items
            .by_position
            .range(start..)
            .take_while(|p| p.published_ms <= to.timestamp_millis())
            .filter_map(|p| items.by_id.get(&p.id))
            .filter(|s| s.item.published_date >= from && s.item.published_date < to)
            .map(|s| s.json.clone())
            .collect())
    }

    async fn items_after(&self, after: Option<&str>, limit: usize) -> Result<Vec<Json>> {
        let state = self.lock();
        let lower = match after {
            Some(after) => Bound::Excluded(after),
            None => Bound::Unbounded,
        };
        Ok(state
            .items
            .by_id
            .range::<str, _>((lower, Bound::Unbounded))
            .take(limit)
            .map(|(_, s)| s.json.clone())
            .collect())
    }

    async fn item_changes(&self, after: u64, limit: usize) -> Result<Vec<ItemChange>> {
        let state = self.lock();
        Ok(state
            .items
            .changes
            .range((Bound::Excluded(after), Bound::Unbounded))
            .take(limit)
            .map(|(seq, id)| ItemChange {
                seq: *seq,
                id: id.clone(),
            })
            .collect())
    }

    /// One process reads this backend, so it keeps one replica's log, as sled does:
    /// committed entries are deleted.
    async fn forget_item_changes(&self, seqs: &[u64]) -> Result<()> {
        let mut state = self.lock();
        for seq in seqs {
            state.items.changes.remove(seq);
        }
        Ok(())
    }
}

/// The lowest position a query's cut-off lets through: the first id at that time.
fn since(query: &NewestQuery<'_>) -> Bound<FeedPosition> {
    match query.since_ms {
        Some(ms) => Bound::Included(FeedPosition {
            published_ms: ms,
            id: String::new(),
        }),
        None => Bound::Unbounded,
    }
}
