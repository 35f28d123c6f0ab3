//! The catalogue of news items and the indexes that keep listings cheap.
//!
//! An item lives once in `items`; `published_itemid` orders it by date, `title_itemid`
//! by title and `url_itemid` finds it by source URL. A removal changes all four in one
//! transaction, which also marks the item pending for the search index; a batch of adds
//! and updates writes them in an order that a crash cannot leave wrong, only incomplete
//! (see `upsert_unflushed`). Every write method updates the search index (see `search`)
//! after sled has the write and before it returns.
//!
//! An item is visible to readers from its first sled write, before its batch is synced.
//! Whatever durable record names an item must not outlive it: the sled writes that do
//! (removals, feeds, summaries) end with a sync, which covers the item too, and the
//! journal of marks and shares, which does not sync sled, syncs it first whenever an item
//! write may not be on disk yet (`GroupCommit::item_write`, see `journal`). So a mark
//! acknowledged on an item of an import in progress survives a crash with its item.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use sled::Transactional;
use utoipa::ToSchema;

use crate::search::PendingEntry;
use crate::{Error, NewsItem, Result, Store, display, from_json, keys, to_json};

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

impl NewItem {
    /// Checks the fields and normalises them: text trimmed and without citation markers
    /// (spec section 3's display rule, applied once here so no client has to), an empty
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

/// How many items a bulk write plans and writes at a time (one `search_pending` entry
/// each), and hands to the search index writer together: enough that the entry costs
/// little per item, few enough that the index threads start on a batch while the next
/// one is written.
pub const ITEMS_PER_WRITE: usize = 1024;

#[cfg(test)]
thread_local! {
    /// In tests: how many more sled writes of an item batch succeed before the batch
    /// stops as a crash would stop it there.
    static CRASH_AFTER: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// A point between two sled writes of an item batch, where a test can cut it short.
fn crash_point() -> Result<()> {
    #[cfg(test)]
    CRASH_AFTER.with(|left| match left.get() {
        Some(0) => Err(Error::Index("cut short by a simulated crash".into())),
        Some(n) => {
            left.set(Some(n - 1));
            Ok(())
        }
        None => Ok(()),
    })?;
    Ok(())
}

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
    pub fn upsert_item(&self, new: NewItem) -> Result<Upserted> {
        let mut done = self.upsert_items([new])?;
        Ok(done.pop().expect("one item in, one out"))
    }

    /// Upserts many items (imports, feed fetches, benchmarks): written
    /// [`ITEMS_PER_WRITE`] at a time (see `upsert_unflushed`), then one flush and one
    /// search index commit at the end, so a bulk write pays for a sync once rather than
    /// per item. All are durable and searchable when this returns. An invalid item stops
    /// the batch; the ones before it are kept. Two items for the same id or URL are
    /// applied in order.
    ///
    /// The index writer is held from the first write to the commit, and each chunk's
    /// items go to it at once, so tantivy's threads index one chunk while this thread
    /// writes the next to sled. Holding it first keeps the rule of
    /// [`crate::search`]: a writer that changes one of these items meanwhile indexes after
    /// this commit, from what sled holds then.
    pub fn upsert_items(&self, items: impl IntoIterator<Item = NewItem>) -> Result<Vec<Upserted>> {
        self.upsert_checked(items.into_iter().map(NewItem::validate))
    }

    /// [`Store::upsert_items`] of items already checked by [`NewItem::validate`] (an
    /// import checks each one first, to say which were invalid): the first error stops
    /// the batch.
    pub(crate) fn upsert_checked(
        &self,
        items: impl IntoIterator<Item = Result<NewItem>>,
    ) -> Result<Vec<Upserted>> {
        self.writable()?;
        let mut index = self.search.lock();
        let mut done = Vec::new();
        let mut indexed = Vec::new();
        let mut failed = None;
        let mut chunk = Vec::new();
        let write = |chunk: &[NewItem],
                     done: &mut Vec<Upserted>,
                     indexed: &mut Vec<PendingEntry>|
         -> Result<()> {
            let (written, pending) = self.upsert_unflushed(chunk)?;
            if !index.rebuilding {
                for (up, item) in &written {
                    if up.created {
                        // A new id has no document to replace: its last removal deleted
                        // it under this lock, or left it pending to be replaced later.
                        self.search.add_document(&index, item)?;
                    } else {
                        self.search.replace_document(&index, item)?;
                    }
                }
                indexed.push(pending);
            }
            done.extend(written.into_iter().map(|(up, _)| up));
            Ok(())
        };
        for item in items {
            match item {
                Ok(item) => chunk.push(item),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
            if chunk.len() == ITEMS_PER_WRITE {
                write(&std::mem::take(&mut chunk), &mut done, &mut indexed)?;
            }
        }
        if !chunk.is_empty() {
            write(&chunk, &mut done, &mut indexed)?;
        }
        self.flush()?;
        if !indexed.is_empty() {
            self.search.commit(&mut index)?;
            drop(index);
            self.clear_pending(indexed.into_iter().map(|(key, ids)| (key, Some(ids))))?;
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(done),
        }
    }

    /// Writes validated items and their index entries, with one `search_pending` entry
    /// naming them all (see [`crate::search::BATCH`]); answers what it did, each item as
    /// stored, and that entry. The caller holds the index writer's lock, which every
    /// writer of items takes (see [`Store::remove_item`]), so no other write of these
    /// items runs meanwhile.
    ///
    /// No sled transaction: one read its old value before every write and buffered the
    /// batch, which was half of an import's time. The order of the writes keeps the trees
    /// mendable instead. sled comes back from a crash as a prefix of its writes, and the
    /// batch's entry is written first, then, item by item, the old version's index keys
    /// are removed before the new version and its keys are written. So whatever prefix
    /// survives, each item of a pending batch has its old or its new record and no keys of
    /// another version, only some of its own keys missing, and opening the store puts
    /// them back and recounts (see [`Store::mend_pending_batches`]). Readers meanwhile may
    /// miss an item of the batch for a moment; none sees a stale key.
    fn upsert_unflushed(
        &self,
        batch: &[NewItem],
    ) -> Result<(Vec<(Upserted, NewsItem)>, PendingEntry)> {
        let t = &self.t;
        let planned = self.plan_batch(batch)?;
        let mut pending_key = vec![crate::search::BATCH];
        pending_key.extend_from_slice(&self.db.generate_id()?.to_be_bytes());
        let mut ids = Vec::new();
        for (item, _) in &planned {
            if !ids.is_empty() {
                ids.push(b'\n');
            }
            ids.extend_from_slice(item.id.as_bytes());
        }
        let ids = sled::IVec::from(ids);
        // Readers see each item from its first write on, before the batch's flush: the
        // journal of marks waits for a sync of it before it acknowledges a mark (see
        // `journal`), so a mark acknowledged on a new item never outlives it.
        let _writing = self.commit.item_write();
        t.search_pending
            .insert(pending_key.as_slice(), ids.clone())?;
        crash_point()?;
        let mut added = 0;
        let mut done = Vec::with_capacity(planned.len());
        for (item, old) in planned {
            match &old {
                Some(old) => self.remove_item_keys(old)?,
                None => added += 1,
            }
            t.items.insert(item.id.as_bytes(), to_json(&item))?;
            crash_point()?;
            self.insert_item_keys(&item)?;
            let up = Upserted {
                id: item.id.clone(),
                created: old.is_none(),
            };
            done.push((up, item));
        }
        if added > 0 {
            t.meta.fetch_and_update("item_count", |count| {
                Some(keys::u64_value(keys::u64_from(count) + added).to_vec())
            })?;
        }
        self.items_changed();
        Ok((done, (sled::IVec::from(pending_key.as_slice()), ids)))
    }

    /// Each item of a batch as it will be stored, with the version it replaces: the id
    /// comes from the item, else from the item stored under its URL, else from the URL.
    /// An earlier item of the same batch counts as stored.
    fn plan_batch(&self, batch: &[NewItem]) -> Result<Vec<(NewsItem, Option<NewsItem>)>> {
        let t = &self.t;
        let mut planned: Vec<(NewsItem, Option<NewsItem>)> = Vec::with_capacity(batch.len());
        // What this batch has done to ids and URLs so far.
        let mut at: HashMap<String, usize> = HashMap::new();
        let mut urls: HashMap<String, Option<String>> = HashMap::new();
        for new in batch {
            let by_url = match new.url.as_deref() {
                Some(u) => match urls.get(u) {
                    Some(id) => id.clone(),
                    None => t
                        .url_itemid
                        .get(u.as_bytes())?
                        .map(|v| String::from_utf8_lossy(&v).into_owned()),
                },
                None => None,
            };
            let id = new
                .id
                .clone()
                .or(by_url)
                .unwrap_or_else(|| new_id(new.url.as_deref()));
            let old = match at.get(id.as_str()) {
                Some(&i) => Some(planned[i].0.clone()),
                None => t
                    .items
                    .get(id.as_bytes())?
                    .map(|v| from_json(&v))
                    .transpose()?,
            };
            if let Some(u) = old.as_ref().and_then(|o| o.url.clone()) {
                urls.insert(u, None);
            }
            if let Some(u) = &new.url {
                urls.insert(u.clone(), Some(id.clone()));
            }
            at.insert(id.clone(), planned.len());
            planned.push((
                NewsItem {
                    source: display::source_name(new.url.as_deref()),
                    id,
                    title: new.title.clone(),
                    summary: new.summary.clone(),
                    short: new.short.clone(),
                    content: new.content.clone(),
                    url: new.url.clone(),
                    published_date: new.published_date,
                },
                old,
            ));
        }
        Ok(planned)
    }

    /// Writes an item's entries in the date, title and URL indexes.
    fn insert_item_keys(&self, item: &NewsItem) -> Result<()> {
        let t = &self.t;
        t.published_itemid
            .insert(keys::published(item.published_date, &item.id), &[])?;
        crash_point()?;
        t.title_itemid
            .insert(keys::title(&item.title, &item.id), &[])?;
        crash_point()?;
        if let Some(u) = &item.url {
            t.url_itemid.insert(u.as_bytes(), item.id.as_bytes())?;
            crash_point()?;
        }
        Ok(())
    }

    /// Removes an item's entries from the date, title and URL indexes.
    fn remove_item_keys(&self, item: &NewsItem) -> Result<()> {
        let t = &self.t;
        t.published_itemid
            .remove(keys::published(item.published_date, &item.id))?;
        crash_point()?;
        t.title_itemid.remove(keys::title(&item.title, &item.id))?;
        crash_point()?;
        if let Some(u) = &item.url {
            t.url_itemid.remove(u.as_bytes())?;
            crash_point()?;
        }
        Ok(())
    }

    /// Puts back the index entries of the items of batches a crash left pending, and
    /// counts the items again: what [`Store::upsert_unflushed`]'s order of writes leaves
    /// to mend. Run when the store opens, before their search documents are replaced.
    pub(crate) fn mend_pending_batches(&self, batches: &[String]) -> Result<()> {
        if batches.is_empty() {
            return Ok(());
        }
        for id in batches {
            if let Some(item) = self.item(id)? {
                self.insert_item_keys(&item)?;
            }
        }
        let count = self.t.items.len() as u64;
        self.t.meta.insert("item_count", &keys::u64_value(count))?;
        tracing::info!(
            items = batches.len(),
            count,
            "mended the index entries of an item batch a crash interrupted"
        );
        self.flush()
    }

    /// Removes an item and its index entries. Durable on return.
    pub fn remove_item(&self, id: &str) -> Result<()> {
        self.writable()?;
        let t = &self.t;
        let marker = self.db.generate_id()?.to_be_bytes();
        // Batches write items without a transaction, under this lock (see
        // `upsert_unflushed`): the removal waits for a batch in progress to finish.
        let writer = self.search.lock();
        (
            &t.items,
            &t.published_itemid,
            &t.title_itemid,
            &t.url_itemid,
            &t.meta,
            &t.search_pending,
        )
            .transaction(|(items, published, titles, urls, meta, pending)| {
                let Some(old) = items.remove(id.as_bytes())? else {
                    return Err(Error::NotFound("item").into());
                };
                pending.insert(id.as_bytes(), &marker)?;
                let old: NewsItem = from_json(&old)?;
                published.remove(keys::published(old.published_date, &old.id))?;
                titles.remove(keys::title(&old.title, &old.id))?;
                if let Some(u) = &old.url {
                    urls.remove(u.as_bytes())?;
                }
                let count = keys::u64_from(meta.get("item_count")?.as_deref());
                meta.insert("item_count", &keys::u64_value(count.saturating_sub(1)))?;
                Ok(())
            })?;
        drop(writer);
        // After the item is gone, so no mark can be set on it while its marks are cleared.
        self.items_changed();
        self.forget_item_marks(id)?;
        self.flush()?;
        self.index_items(&[id.to_string()])
    }

    /// The stored item a new one would update: the one with its id, else the one with
    /// its URL.
    pub(crate) fn existing_item(&self, new: &NewItem) -> Result<Option<NewsItem>> {
        let id = match (&new.id, new.url.as_deref().map(str::trim)) {
            (Some(id), _) => Some(id.clone()),
            (None, Some(u)) => self
                .t
                .url_itemid
                .get(u)?
                .map(|v| String::from_utf8_lossy(&v).into_owned()),
            (None, None) => None,
        };
        Ok(id.map(|id| self.item(&id)).transpose()?.flatten())
    }

    /// One item by id.
    pub fn item(&self, id: &str) -> Result<Option<NewsItem>> {
        self.t.items.get(id)?.map(|v| from_json(&v)).transpose()
    }

    /// True when an item with this id exists.
    pub fn item_exists(&self, id: &str) -> Result<bool> {
        Ok(self.t.items.contains_key(id)?)
    }

    /// How many items there are (a maintained counter, not a scan).
    pub fn item_count(&self) -> Result<u64> {
        Ok(keys::u64_from(self.t.meta.get("item_count")?.as_deref()))
    }

    /// Up to `limit` items newest first, after the `before` key of `published_itemid`
    /// (from the start when none), skipping ids `keep` refuses, as their stored JSON
    /// (which is their wire form). Answers the items, the key of the last one and whether
    /// more kept items follow. Starts in the in-memory head of the feed when `before` is
    /// in it, and goes on in sled past it.
    pub(crate) fn item_json_newest_first(
        &self,
        before: Option<&[u8]>,
        mut keep: impl FnMut(&str) -> bool,
        limit: usize,
    ) -> Result<(Vec<sled::IVec>, Option<Vec<u8>>, bool)> {
        let mut out = Vec::with_capacity(limit.min(64));
        let mut last_key: Option<Vec<u8>> = None;
        let head = self.feed_head()?;
        let mut from_sled = before.map(<[u8]>::to_vec);
        if let Some(start) = head.start_after(before) {
            for item in &head.items[start..] {
                if !keep(&item.id) {
                    continue;
                }
                if out.len() == limit {
                    return Ok((out, last_key, true));
                }
                out.push(item.json.clone());
                last_key = Some(item.key.to_vec());
            }
            if head.whole {
                return Ok((out, last_key, false));
            }
            from_sled = head.items.last().map(|i| i.key.to_vec());
        }
        let range = match from_sled {
            Some(k) => self.t.published_itemid.range(..k),
            None => self.t.published_itemid.iter(),
        };
        for key in range.keys().rev() {
            let key = key?;
            let Some(id) = keys::published_item_id(&key) else {
                continue;
            };
            if !keep(id) {
                continue;
            }
            if out.len() == limit {
                return Ok((out, last_key, true));
            }
            if let Some(json) = self.t.items.get(id)? {
                out.push(json);
                last_key = Some(key.to_vec());
            }
        }
        Ok((out, last_key, false))
    }

    /// The newest `limit` items in the given date range, newest first.
    pub fn items_between(
        &self,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<NewsItem>> {
        let mut out = Vec::new();
        for entry in self
            .t
            .published_itemid
            .range(keys::time(from).to_vec()..keys::time(to).to_vec())
            .rev()
        {
            let (key, _) = entry?;
            if out.len() == limit {
                break;
            }
            if let Some(item) = keys::published_item_id(&key)
                .map(|id| self.item(id))
                .transpose()?
                .flatten()
            {
                out.push(item);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::test_store;

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

    #[test]
    fn same_url_updates_instead_of_duplicating() {
        let (_d, store) = test_store();
        let a = store
            .upsert_item(new_item(
                "First",
                Some("https://a.example/1"),
                "2026-01-01T00:00:00Z",
            ))
            .unwrap();
        let b = store
            .upsert_item(new_item(
                "First, edited",
                Some("https://a.example/1"),
                "2026-01-02T00:00:00Z",
            ))
            .unwrap();
        assert!(a.created && !b.created);
        assert_eq!(a.id, b.id);
        assert_eq!(store.item_count().unwrap(), 1);
        let item = store.item(&a.id).unwrap().unwrap();
        assert_eq!(item.title, "First, edited");
        assert_eq!(item.source.as_deref(), Some("A"));
        // The old date's index entry is gone: one entry, at the new date.
        assert_eq!(store.t.published_itemid.len(), 1);
        assert_eq!(store.t.title_itemid.len(), 1);
    }

    /// Every (published, title, URL) entry names a stored item in its current version,
    /// every item has its three, and the count is right.
    fn assert_trees_agree(store: &Store) {
        let mut expected = std::collections::BTreeSet::new();
        for entry in store.t.items.iter() {
            let (_, v) = entry.unwrap();
            let item: NewsItem = from_json(&v).unwrap();
            expected.insert(keys::published(item.published_date, &item.id).to_vec());
            expected.insert(keys::title(&item.title, &item.id).to_vec());
            if let Some(u) = &item.url {
                expected.insert([u.as_bytes(), b"\0", item.id.as_bytes()].concat());
            }
        }
        let mut found = std::collections::BTreeSet::new();
        for tree in [&store.t.published_itemid, &store.t.title_itemid] {
            found.extend(tree.iter().keys().map(|k| k.unwrap().to_vec()));
        }
        for entry in store.t.url_itemid.iter() {
            let (u, id) = entry.unwrap();
            found.insert([&u[..], b"\0", &id[..]].concat());
        }
        assert_eq!(found, expected);
        assert_eq!(store.item_count().unwrap(), store.t.items.len() as u64);
    }

    #[test]
    fn a_batch_cut_short_anywhere_is_mended_when_the_store_opens() {
        let before = [
            new_item("Kept", Some("https://a.example/k"), "2026-01-01T00:00:00Z"),
            NewItem {
                id: Some("old-story".into()),
                ..new_item("Old", Some("https://a.example/old"), "2026-01-02T00:00:00Z")
            },
        ];
        // An update that moves the second item to a new title, date and URL, and a new item
        // at the URL it gives up.
        let mut moved = new_item(
            "Moved",
            Some("https://a.example/new"),
            "2026-03-01T00:00:00Z",
        );
        let fresh = new_item(
            "Fresh",
            Some("https://a.example/old"),
            "2026-03-02T00:00:00Z",
        );
        let mut cuts = 0;
        for cut in 0.. {
            let dir = tempfile::tempdir().unwrap();
            let store = Store::open(dir.path(), crate::Options::default()).unwrap();
            let ids: Vec<String> = store
                .upsert_items(before.clone())
                .unwrap()
                .into_iter()
                .map(|u| u.id)
                .collect();
            moved.id = Some(ids[1].clone());
            CRASH_AFTER.with(|c| c.set(Some(cut)));
            let done = store.upsert_items([moved.clone(), fresh.clone()]);
            CRASH_AFTER.with(|c| c.set(None));
            if done.is_ok() {
                break;
            }
            cuts += 1;
            drop(store);
            let store = Store::open(dir.path(), crate::Options::default()).unwrap();
            assert_trees_agree(&store);
            assert!(
                store.t.search_pending.is_empty(),
                "cut {cut}: mended and indexed"
            );
            assert_eq!(
                store.search.searcher().num_docs(),
                store.item_count().unwrap()
            );
            // Writing the batch again gives what an uninterrupted write gives.
            store.upsert_items([moved.clone(), fresh.clone()]).unwrap();
            assert_trees_agree(&store);
            assert_eq!(store.item_count().unwrap(), 3, "cut {cut}");
            assert_eq!(store.item(&ids[1]).unwrap().unwrap().title, "Moved");
        }
        assert!(
            cuts >= 10,
            "the batch has a write to cut after each step ({cuts})"
        );
    }

    #[test]
    fn a_mark_acknowledged_on_an_item_whose_batch_was_cut_before_its_flush_survives_a_crash() {
        crate::sled_open::NO_BACKGROUND_FLUSH.with(|f| f.set(true));
        let dir = tempfile::tempdir().unwrap();
        let live = dir.path().join("live");
        let store = Store::open(&live, crate::Options::default()).unwrap();
        let user = store
            .create_user("m@example.com", "hash".into(), Default::default(), true)
            .unwrap()
            .id;
        let url = "https://a.example/late";
        // The batch writes the item and its four entries, and stops where its flush
        // comes, as a crash there would stop it: the item is visible and not on disk.
        CRASH_AFTER.with(|c| c.set(Some(4)));
        let cut = store.upsert_items([new_item("Late", Some(url), "2026-03-01T00:00:00Z")]);
        CRASH_AFTER.with(|c| c.set(None));
        assert!(cut.is_err(), "the batch was cut before its flush");
        let id = new_id(Some(url));
        assert!(store.item_exists(&id).unwrap(), "readers see the item");
        let syncs = store.syncs();
        let marks = store.set_mark(&user, &id, crate::Mark::Favorite).unwrap();
        assert!(marks.favorite);
        assert_eq!(
            store.syncs(),
            syncs + 1,
            "the mark waited for a sync of its item"
        );
        // With nothing in flight, the next mark costs no sled sync.
        store.set_mark(&user, &id, crate::Mark::Favorite).unwrap();
        assert_eq!(store.syncs(), syncs + 1);

        // kill -9 now, and start again.
        let crashed = dir.path().join("crashed");
        crate::crash_copy(&live, &crashed);
        let store = Store::open(&crashed, crate::Options::default()).unwrap();
        crate::sled_open::NO_BACKGROUND_FLUSH.with(|f| f.set(false));
        assert!(
            store.item(&id).unwrap().is_some(),
            "the marked item is lost"
        );
        assert!(store.has_mark(&user, &id, crate::Mark::Favorite).unwrap());
        assert_eq!(
            store.marked_items(&user, crate::Mark::Favorite).unwrap()[0].id,
            id
        );
        assert_trees_agree(&store);
    }

    #[test]
    fn invalid_items_are_refused_with_a_reason() {
        let (_d, store) = test_store();
        let err = store
            .upsert_item(new_item("  ", None, "2026-01-01T00:00:00Z"))
            .unwrap_err();
        assert!(err.to_string().contains("title"));
        let err = store
            .upsert_item(new_item("x", Some("ftp://a/b"), "2026-01-01T00:00:00Z"))
            .unwrap_err();
        assert!(err.to_string().contains("http"));
        assert_eq!(store.item_count().unwrap(), 0);
    }

    #[test]
    fn remove_drops_indexes_and_count() {
        let (_d, store) = test_store();
        let a = store
            .upsert_item(new_item(
                "A",
                Some("https://a.example/1"),
                "2026-01-01T00:00:00Z",
            ))
            .unwrap();
        store.remove_item(&a.id).unwrap();
        assert_eq!(store.item_count().unwrap(), 0);
        assert!(store.t.url_itemid.is_empty() && store.t.published_itemid.is_empty());
        assert!(matches!(
            store.remove_item(&a.id),
            Err(Error::NotFound("item"))
        ));
    }
}
