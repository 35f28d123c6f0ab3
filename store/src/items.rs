//! The catalogue of news items: what makes an item valid, how an add or an import finds
//! the item it updates (by id, else by URL), and what every write of items does beside
//! the backend's write (the search index, see `search`).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use tokio::sync::MutexGuard;

use crate::backend::StoredItem;
use crate::{Error, NewsItem, Result, Store, display, from_json, search};

/// An item to add or update: without an id, it is matched by URL, or else created.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct NewItem {
    /// Update this item; new items get an id derived from their URL.
    #[serde(default)]
    pub id: Option<String>,
    /// Headline (required).
    pub title: String,
    /// Summary (required).
    pub summary: String,
    /// Brief text for Drops.
    #[serde(default)]
    pub short: String,
    /// Full text.
    #[serde(default)]
    pub content: String,
    /// Link to the original (http or https).
    #[serde(default)]
    pub url: Option<String>,
    /// Publication time.
    pub published_date: DateTime<Utc>,
    /// The publication's name, when the item's origin knows it better than its address
    /// does (a feed's own title); else it is named from its URL
    /// ([`display::source_name`]).
    #[serde(default)]
    pub source: Option<String>,
}

/// What an upsert did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upserted {
    /// The item's id.
    pub id: String,
    /// True when the item is new, false when an existing one was updated.
    pub created: bool,
}

/// Longest accepted title, in characters.
const MAX_TITLE: usize = 500;
/// Longest accepted text field (summary, short, content), in bytes.
const MAX_TEXT: usize = 200_000;
/// Longest source name kept, in characters.
const MAX_SOURCE: usize = 80;

impl NewItem {
    /// The name the item is shown under: the one its origin gave, else the one its URL
    /// makes.
    pub(crate) fn source_name(&self) -> Option<String> {
        self.source
            .clone()
            .or_else(|| display::source_name(self.url.as_deref()))
    }

    /// Checks the fields and normalises them: text trimmed and without citation markers
    /// (docs/product.md §3's display rule, applied once here so no client has to), an empty
    /// URL as none.
    pub fn validate(mut self) -> Result<Self> {
        for text in [
            &mut self.title,
            &mut self.summary,
            &mut self.short,
            &mut self.content,
        ] {
            *text = display::strip_citations(text).trim().to_string();
        }
        if self.title.is_empty() {
            return Err(Error::Invalid("title must not be empty".into()));
        }
        if self.title.chars().count() > MAX_TITLE {
            return Err(Error::Invalid(format!(
                "title is longer than {MAX_TITLE} characters"
            )));
        }
        if self.summary.is_empty() {
            return Err(Error::Invalid("summary must not be empty".into()));
        }
        for (name, text) in [
            ("summary", &self.summary),
            ("short", &self.short),
            ("content", &self.content),
        ] {
            if text.len() > MAX_TEXT {
                return Err(Error::Invalid(format!(
                    "{name} is longer than {MAX_TEXT} bytes"
                )));
            }
        }
        if let Some(id) = &self.id
            && (id.is_empty()
                || id.len() > 128
                || !id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)))
        {
            return Err(Error::Invalid(
                "id must be 1 to 128 letters, digits, '-', '_' or '.'".into(),
            ));
        }
        // A name as a reader sees it: one line, spaces collapsed, at most a line long.
        self.source = self
            .source
            .as_deref()
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|s| !s.is_empty())
            .map(|s| s.chars().take(MAX_SOURCE).collect());
        self.url = match self.url.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(u) => {
                let parsed = url::Url::parse(u)
                    .map_err(|e| Error::Invalid(format!("url {u:?} is not valid: {e}")))?;
                if !matches!(parsed.scheme(), "http" | "https") {
                    return Err(Error::Invalid(format!("url {u:?} must be http or https")));
                }
                Some(u.to_string())
            }
        };
        Ok(self)
    }
}

/// How many items a bulk write writes at a time, and hands to the search index writer
/// together: enough that a backend's write costs little per item, few enough that the
/// index threads start on a chunk while the next one is written.
pub(crate) const ITEMS_PER_WRITE: usize = 1024;

/// The id of a new item: derived from its URL, so the same story imported twice is one
/// item; random when there is no URL.
fn new_id(url: Option<&str>) -> String {
    match url {
        Some(u) => hex::encode(&Sha256::digest(u.as_bytes())[..8]),
        None => uuid::Uuid::new_v4().simple().to_string()[..16].to_string(),
    }
}

impl Store {
    /// Adds an item, or updates the one with the same id or URL. Durable on return.
    pub async fn upsert_item(&self, new: NewItem) -> Result<Upserted> {
        let mut done = self.upsert_items([new]).await?;
        Ok(done.pop().expect("one item in, one out"))
    }

    /// Upserts many items (imports, feed fetches, benchmarks): written
    /// [`ITEMS_PER_WRITE`] at a time, then one flush and one search index commit at the
    /// end, so a bulk write pays for a sync once rather than per item. All are durable
    /// and searchable when this returns. An invalid item stops the batch; the ones before
    /// it are kept. Two items for the same id or URL are applied in order.
    pub async fn upsert_items(
        &self,
        items: impl IntoIterator<Item = NewItem>,
    ) -> Result<Vec<Upserted>> {
        let checked: Vec<Result<NewItem>> = items.into_iter().map(NewItem::validate).collect();
        self.upsert_checked(checked).await
    }

    /// [`Store::upsert_items`] of items already checked by [`NewItem::validate`]: the
    /// first error stops the batch, and the items before it are committed.
    ///
    /// The index writer is held from the first write to the commit. Holding it first
    /// keeps the rule of `search`: a writer that changes one of these items meanwhile
    /// indexes after this commit, from what the backend holds then.
    pub(crate) async fn upsert_checked(
        &self,
        items: impl IntoIterator<Item = Result<NewItem>>,
    ) -> Result<Vec<Upserted>> {
        let index = self.lock_replica().await;
        let mut changes = Vec::new();
        let (done, failed) = self
            .write_checked(index.as_deref(), items, &mut changes)
            .await?;
        self.commit_index(index, &mut changes).await?;
        failed.map_or(Ok(done), Err)
    }

    /// This process's index writer, if it keeps a search replica.
    pub(crate) async fn lock_replica(&self) -> Option<MutexGuard<'_, search::Writer>> {
        match self.replica() {
            Some(r) => Some(r.lock().await),
            None => None,
        }
    }

    /// Writes checked items to the backend [`ITEMS_PER_WRITE`] at a time, syncs them,
    /// and hands each to the index writer `index` (held by the caller) without committing:
    /// their change log entries are added to `changes`, for [`Store::commit_index`]. Each
    /// chunk goes to the writer as soon as it is written, so tantivy's threads index one
    /// chunk while the backend writes the next. The first error among `items` stops the
    /// writes and is returned beside what was written before it.
    pub(crate) async fn write_checked(
        &self,
        index: Option<&search::Writer>,
        items: impl IntoIterator<Item = Result<NewItem>>,
        changes: &mut Vec<u64>,
    ) -> Result<(Vec<Upserted>, Option<Error>)> {
        let replica = self.replica().zip(index).filter(|(_, w)| !w.rebuilding);
        let mut done = Vec::new();
        let mut failed = None;
        let mut chunk = Vec::new();
        let mut items = items.into_iter();
        loop {
            let next = items.next();
            let end = match next {
                Some(Ok(item)) => {
                    chunk.push(item);
                    false
                }
                Some(Err(e)) => {
                    failed = Some(e);
                    true
                }
                None => true,
            };
            if chunk.len() == ITEMS_PER_WRITE || (end && !chunk.is_empty()) {
                let planned = self.plan_batch(std::mem::take(&mut chunk)).await?;
                let written = self.backend().put_items(&planned).await?;
                let created: Vec<&NewsItem> = planned
                    .iter()
                    .zip(&written)
                    .filter(|(_, w)| w.created)
                    .map(|(s, _)| &s.item)
                    .collect();
                self.group_arrivals(&created).await?;
                // The items are written whatever the alerts do: a failure here loses
                // an announcement, never an item.
                if let Err(e) = self.match_alerts(&created).await {
                    tracing::warn!(error = %e, "cannot match the new items against the alerts");
                }
                for (stored, w) in planned.iter().zip(&written) {
                    if let Some((r, index)) = replica {
                        if w.created {
                            // A new id has no document to replace: its last removal
                            // deleted it under this lock, or left its change logged to
                            // be indexed again later.
                            r.add_document(index, &stored.item)?;
                        } else {
                            r.replace_document(index, &stored.item)?;
                        }
                        if let Some(trends) = self.trends_replica() {
                            trends.apply(&stored.item.id, Some(&stored.item));
                        }
                    }
                    changes.push(w.change);
                    done.push(Upserted {
                        id: stored.item.id.clone(),
                        created: w.created,
                    });
                }
            }
            if end {
                break;
            }
        }
        self.backend().flush().await?;
        Ok((done, failed))
    }

    /// Commits what the index writer holds, makes it searchable, and tells the backend
    /// that the change log entries `changes` are applied. During a rebuild the entries
    /// stay logged, for the rebuild's end. `changes` is empty afterwards.
    pub(crate) async fn commit_index(
        &self,
        index: Option<MutexGuard<'_, search::Writer>>,
        changes: &mut Vec<u64>,
    ) -> Result<()> {
        if let (Some(r), Some(mut index)) = (self.replica(), index)
            && !index.rebuilding
            && !changes.is_empty()
        {
            r.commit(&mut index)?;
            drop(index);
            changes.dedup();
            self.backend().forget_item_changes(changes).await?;
        }
        changes.clear();
        Ok(())
    }

    /// Each item of a batch as it will be stored: the id comes from the item, else from
    /// the item stored under its URL, else from the URL. An earlier item of the same
    /// batch counts as stored.
    async fn plan_batch(&self, batch: Vec<NewItem>) -> Result<Vec<StoredItem>> {
        let mut planned: Vec<StoredItem> = Vec::with_capacity(batch.len());
        // What this batch has done to URLs so far.
        let mut urls: HashMap<String, Option<String>> = HashMap::new();
        let mut ids: HashMap<String, Option<String>> = HashMap::new();
        // Only an input without an id is looked up by its URL: in a batch of inputs that
        // all have one, what the batch did to URLs is never asked, and its old URLs are
        // not read.
        let by_url = batch.iter().any(|new| new.id.is_none());
        for new in batch {
            let id = match (&new.id, new.url.as_deref()) {
                (Some(id), _) => id.clone(),
                (None, Some(u)) => match urls.get(u) {
                    Some(id) => id.clone(),
                    None => self.backend().item_id_by_url(u).await?,
                }
                .unwrap_or_else(|| new_id(Some(u))),
                (None, None) => new_id(None),
            };
            if by_url {
                // The URL the item had before this write no longer leads to it.
                let old_url = match ids.get(&id) {
                    Some(u) => u.clone(),
                    None => self.item(&id).await?.and_then(|old| old.url),
                };
                if let Some(u) = old_url {
                    urls.insert(u, None);
                }
                if let Some(u) = &new.url {
                    urls.insert(u.clone(), Some(id.clone()));
                }
                ids.insert(id.clone(), new.url.clone());
            }
            planned.push(StoredItem::new(NewsItem {
                source: new.source_name(),
                id,
                title: new.title,
                summary: new.summary,
                short: new.short,
                content: new.content,
                url: new.url,
                published_date: new.published_date,
                story: None,
            }));
        }
        Ok(planned)
    }

    /// Removes an item and every reader's marks of it. Durable on return.
    pub async fn remove_item(&self, id: &str) -> Result<()> {
        let Some((_, change)) = self.backend().remove_item(id).await? else {
            return Err(Error::NotFound("item"));
        };
        self.backend().leave_story(id).await?;
        self.index_items(&[id.to_string()], &[change]).await
    }

    /// The stored item a new one would update: the one with its id, else the one with
    /// its URL.
    pub(crate) async fn existing_item(&self, new: &NewItem) -> Result<Option<NewsItem>> {
        let id = match (&new.id, new.url.as_deref().map(str::trim)) {
            (Some(id), _) => Some(id.clone()),
            (None, Some(u)) => self.backend().item_id_by_url(u).await?,
            (None, None) => None,
        };
        match id {
            Some(id) => self.item(&id).await,
            None => Ok(None),
        }
    }

    /// One item by id.
    pub async fn item(&self, id: &str) -> Result<Option<NewsItem>> {
        self.backend()
            .item(id)
            .await?
            .map(|json| from_json(&json))
            .transpose()
    }

    /// True when an item with this id exists.
    pub async fn item_exists(&self, id: &str) -> Result<bool> {
        self.backend().item_exists(id).await
    }

    /// How many items there are (a maintained counter, not a scan).
    pub async fn item_count(&self) -> Result<u64> {
        self.backend().item_count().await
    }

    /// The newest `limit` items in the given date range, newest first.
    pub async fn items_between(
        &self,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<NewsItem>> {
        let all = self.backend().published_between(from, to).await?;
        all.iter()
            .rev()
            .take(limit)
            .map(|json| from_json(json))
            .collect()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::testing::store_tests;

    pub(crate) fn new_item(title: &str, url: Option<&str>, date: &str) -> NewItem {
        NewItem {
            title: title.into(),
            summary: format!("Summary of {title}"),
            url: url.map(Into::into),
            published_date: DateTime::parse_from_rfc3339(date)
                .unwrap()
                .with_timezone(&Utc),
            ..Default::default()
        }
    }

    /// The id an item with this URL and no id of its own gets.
    pub(crate) fn item_id_for_url(url: &str) -> String {
        new_id(Some(url))
    }

    store_tests! {
        async fn a_source_given_wins_over_the_address_and_reads_as_one_line(store) {
            let mut named = new_item("Named", Some("https://www.theverge.com/a"), "2026-01-01T00:00:00Z");
            named.source = Some("  Lab \n  Notes ".into());
            let id = store.upsert_item(named).await.unwrap().id;
            assert_eq!(store.item(&id).await.unwrap().unwrap().source.as_deref(), Some("Lab Notes"));
            let mut blank = new_item("Blank", Some("https://www.theverge.com/b"), "2026-01-01T00:00:00Z");
            blank.source = Some("   ".into());
            let id = store.upsert_item(blank).await.unwrap().id;
            assert_eq!(store.item(&id).await.unwrap().unwrap().source.as_deref(), Some("The Verge"));
        }

        async fn same_url_updates_instead_of_duplicating(store) {
            let a = store
                .upsert_item(new_item(
                    "First",
                    Some("https://a.example/1"),
                    "2026-01-01T00:00:00Z",
                ))
                .await
                .unwrap();
            let b = store
                .upsert_item(new_item(
                    "First, edited",
                    Some("https://a.example/1"),
                    "2026-01-02T00:00:00Z",
                ))
                .await
                .unwrap();
            assert!(a.created && !b.created);
            assert_eq!(a.id, b.id);
            assert_eq!(store.item_count().await.unwrap(), 1);
            let item = store.item(&a.id).await.unwrap().unwrap();
            assert_eq!(item.title, "First, edited");
            assert_eq!(item.source.as_deref(), Some("A"));
            // The old date's index entry is gone: one entry, at the new date.
            if let Some(engine) = store.internals() {
                assert_eq!(engine.index_len("published_itemid"), 1);
                assert_eq!(engine.index_len("title_itemid"), 1);
            }
        }

        async fn an_item_without_an_id_follows_what_its_batch_did_to_urls(store) {
            let (old, new) = ("https://a.example/old", "https://a.example/new");
            let mut a = new_item("A", Some(old), "2026-01-01T00:00:00Z");
            a.id = Some("a".into());
            store.upsert_item(a.clone()).await.unwrap();
            // One batch: `a` moves to the new URL, then two inputs without an id ask for
            // the old and the new one.
            a.url = Some(new.into());
            let done = store
                .upsert_items([
                    a,
                    new_item("At the old URL", Some(old), "2026-01-02T00:00:00Z"),
                    new_item("At the new URL", Some(new), "2026-01-03T00:00:00Z"),
                ])
                .await
                .unwrap();
            let ids: Vec<&str> = done.iter().map(|d| d.id.as_str()).collect();
            assert_eq!(ids, ["a", item_id_for_url(old).as_str(), "a"]);
            assert!(done[1].created && !done[2].created);
            let a = store.item("a").await.unwrap().unwrap();
            assert_eq!((a.title.as_str(), a.url.as_deref()), ("At the new URL", Some(new)));
        }

        async fn invalid_items_are_refused_with_a_reason(store) {
            let err = store
                .upsert_item(new_item("  ", None, "2026-01-01T00:00:00Z"))
                .await
                .unwrap_err();
            assert!(err.to_string().contains("title"));
            let err = store
                .upsert_item(new_item("x", Some("ftp://a/b"), "2026-01-01T00:00:00Z"))
                .await
                .unwrap_err();
            assert!(err.to_string().contains("http"));
            assert_eq!(store.item_count().await.unwrap(), 0);
        }

        async fn remove_drops_indexes_and_count(store) {
            let a = store
                .upsert_item(new_item(
                    "A",
                    Some("https://a.example/1"),
                    "2026-01-01T00:00:00Z",
                ))
                .await
                .unwrap();
            store.remove_item(&a.id).await.unwrap();
            assert_eq!(store.item_count().await.unwrap(), 0);
            if let Some(engine) = store.internals() {
                assert!((engine.index_len("url_itemid") == 0) && (engine.index_len("published_itemid") == 0));
            }
            assert!(matches!(
                store.remove_item(&a.id).await,
                Err(Error::NotFound("item"))
            ));
        }
    }
}
