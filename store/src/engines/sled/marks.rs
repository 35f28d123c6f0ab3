//! Marks and shares in sled: one tree per mark (`userid_favorites`, `userid_hidden`,
//! `userid_read`: the reader's items with the time they were marked), the reverse index
//! `itemuser_mark` (every mark of an item, to clear them when it is removed), each
//! reader's counts in `userid_markcounts`, and shares in `userid_shared`.
//!
//! Changes go through the journal (see `journal`): a change is appended, synced with the
//! others of its batch, applied here by the journal's writer ([`apply_change`]) and
//! answered once on disk.

use chrono::{DateTime, Utc};

use super::journal::Record;
use super::out_of_feed::OutSet;
use super::{Memory, SledBackend, Trees, from_json, keys, to_json};
use crate::backend::{MarkChange, MarkCounts, MarkStore, Share};
use crate::{Error, ItemMarks, Mark, Result};

/// The byte that names a mark in `itemuser_mark` and the journal.
pub(crate) fn mark_byte(mark: Mark) -> u8 {
    match mark {
        Mark::Favorite => b'f',
        Mark::Hidden => b'h',
        Mark::Read => b'r',
    }
}

/// The mark a byte names.
pub(crate) fn mark_of_byte(b: u8) -> Option<Mark> {
    Mark::ALL.into_iter().find(|m| mark_byte(*m) == b)
}

/// A set of marks as one byte: bit `Mark::index`.
pub(crate) fn mask(marks: ItemMarks) -> u8 {
    Mark::ALL
        .into_iter()
        .filter(|m| marks.has(*m))
        .fold(0, |acc, m| acc | (1 << m.index()))
}

/// The marks of a [`mask`].
pub(crate) fn unmask(bits: u8) -> ItemMarks {
    let mut marks = ItemMarks::default();
    for m in Mark::ALL {
        if bits & (1 << m.index()) != 0 {
            marks.set(m);
        }
    }
    marks
}

/// The value of `userid_markcounts`: one big-endian u64 per mark, in [`Mark::ALL`] order.
fn counts_from(bytes: Option<&[u8]>) -> MarkCounts {
    let mut counts = MarkCounts::default();
    if let Some(b) = bytes {
        for (i, c) in counts.0.iter_mut().enumerate() {
            *c = keys::u64_from(b.get(i * 8..));
        }
    }
    counts
}

fn counts_bytes(counts: MarkCounts) -> Vec<u8> {
    counts.0.iter().flat_map(|c| keys::u64_value(*c)).collect()
}

impl Trees {
    /// The tree of one mark.
    pub(crate) fn mark_tree(&self, mark: Mark) -> &sled::Tree {
        match mark {
            Mark::Favorite => &self.userid_favorites,
            Mark::Hidden => &self.userid_hidden,
            Mark::Read => &self.userid_read,
        }
    }
}

impl SledBackend {
    /// The reader's hidden and read ids (cached; see `out_of_feed`) and their version.
    pub(crate) fn out_of_feed(&self, reader: &str) -> Result<(OutSet, u64)> {
        self.mem
            .out_of_feed
            .get_or_load(reader, || self.load_out_of_feed(reader))
    }

    /// Reads a reader's ids out of their feed from disk.
    fn load_out_of_feed(&self, reader: &str) -> Result<std::collections::HashSet<Box<str>>> {
        let leave: Vec<Mark> = Mark::ALL.into_iter().filter(|m| m.leaves_feed()).collect();
        self.marked_set(reader, &leave)
    }

    /// The ids a reader marked with any of `marks`, from disk.
    pub(crate) fn marked_set(
        &self,
        reader: &str,
        marks: &[Mark],
    ) -> Result<std::collections::HashSet<Box<str>>> {
        let mut ids = std::collections::HashSet::new();
        for &mark in marks {
            for key in self
                .t
                .mark_tree(mark)
                .scan_prefix(keys::prefix(reader))
                .keys()
            {
                if let Some(id) = keys::last_part(&key?) {
                    ids.insert(id.into());
                }
            }
        }
        Ok(ids)
    }

    /// Journals a change of `item`; refused at once when the journal failed or the item
    /// does not exist, and answered once on disk.
    async fn journal_change(&self, item: &str, record: Record) -> Result<ItemMarks> {
        self.writable()?;
        self.journal.check()?;
        if !item_exists(&self.t, &self.mem, item)? {
            return Err(Error::NotFound("item"));
        }
        self.journal.append(record).on_disk().await
    }

    /// Deletes every mark and share of a reader (account deletion).
    pub(crate) fn forget_marks(&self, reader: &str) -> Result<()> {
        for mark in Mark::ALL {
            let tree = self.t.mark_tree(mark);
            for key in tree.scan_prefix(keys::prefix(reader)).keys() {
                let key = key?;
                if let Some(item) = keys::last_part(&key) {
                    self.t
                        .itemuser_mark
                        .remove(keys::join(item.as_bytes(), reader.as_bytes()))?;
                }
                tree.remove(key)?;
            }
        }
        for key in self
            .t
            .userid_shared
            .scan_prefix(keys::prefix(reader))
            .keys()
        {
            self.t.userid_shared.remove(key?)?;
        }
        self.t.userid_markcounts.remove(reader.as_bytes())?;
        self.mem.out_of_feed.forget(reader);
        Ok(())
    }

    /// Deletes every reader's marks of a removed item, keeping their counts right. Walks
    /// only the item's own keys of the reverse index. Shares of a removed item stay until
    /// the account goes; the Shared list skips items that no longer exist.
    pub(crate) fn forget_item_marks(&self, item: &str) -> Result<()> {
        for entry in self.t.itemuser_mark.scan_prefix(keys::prefix(item)) {
            let (key, _) = entry?;
            let Some(reader) = keys::last_part(&key) else {
                continue;
            };
            self.clear_marks_of_removed(reader, item)?;
        }
        Ok(())
    }

    /// Clears a reader's marks of an item that no longer exists.
    fn clear_marks_of_removed(&self, reader: &str, item: &str) -> Result<()> {
        use sled::Transactional;
        let key = keys::join(reader.as_bytes(), item.as_bytes());
        let reverse = keys::join(item.as_bytes(), reader.as_bytes());
        let t = &self.t;
        let mut cached = self.mem.out_of_feed.lock(reader);
        for mark in Mark::ALL {
            (t.mark_tree(mark), &t.itemuser_mark, &t.userid_markcounts).transaction(
                |(tree, itemuser, counts_tree)| {
                    if tree.remove(key.as_slice())?.is_some() {
                        let mut counts =
                            counts_from(counts_tree.get(reader.as_bytes())?.as_deref());
                        counts.add(mark, -1);
                        counts_tree.insert(reader.as_bytes(), counts_bytes(counts))?;
                    }
                    itemuser.remove(reverse.as_slice())?;
                    Ok::<_, sled::transaction::ConflictableTransactionError<Error>>(())
                },
            )?;
        }
        cached.apply(reader, item, false);
        Ok(())
    }

    /// Builds the reverse index and the counts from the mark trees, once, for a store
    /// written before they existed; marks of items that no longer exist are dropped.
    pub(crate) fn index_marks_once(&self) -> Result<()> {
        const DONE: &str = "marks_indexed_v1";
        if self.t.meta.contains_key(DONE)? {
            return Ok(());
        }
        let mut counts: std::collections::HashMap<String, MarkCounts> = Default::default();
        for mark in Mark::ALL {
            for key in self.t.mark_tree(mark).iter().keys() {
                let key = key?;
                let Some(at) = key.iter().position(|b| *b == keys::SEP) else {
                    continue;
                };
                let (reader, item) = (&key[..at], &key[at + 1..]);
                if !self.t.items.contains_key(item)? {
                    self.t.mark_tree(mark).remove(&key)?;
                    continue;
                }
                self.t
                    .itemuser_mark
                    .insert(keys::join(item, reader), &[mark_byte(mark)])?;
                counts
                    .entry(String::from_utf8_lossy(reader).into_owned())
                    .or_default()
                    .add(mark, 1);
            }
        }
        for (reader, c) in counts {
            self.t
                .userid_markcounts
                .insert(reader.as_bytes(), counts_bytes(c))?;
        }
        self.t.meta.insert(DONE, &[1])?;
        self.sync()
    }

    /// After replaying the journal: the reverse index entries of the items these readers
    /// marked, and the readers' counts, computed again from the mark trees, which a crash
    /// may have left ahead of them. Walks only these readers' keys.
    pub(crate) fn repair_marks<'a>(
        &self,
        touched: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<()> {
        let mut readers = std::collections::BTreeSet::new();
        for (reader, item) in touched {
            let key = keys::join(reader.as_bytes(), item.as_bytes());
            let reverse = keys::join(item.as_bytes(), reader.as_bytes());
            let mut marked = None;
            for mark in Mark::ALL {
                if self.t.mark_tree(mark).contains_key(&key)? {
                    marked = Some(mark);
                }
            }
            match marked {
                Some(m) => self.t.itemuser_mark.insert(reverse, &[mark_byte(m)])?,
                None => self.t.itemuser_mark.remove(reverse)?,
            };
            readers.insert(reader);
        }
        for reader in readers {
            let mut counts = MarkCounts::default();
            for mark in Mark::ALL {
                let n = self
                    .t
                    .mark_tree(mark)
                    .scan_prefix(keys::prefix(reader))
                    .count();
                counts.add(mark, i64::try_from(n).unwrap_or(i64::MAX));
            }
            self.t
                .userid_markcounts
                .insert(reader.as_bytes(), counts_bytes(counts))?;
        }
        Ok(())
    }
}

/// Whether the item exists: from the ids known to exist, else from sled's `items` tree,
/// whose answer is then kept (see `known_items`).
pub(crate) fn item_exists(t: &Trees, mem: &Memory, item: &str) -> Result<bool> {
    match mem.known_items.check(item) {
        Ok(()) => Ok(true),
        Err(check) => {
            let exists = t.items.contains_key(item.as_bytes())?;
            if exists {
                mem.known_items.insert(item, check);
            }
            Ok(exists)
        }
    }
}

/// Applies one journaled change (see `journal`) and answers its outcome: the item's
/// marks after it, or why it was refused (an item that no longer exists).
///
/// Only the journal's writer and replay call this, one change at a time, so it needs no
/// sled transaction (which would write sled's log out twice): the reader's shard lock
/// keeps the few other writers of marks (`clear_marks_of_removed`) from interleaving; an
/// item removed while its mark was set is found by a second look and the mark cleared
/// again; and after a crash the journal holds every change sled may have kept only in
/// part, which replay applies again, recounting what they touched
/// ([`SledBackend::repair_marks`]).
pub(crate) fn apply_change(t: &Trees, mem: &Memory, record: &Record) -> Result<ItemMarks> {
    let cache = &mem.out_of_feed;
    let (Record::Mark { user, item, .. } | Record::Share { user, item, .. }) = record;
    if !item_exists(t, mem, item)? {
        return Err(Error::NotFound("item"));
    }
    let key = keys::join(user.as_bytes(), item.as_bytes());
    let (clear, set, at) = match record {
        Record::Share { value, .. } => {
            t.userid_shared.insert(key, value.as_slice())?;
            return Ok(ItemMarks::default());
        }
        Record::Mark { clear, set, at, .. } => (unmask(*clear), *set, at),
    };
    let mut cached = cache.lock(user);
    let mut counts = counts_from(t.userid_markcounts.get(user.as_bytes())?.as_deref());
    let mut now_marked = ItemMarks::default();
    for m in Mark::ALL {
        let tree = t.mark_tree(m);
        let had = if set == Some(m) {
            tree.insert(key.as_slice(), at)?.is_some()
        } else if clear.has(m) {
            tree.remove(key.as_slice())?.is_some()
        } else {
            if tree.contains_key(key.as_slice())? {
                now_marked.set(m);
            }
            continue;
        };
        let has = set == Some(m);
        if has {
            now_marked.set(m);
        }
        match (had, has) {
            (false, true) => counts.add(m, 1),
            (true, false) => counts.add(m, -1),
            _ => {}
        }
    }
    let reverse = keys::join(item.as_bytes(), user.as_bytes());
    match Mark::ALL.into_iter().find(|m| now_marked.has(*m)) {
        Some(m) => t.itemuser_mark.insert(reverse, &[mark_byte(m)])?,
        None => t.itemuser_mark.remove(reverse)?,
    };
    // Sound from the known ids too: `remove_item` forgets the id before sled removes the
    // item, so "known" here means the removal, if any, clears this mark after it.
    let removed = !item_exists(t, mem, item)?;
    if removed {
        // Removed while this change was applied: `remove_item` may have cleared the
        // item's marks before this one was set, so it is cleared here as it would be.
        for m in Mark::ALL {
            if t.mark_tree(m).remove(key.as_slice())?.is_some() {
                counts.add(m, -1);
            }
        }
        t.itemuser_mark
            .remove(keys::join(item.as_bytes(), user.as_bytes()))?;
        now_marked = ItemMarks::default();
    }
    t.userid_markcounts
        .insert(user.as_bytes(), counts_bytes(counts))?;
    let out = Mark::ALL
        .into_iter()
        .any(|m| m.leaves_feed() && now_marked.has(m));
    cached.apply(user, item, out);
    if removed {
        return Err(Error::NotFound("item"));
    }
    Ok(now_marked)
}

#[async_trait::async_trait]
impl MarkStore for SledBackend {
    async fn change_marks(
        &self,
        reader: &str,
        item: &str,
        change: MarkChange,
        at: DateTime<Utc>,
    ) -> Result<ItemMarks> {
        let record = Record::Mark {
            user: reader.into(),
            item: item.into(),
            clear: mask(change.clear),
            set: change.set,
            at: keys::time(at),
        };
        self.journal_change(item, record).await
    }

    async fn item_marks(&self, reader: &str, item: &str) -> Result<ItemMarks> {
        let key = keys::join(item.as_bytes(), reader.as_bytes());
        let mut marks = ItemMarks::default();
        if let Some(m) = self
            .t
            .itemuser_mark
            .get(key)?
            .and_then(|v| v.first().copied().and_then(mark_of_byte))
        {
            marks.set(m);
        }
        Ok(marks)
    }

    async fn marked_ids(&self, reader: &str, mark: Mark) -> Result<Vec<String>> {
        let mut marked = Vec::new();
        for entry in self.t.mark_tree(mark).scan_prefix(keys::prefix(reader)) {
            let (key, at) = entry?;
            if let Some(id) = keys::last_part(&key) {
                marked.push((at, id.to_string()));
            }
        }
        marked.sort_by(|a, b| b.0.cmp(&a.0));
        Ok(marked.into_iter().map(|(_, id)| id).collect())
    }

    async fn mark_counts(&self, reader: &str) -> Result<MarkCounts> {
        Ok(counts_from(
            self.t.userid_markcounts.get(reader.as_bytes())?.as_deref(),
        ))
    }

    async fn reader_version(&self, reader: &str) -> Result<u64> {
        Ok(self.out_of_feed(reader)?.1)
    }

    async fn share(&self, reader: &str, item: &str, share: &Share) -> Result<()> {
        let record = Record::Share {
            user: reader.into(),
            item: item.into(),
            value: to_json(share),
        };
        self.journal_change(item, record).await.map(drop)
    }

    async fn has_shared(&self, reader: &str, item: &str) -> Result<bool> {
        Ok(self
            .t
            .userid_shared
            .contains_key(keys::join(reader.as_bytes(), item.as_bytes()))?)
    }

    async fn shares(&self, reader: &str) -> Result<Vec<(String, Share)>> {
        let mut out = Vec::new();
        for entry in self.t.userid_shared.scan_prefix(keys::prefix(reader)) {
            let (key, rec) = entry?;
            let share: Share = from_json(&rec)?;
            if let Some(id) = keys::last_part(&key) {
                out.push((id.to_string(), share));
            }
        }
        out.sort_by_key(|(_, s)| std::cmp::Reverse(s.at));
        Ok(out)
    }
}

/// Tests of how sled keeps marks (the reverse index and counts built once for a store
/// written before they existed): sled only.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::sled::testing::open_sled;
    use crate::items::tests::new_item;
    use crate::marks::tests::counts;

    #[tokio::test]
    async fn a_store_from_before_the_counts_gets_them_once() {
        let dir = tempfile::tempdir().unwrap();
        let (store, sled) = open_sled(dir.path(), crate::Options::default())
            .await
            .unwrap();
        let a = store
            .upsert_item(new_item("A", None, "2026-01-01T00:00:00Z"))
            .await
            .unwrap()
            .id;
        store.set_mark("u", &a, Mark::Hidden).await.unwrap();
        // As an older version left it: marks only, and one of an item since removed.
        sled.t
            .userid_read
            .insert(keys::join(b"u", b"gone"), &keys::time(Utc::now()))
            .unwrap();
        sled.t.itemuser_mark.clear().unwrap();
        sled.t.userid_markcounts.clear().unwrap();
        sled.t.meta.remove("marks_indexed_v1").unwrap();
        sled.index_marks_once().unwrap();
        assert_eq!(counts(&store, "u").await, [0, 1, 0]);
        assert!(store.item_marks("u", &a).await.unwrap().hidden);
        assert!(!store.has_mark("u", "gone", Mark::Read).await.unwrap());
    }
}
