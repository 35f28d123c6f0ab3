//! Items in sled: `items` by id, `published_itemid` by date, `title_itemid` by title,
//! `url_itemid` by source URL, the `item_count` counter in `meta`, and the change log in
//! `search_pending`.
//!
//! A removal changes all of them in one transaction. A batch of adds and updates is
//! written without one, in an order that a crash cannot leave wrong, only incomplete:
//! its log entry (naming every item of the batch) first, then, item by item, the old
//! version's index keys are removed before the new version and its keys are written.
//! sled comes back from a crash as a prefix of its writes, so whatever prefix survives,
//! each item of a logged batch has its old or its new record and no keys of another
//! version, only some of its own keys missing; opening puts them back and recounts
//! ([`SledBackend::mend_interrupted_batches`]). No transaction was half of an import's
//! time: it read the old value before every write and buffered the batch.
//!
//! An item is visible to readers from its first sled write, before its batch is synced.
//! Whatever durable record names an item must not outlive it: the sled writes that do
//! (removals, feeds, summaries) end with a sync, which covers the item too, and the
//! journal of marks and shares, which does not sync sled, syncs it first whenever an
//! item write may not be on disk yet (`GroupCommit::item_write`, see `journal`). So a
//! mark acknowledged on an item of an import in progress survives a crash with its item.

use chrono::{DateTime, Utc};
use sled::Transactional;

use super::{SledBackend, from_json, json, keys};
use crate::backend::{
    FeedPosition, ItemChange, ItemStore, ItemWritten, Json, NewestPage, NewestQuery, StoredItem,
};
use crate::catalogue::{SortBy, SortOrder};
use crate::{NewsItem, Result};

/// The first byte of a `search_pending` value that names a whole batch of item writes
/// (their ids, one per line) rather than one item. No item id holds it (ids are letters,
/// digits, '-', '_' and '.'), so the two kinds of values never meet.
const BATCH: u8 = b'#';

/// The first byte of a change log key, followed by the change's number big-endian. No
/// key of the log's first layout (an item id, or `#` and a number) starts with it.
const CHANGE: u8 = 0x01;

/// The `search_pending` key of change `seq`.
fn change_key(seq: u64) -> [u8; 9] {
    let mut k = [CHANGE; 9];
    k[1..].copy_from_slice(&seq.to_be_bytes());
    k
}

#[cfg(test)]
thread_local! {
    /// In tests: how many more sled writes of an item batch succeed before the batch
    /// stops as a crash would stop it there.
    pub(crate) static CRASH_AFTER: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// A point between two sled writes of an item batch, where a test can cut it short.
#[allow(
    clippy::unnecessary_wraps,
    reason = "fails only in tests, which cut batches here"
)]
fn crash_point() -> Result<()> {
    #[cfg(test)]
    CRASH_AFTER.with(|left| match left.get() {
        Some(0) => Err(crate::Error::Index("cut short by a simulated crash".into())),
        Some(n) => {
            left.set(Some(n - 1));
            Ok(())
        }
        None => Ok(()),
    })?;
    Ok(())
}

impl SledBackend {
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
        if let Some(u) = &item.url
            && t.url_itemid.get(u.as_bytes())?.as_deref() == Some(item.id.as_bytes())
        {
            t.url_itemid.remove(u.as_bytes())?;
            crash_point()?;
        }
        Ok(())
    }

    /// One stored item, parsed.
    pub(crate) fn stored_item(&self, id: &str) -> Result<Option<NewsItem>> {
        self.t.items.get(id)?.map(|v| from_json(&v)).transpose()
    }

    /// Puts back the index entries of the items of batches a crash left in the change
    /// log, and counts the items again: what the order of a batch's writes leaves to
    /// mend. Run when the backend opens, before the search index replays the log.
    pub(crate) fn mend_interrupted_batches(&self) -> Result<()> {
        self.renumber_first_layout_changes()?;
        let mut batched = Vec::new();
        for entry in &self.t.search_pending {
            let (_, ids) = entry?;
            if let Some(list) = ids.strip_prefix(&[BATCH]) {
                batched.extend(
                    String::from_utf8_lossy(list)
                        .split('\n')
                        .filter(|id| !id.is_empty())
                        .map(str::to_string),
                );
            }
        }
        if batched.is_empty() {
            return Ok(());
        }
        for id in &batched {
            if let Some(item) = self.stored_item(id)? {
                self.insert_item_keys(&item)?;
            }
        }
        let count = self.t.items.len() as u64;
        self.t.meta.insert("item_count", &keys::u64_value(count))?;
        tracing::info!(
            items = batched.len(),
            count,
            "mended the index entries of an item batch a crash interrupted"
        );
        self.sync()
    }

    /// Gives the entries a crash left in the change log's first layout (key: an item id
    /// for one item, `#` and a number for a batch whose value lists its ids) a number in
    /// today's layout, so they are replayed and forgotten like the others.
    fn renumber_first_layout_changes(&self) -> Result<()> {
        let mut old = Vec::new();
        for entry in &self.t.search_pending {
            let (key, value) = entry?;
            if key.first() == Some(&CHANGE) {
                break;
            }
            old.push((key, value));
        }
        for (key, value) in old {
            let renumbered: Vec<u8> = if key.first() == Some(&BATCH) {
                [&[BATCH][..], &value].concat()
            } else {
                key.to_vec()
            };
            let seq = self.next_change()?;
            self.t.search_pending.insert(change_key(seq), renumbered)?;
            self.t.search_pending.remove(key)?;
        }
        Ok(())
    }

    /// The items a query leaves out for its reader: the feed's own set kept in memory,
    /// or the reader's items with one of the query's marks.
    fn left_out(&self, q: &NewestQuery<'_>) -> Result<Option<super::out_of_feed::OutSet>> {
        let leaves_feed = |m: &crate::Mark| m.leaves_feed();
        Ok(match q.reader {
            Some(_) if q.leave_out.is_empty() => None,
            // The feed's own question, answered from the set kept in memory.
            Some(reader)
                if q.leave_out.iter().all(leaves_feed)
                    && crate::Mark::ALL.iter().filter(|m| leaves_feed(m)).count()
                        == q.leave_out.len() =>
            {
                Some(self.out_of_feed(reader)?.0)
            }
            Some(reader) => Some(std::sync::Arc::new(self.marked_set(reader, q.leave_out)?)),
            None => None,
        })
    }

    /// Whether a listing of `q` shows item `id`: not among the items it leaves out, and
    /// not covered by another item's story when it lists leads only.
    fn listed(
        &self,
        q: &NewestQuery<'_>,
        out: Option<&super::out_of_feed::OutSet>,
        id: &str,
    ) -> Result<bool> {
        if out.is_some_and(|o| o.contains(id)) {
            return Ok(false);
        }
        Ok(!q.leads_only || !self.covered(id)?)
    }

    /// Items newest first after `before` (a `published_itemid` key), skipping the ids
    /// `keep` refuses: at most `limit`, the key of the last, and whether more follow.
    /// Starts in the in-memory head of the feed when `before` is in it, and goes on in
    /// sled past it.
    fn newest_from(
        &self,
        before: Option<&[u8]>,
        stop: Option<&[u8]>,
        mut keep: impl FnMut(&str) -> Result<bool>,
        limit: usize,
    ) -> Result<(Vec<Json>, Option<Vec<u8>>, bool)> {
        // Keys older than the cut-off end the walk: nothing past them is listed.
        let past = |key: &[u8]| stop.is_some_and(|s| key < s);
        let mut out = Vec::with_capacity(limit.min(64));
        let mut last_key: Option<Vec<u8>> = None;
        let head = self.feed_head()?;
        let mut from_sled = before.map(<[u8]>::to_vec);
        if let Some(start) = head.start_after(before) {
            for item in &head.items[start..] {
                if past(&item.key) {
                    return Ok((out, last_key, false));
                }
                if !keep(&item.id)? {
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
            if past(&key) {
                return Ok((out, last_key, false));
            }
            let Some(id) = keys::published_item_id(&key) else {
                continue;
            };
            if !keep(id)? {
                continue;
            }
            if out.len() == limit {
                return Ok((out, last_key, true));
            }
            if let Some(v) = self.t.items.get(id)? {
                out.push(json(v));
                last_key = Some(key.to_vec());
            }
        }
        Ok((out, last_key, false))
    }
}

/// The `published_itemid` key of a feed position.
fn position_key(p: &FeedPosition) -> Vec<u8> {
    let mut k = keys::time_ms(p.published_ms).to_vec();
    k.extend_from_slice(p.id.as_bytes());
    k
}

/// The feed position of a `published_itemid` key.
fn key_position(key: &[u8]) -> Option<FeedPosition> {
    Some(FeedPosition {
        published_ms: keys::time_ms_from(key)?,
        id: keys::published_item_id(key)?.to_string(),
    })
}

#[async_trait::async_trait]
impl ItemStore for SledBackend {
    async fn items_version(&self) -> Result<u64> {
        Ok(self.items_generation())
    }

    async fn item(&self, id: &str) -> Result<Option<Json>> {
        Ok(self.t.items.get(id)?.map(json))
    }

    async fn items(&self, ids: &[String]) -> Result<Vec<Option<Json>>> {
        ids.iter()
            .map(|id| Ok(self.t.items.get(id)?.map(json)))
            .collect()
    }

    async fn item_exists(&self, id: &str) -> Result<bool> {
        Ok(self.t.items.contains_key(id)?)
    }

    async fn item_count(&self) -> Result<u64> {
        Ok(keys::u64_from(self.t.meta.get("item_count")?.as_deref()))
    }

    async fn item_id_by_url(&self, url: &str) -> Result<Option<String>> {
        Ok(self
            .t
            .url_itemid
            .get(url.as_bytes())?
            .map(|v| String::from_utf8_lossy(&v).into_owned()))
    }

    async fn put_items(&self, items: &[StoredItem]) -> Result<Vec<ItemWritten>> {
        self.writable()?;
        let t = &self.t;
        let change = self.next_change()?;
        let mut ids = vec![BATCH];
        for (n, s) in items.iter().enumerate() {
            if n > 0 {
                ids.push(b'\n');
            }
            ids.extend_from_slice(s.item.id.as_bytes());
        }
        // Readers see each item from its first write on, before the batch's flush: the
        // journal of marks waits for a sync of it before it acknowledges a mark (see
        // `journal`), so a mark acknowledged on a new item never outlives it.
        let _writing = self.commit.item_write();
        let known = self.mem.known_items.epoch();
        t.search_pending.insert(change_key(change), ids)?;
        crash_point()?;
        let mut added = 0;
        let mut done = Vec::with_capacity(items.len());
        for s in items {
            let old = self.stored_item(&s.item.id)?;
            match &old {
                Some(old) => self.remove_item_keys(old)?,
                None => added += 1,
            }
            t.items.insert(s.item.id.as_bytes(), s.json.as_ref())?;
            crash_point()?;
            self.insert_item_keys(&s.item)?;
            done.push(ItemWritten {
                created: old.is_none(),
                change,
            });
        }
        if added > 0 {
            t.meta.fetch_and_update("item_count", |count| {
                Some(keys::u64_value(keys::u64_from(count) + added).to_vec())
            })?;
        }
        self.items_changed();
        for s in items {
            self.mem.known_items.insert(&s.item.id, known);
        }
        Ok(done)
    }

    async fn remove_item(&self, id: &str) -> Result<Option<(NewsItem, u64)>> {
        self.writable()?;
        let t = &self.t;
        let change = self.next_change()?;
        // Out of the known ids before and after sled lets it go, so that no mark that
        // checks meanwhile leaves it there (see `known_items`).
        self.mem.known_items.remove(id);
        let removed = (
            &t.items,
            &t.published_itemid,
            &t.title_itemid,
            &t.url_itemid,
            &t.meta,
            &t.search_pending,
        )
            .transaction(|(items, published, titles, urls, meta, pending)| {
                let Some(old) = items.remove(id.as_bytes())? else {
                    return Ok(None);
                };
                pending.insert(&change_key(change), id.as_bytes())?;
                let old: NewsItem = from_json(&old)?;
                published.remove(keys::published(old.published_date, &old.id))?;
                titles.remove(keys::title(&old.title, &old.id))?;
                if let Some(u) = &old.url
                    && urls.get(u.as_bytes())?.as_deref() == Some(old.id.as_bytes())
                {
                    urls.remove(u.as_bytes())?;
                }
                let count = keys::u64_from(meta.get("item_count")?.as_deref());
                meta.insert("item_count", &keys::u64_value(count.saturating_sub(1)))?;
                Ok(Some(old))
            })?;
        self.mem.known_items.remove(id);
        let Some(old) = removed else {
            return Ok(None);
        };
        // After the item is gone, so no mark can be set on it while its marks are cleared.
        self.items_changed();
        self.forget_item_marks(id)?;
        self.sync()?;
        Ok(Some((old, change)))
    }

    async fn newest(&self, q: NewestQuery<'_>) -> Result<NewestPage> {
        let out = self.left_out(&q)?;
        let before = q.after.map(position_key);
        let stop = q.since_ms.map(|ms| keys::time_ms(ms).to_vec());
        let keep = |id: &str| self.listed(&q, out.as_ref(), id);
        let (items, last, has_more) =
            self.newest_from(before.as_deref(), stop.as_deref(), keep, q.limit)?;
        Ok(NewestPage {
            items,
            last: last.as_deref().and_then(key_position),
            has_more,
        })
    }

    async fn count_newest(&self, q: NewestQuery<'_>) -> Result<u64> {
        let out = self.left_out(&q)?;
        let range = match q.since_ms {
            Some(ms) => self.t.published_itemid.range(keys::time_ms(ms).to_vec()..),
            None => self.t.published_itemid.iter(),
        };
        let mut count = 0;
        for key in range.keys() {
            let key = key?;
            if let Some(id) = keys::published_item_id(&key)
                && self.listed(&q, out.as_ref(), id)?
            {
                count += 1;
            }
        }
        Ok(count)
    }

    async fn catalogue(
        &self,
        sort: SortBy,
        order: SortOrder,
        offset: u64,
        limit: u64,
    ) -> Result<Vec<Json>> {
        let total = self.item_count().await?;
        if offset >= total || limit == 0 {
            return Ok(Vec::new());
        }
        let take = limit.min(total - offset);
        // Walk from whichever end is nearer to the page: one request reads at most
        // `min(offset, total - offset) + limit` keys and decodes at most `limit` items.
        let from_far_end = offset > total - offset - take;
        let (skip, reverse) = if from_far_end {
            (total - offset - take, order == SortOrder::Asc)
        } else {
            (offset, order == SortOrder::Desc)
        };
        type IdOfKey = fn(&[u8]) -> Option<&str>;
        let (tree, id_of): (&sled::Tree, IdOfKey) = match sort {
            SortBy::PublishedDate => (&self.t.published_itemid, keys::published_item_id),
            SortBy::Title => (&self.t.title_itemid, keys::title_item_id),
            SortBy::Id => (&self.t.items, |k| std::str::from_utf8(k).ok()),
        };
        let walk: Box<dyn Iterator<Item = sled::Result<sled::IVec>>> = if reverse {
            Box::new(tree.iter().keys().rev())
        } else {
            Box::new(tree.iter().keys())
        };
        let mut items = Vec::with_capacity(usize::try_from(take).unwrap_or(0));
        for key in walk
            .skip(usize::try_from(skip).unwrap_or(usize::MAX))
            .take(usize::try_from(take).unwrap_or(usize::MAX))
        {
            let key = key?;
            if let Some(v) = id_of(&key)
                .map(|id| self.t.items.get(id))
                .transpose()?
                .flatten()
            {
                items.push(json(v));
            }
        }
        if from_far_end {
            items.reverse();
        }
        Ok(items)
    }

    async fn published_between(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> Result<Vec<Json>> {
        let mut out = Vec::new();
        for key in self
            .t
            .published_itemid
            .range(keys::time(from).to_vec()..keys::time(to).to_vec())
            .keys()
        {
            let key = key?;
            if let Some(v) = keys::published_item_id(&key)
                .map(|id| self.t.items.get(id))
                .transpose()?
                .flatten()
            {
                out.push(json(v));
            }
        }
        Ok(out)
    }

    async fn items_after(&self, after: Option<&str>, limit: usize) -> Result<Vec<Json>> {
        let range = match after {
            Some(a) => {
                let mut from = a.as_bytes().to_vec();
                from.push(0);
                self.t.items.range(from..)
            }
            None => self.t.items.iter(),
        };
        range.values().take(limit).map(|v| Ok(json(v?))).collect()
    }

    async fn item_changes(&self, after: u64, limit: usize) -> Result<Vec<ItemChange>> {
        let mut out = Vec::new();
        let from = change_key(after.saturating_add(1));
        for entry in self.t.search_pending.range(from.to_vec()..vec![CHANGE + 1]) {
            let (key, ids) = entry?;
            let Some(seq) = key
                .get(1..)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .map(u64::from_be_bytes)
            else {
                continue;
            };
            let list = ids.strip_prefix(&[BATCH]).unwrap_or(&ids);
            for id in String::from_utf8_lossy(list).split('\n') {
                if !id.is_empty() {
                    out.push(ItemChange {
                        seq,
                        id: id.to_string(),
                    });
                }
            }
            if out.len() >= limit {
                break;
            }
        }
        Ok(out)
    }

    async fn forget_item_changes(&self, seqs: &[u64]) -> Result<()> {
        if self.writable().is_err() {
            // Left for the next commit: the index replays them at worst.
            return Ok(());
        }
        let mut batch = sled::Batch::default();
        for seq in seqs {
            batch.remove(&change_key(*seq));
        }
        self.t.search_pending.apply_batch(batch)?;
        Ok(())
    }
}

/// Tests of sled's own write order for item batches, of mending after a crash, and of
/// the change log the search index follows after a crash: sled only (crash injection
/// with `CRASH_AFTER`, sled's trees and its `search_pending` log, `crash_copy` of its
/// files).
/// They run on a current-thread runtime so that the thread's test switches
/// (`CRASH_AFTER`, `lock::NO_BACKGROUND_FLUSH`) reach the backend.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::sled::testing::open_sled;
    use crate::items::NewItem;
    use crate::items::tests::{item_id_for_url, new_item};
    use crate::search::tests::{item, subscriber, titles};
    use crate::testing::crash_copy;
    use crate::{Mark, Options, Store};

    /// Every (published, title, URL) entry names a stored item in its current version,
    /// every item has its three, and the count is right.
    async fn assert_trees_agree(store: &Store, sled: &SledBackend) {
        let mut expected = std::collections::BTreeSet::new();
        for entry in &sled.t.items {
            let (_, v) = entry.unwrap();
            let item: NewsItem = from_json(&v).unwrap();
            expected.insert(keys::published(item.published_date, &item.id).clone());
            expected.insert(keys::title(&item.title, &item.id).clone());
            if let Some(u) = &item.url {
                expected.insert([u.as_bytes(), b"\0", item.id.as_bytes()].concat());
            }
        }
        let mut found = std::collections::BTreeSet::new();
        for tree in [&sled.t.published_itemid, &sled.t.title_itemid] {
            found.extend(tree.iter().keys().map(|k| k.unwrap().to_vec()));
        }
        for entry in &sled.t.url_itemid {
            let (u, id) = entry.unwrap();
            found.insert([&u[..], b"\0", &id[..]].concat());
        }
        assert_eq!(found, expected);
        assert_eq!(store.item_count().await.unwrap(), sled.t.items.len() as u64);
    }

    #[tokio::test]
    async fn a_batch_cut_short_anywhere_is_mended_when_the_store_opens() {
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
            let (store, sled) = open_sled(dir.path(), Options::default()).await.unwrap();
            let ids: Vec<String> = store
                .upsert_items(before.clone())
                .await
                .unwrap()
                .into_iter()
                .map(|u| u.id)
                .collect();
            moved.id = Some(ids[1].clone());
            CRASH_AFTER.with(|c| c.set(Some(cut)));
            let done = store.upsert_items([moved.clone(), fresh.clone()]).await;
            CRASH_AFTER.with(|c| c.set(None));
            if done.is_ok() {
                break;
            }
            cuts += 1;
            drop((store, sled));
            let (store, sled) = open_sled(dir.path(), Options::default()).await.unwrap();
            assert_trees_agree(&store, &sled).await;
            assert!(
                sled.t.search_pending.is_empty(),
                "cut {cut}: mended and indexed"
            );
            assert_eq!(
                store.index().unwrap().searcher().num_docs(),
                store.item_count().await.unwrap()
            );
            // Writing the batch again gives what an uninterrupted write gives.
            store
                .upsert_items([moved.clone(), fresh.clone()])
                .await
                .unwrap();
            assert_trees_agree(&store, &sled).await;
            assert_eq!(store.item_count().await.unwrap(), 3, "cut {cut}");
            assert_eq!(store.item(&ids[1]).await.unwrap().unwrap().title, "Moved");
        }
        assert!(
            cuts >= 10,
            "the batch has a write to cut after each step ({cuts})"
        );
    }

    #[tokio::test]
    async fn a_mark_acknowledged_on_an_item_whose_batch_was_cut_before_its_flush_survives_a_crash()
    {
        super::super::lock::NO_BACKGROUND_FLUSH.with(|f| f.set(true));
        let dir = tempfile::tempdir().unwrap();
        let live = dir.path().join("live");
        let (store, sled) = open_sled(&live, Options::default()).await.unwrap();
        let user = store
            .create_user("m@example.com", "hash".into(), Default::default(), true)
            .await
            .unwrap()
            .id;
        let url = "https://a.example/late";
        // The batch writes the item and its four entries, and stops where its flush
        // comes, as a crash there would stop it: the item is visible and not on disk.
        CRASH_AFTER.with(|c| c.set(Some(4)));
        let cut = store
            .upsert_items([new_item("Late", Some(url), "2026-03-01T00:00:00Z")])
            .await;
        CRASH_AFTER.with(|c| c.set(None));
        assert!(cut.is_err(), "the batch was cut before its flush");
        let id = item_id_for_url(url);
        assert!(
            store.item_exists(&id).await.unwrap(),
            "readers see the item"
        );
        let syncs = sled.syncs();
        let marks = store.set_mark(&user, &id, Mark::Favorite).await.unwrap();
        assert!(marks.favorite);
        assert_eq!(
            sled.syncs(),
            syncs + 1,
            "the mark waited for a sync of its item"
        );
        // With nothing in flight, the next mark costs no sled sync.
        store.set_mark(&user, &id, Mark::Favorite).await.unwrap();
        assert_eq!(sled.syncs(), syncs + 1);

        // kill -9 now, and start again.
        let crashed = dir.path().join("crashed");
        crash_copy(&live, &crashed);
        let (store, sled) = open_sled(&crashed, Options::default()).await.unwrap();
        super::super::lock::NO_BACKGROUND_FLUSH.with(|f| f.set(false));
        assert!(
            store.item(&id).await.unwrap().is_some(),
            "the marked item is lost"
        );
        assert!(store.has_mark(&user, &id, Mark::Favorite).await.unwrap());
        assert_eq!(
            store.marked_items(&user, Mark::Favorite).await.unwrap()[0].id,
            id
        );
        assert_trees_agree(&store, &sled).await;
    }

    #[tokio::test]
    async fn pending_writes_are_indexed_and_a_stale_index_rebuilt_on_open() {
        let dir = tempfile::tempdir().unwrap();
        let v = subscriber("u");
        let kept;
        {
            let (store, sled) = open_sled(dir.path(), Options::default()).await.unwrap();
            kept = store
                .upsert_item(item(
                    "Kept",
                    "One",
                    "https://a.example/1",
                    "2026-01-01T00:00:00Z",
                ))
                .await
                .unwrap()
                .id;
            // As after a crash between the sled write and the index commit: the index
            // lacks the item and its id is pending.
            let lost = store
                .upsert_item(item(
                    "Lost write",
                    "Two",
                    "https://a.example/2",
                    "2026-01-02T00:00:00Z",
                ))
                .await
                .unwrap();
            let mut w = store.index().unwrap().lock().await;
            w.writer
                .delete_term(store.index().unwrap().id_term(&lost.id));
            store.index().unwrap().commit(&mut w).unwrap();
            drop(w);
            sled.t
                .search_pending
                .insert(lost.id.as_bytes(), &[1])
                .unwrap();
            assert!(titles(&store, &v, "lost").await.is_empty());
        }
        {
            let (store, sled) = open_sled(dir.path(), Options::default()).await.unwrap();
            assert_eq!(titles(&store, &v, "lost").await, ["Lost write"]);
            assert!(sled.t.search_pending.is_empty());
            // An index that lost a document without a pending mark is found out by count.
            let mut w = store.index().unwrap().lock().await;
            w.writer.delete_term(store.index().unwrap().id_term(&kept));
            store.index().unwrap().commit(&mut w).unwrap();
            drop(w);
            assert!(titles(&store, &v, "kept").await.is_empty());
        }
        let (store, _sled) = open_sled(dir.path(), Options::default()).await.unwrap();
        assert_eq!(titles(&store, &v, "kept").await, ["Kept"]);
    }

    #[tokio::test]
    async fn a_batch_left_pending_by_a_crash_is_indexed_on_open() {
        let dir = tempfile::tempdir().unwrap();
        let v = subscriber("t");
        {
            let (store, sled) = open_sled(dir.path(), Options::default()).await.unwrap();
            let written = store
                .upsert_items((0..3).map(|i| {
                    item(
                        &format!("Batch {i}"),
                        "Imported",
                        &format!("https://a.example/{i}"),
                        "2026-01-01T00:00:00Z",
                    )
                }))
                .await
                .unwrap();
            assert!(sled.t.search_pending.is_empty(), "cleared once committed");
            // As after a crash between the batch's sled transaction and its commit.
            let mut w = store.index().unwrap().lock().await;
            for up in &written {
                w.writer.delete_term(store.index().unwrap().id_term(&up.id));
            }
            store.index().unwrap().commit(&mut w).unwrap();
            drop(w);
            let ids: Vec<&str> = written.iter().map(|u| u.id.as_str()).collect();
            let key = [&[BATCH][..], &7u64.to_be_bytes()].concat();
            sled.t
                .search_pending
                .insert(key, ids.join("\n").as_bytes())
                .unwrap();
            assert!(titles(&store, &v, "batch").await.is_empty());
        }
        let (store, sled) = open_sled(dir.path(), Options::default()).await.unwrap();
        assert_eq!(titles(&store, &v, "batch").await.len(), 3);
        assert!(sled.t.search_pending.is_empty());
    }

    /// An import commits the index only now and then: what it wrote since is in sled and
    /// its change log, and a `kill -9` before the commit leaves it to be indexed on open.
    #[tokio::test]
    async fn import_batches_handed_to_the_index_but_not_committed_survive_a_crash() {
        let dir = tempfile::tempdir().unwrap();
        let live = dir.path().join("live");
        let v = subscriber("t");
        let (store, sled) = open_sled(&live, Options::default()).await.unwrap();
        let items = (0..3).map(|i| {
            Ok(item(
                &format!("Uncommitted {i}"),
                "Imported",
                &format!("https://a.example/{i}"),
                "2026-01-01T00:00:00Z",
            ))
        });
        let writer = store.lock_replica().await;
        let mut changes = Vec::new();
        let (done, failed) = store
            .write_checked(writer.as_deref(), items, &mut changes)
            .await
            .unwrap();
        drop(writer);
        assert!(failed.is_none());
        assert_eq!(done.len(), 3);
        assert!(!changes.is_empty());
        assert!(!sled.t.search_pending.is_empty(), "logged until committed");
        assert!(titles(&store, &v, "uncommitted").await.is_empty());

        let crashed = dir.path().join("crashed");
        crash_copy(&live, &crashed);
        let (after, after_sled) = open_sled(&crashed, Options::default()).await.unwrap();
        assert_eq!(titles(&after, &v, "uncommitted").await.len(), 3);
        assert!(after_sled.t.search_pending.is_empty());

        // And the import's own commit, had it come, makes them searchable and forgets them.
        store
            .commit_index(store.lock_replica().await, &mut changes)
            .await
            .unwrap();
        assert!(changes.is_empty());
        assert_eq!(titles(&store, &v, "uncommitted").await.len(), 3);
        assert!(sled.t.search_pending.is_empty());
    }
}
