//! A user's marks on items (spec section 4): favourite, hidden and read are mutually
//! exclusive, so setting one clears the other two in the same transaction; shares are
//! recorded separately and do not interact with them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sled::Transactional;

use radar_api::ItemMarks;

use crate::journal::Record;
use crate::out_of_feed::OutOfFeedCache;
use crate::{
    Durable, Error, Mark, NewsItem, Result, SharedItem, Store, Trees, from_json, keys, to_json,
};

#[derive(Serialize, Deserialize)]
struct ShareRecord {
    at: DateTime<Utc>,
    platform: String,
}

/// How many items of each mark a user has: three big-endian u64 (favourite, hidden,
/// read), the value of `userid_markcounts`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct MarkCounts([u64; 3]);

impl MarkCounts {
    fn slot(mark: Mark) -> usize {
        match mark {
            Mark::Favorite => 0,
            Mark::Hidden => 1,
            Mark::Read => 2,
        }
    }

    fn from_bytes(bytes: Option<&[u8]>) -> Self {
        let mut counts = [0; 3];
        if let Some(b) = bytes {
            for (i, c) in counts.iter_mut().enumerate() {
                *c = keys::u64_from(b.get(i * 8..));
            }
        }
        Self(counts)
    }

    fn to_bytes(self) -> [u8; 24] {
        let mut out = [0; 24];
        for (i, c) in self.0.iter().enumerate() {
            out[i * 8..i * 8 + 8].copy_from_slice(&keys::u64_value(*c));
        }
        out
    }

    pub(crate) fn add(&mut self, mark: Mark, delta: i64) {
        let c = &mut self.0[Self::slot(mark)];
        *c = c.saturating_add_signed(delta);
    }

    /// Items out of the user's feed (hidden or read).
    pub(crate) fn out_of_feed(self) -> u64 {
        self.0[1] + self.0[2]
    }
}

/// The byte that names a mark in `itemuser_mark`.
pub(crate) fn mark_byte(mark: Mark) -> u8 {
    match mark {
        Mark::Favorite => b'f',
        Mark::Hidden => b'h',
        Mark::Read => b'r',
    }
}

fn mark_of_byte(b: u8) -> Option<Mark> {
    Mark::ALL.into_iter().find(|m| mark_byte(*m) == b)
}

impl Store {
    pub(crate) fn mark_tree(&self, mark: Mark) -> &sled::Tree {
        match mark {
            Mark::Favorite => &self.t.userid_favorites,
            Mark::Hidden => &self.t.userid_hidden,
            Mark::Read => &self.t.userid_read,
        }
    }

    /// Marks an item, clearing the other two marks atomically, and answers the item's
    /// marks now, once the change is on disk. Unknown items are refused.
    pub fn set_mark(&self, user: &str, item: &str, mark: Mark) -> Result<ItemMarks> {
        self.change_mark(user, item, mark, true)?.wait()
    }

    /// Removes one mark and leaves the others alone, and answers the item's marks now,
    /// once the change is on disk. Unknown items are refused; clearing a mark the item
    /// does not have is not an error.
    pub fn clear_mark(&self, user: &str, item: &str, mark: Mark) -> Result<ItemMarks> {
        self.change_mark(user, item, mark, false)?.wait()
    }

    /// Sets (`on`) or clears a mark as [`Store::set_mark`] and [`Store::clear_mark`] do,
    /// through the journal: the change is done, and its outcome known, once it is on disk.
    pub fn change_mark(
        &self,
        user: &str,
        item: &str,
        mark: Mark,
        on: bool,
    ) -> Result<Durable<ItemMarks>> {
        self.writable()?;
        let record = Record::Mark {
            user: user.into(),
            item: item.into(),
            mark: mark_byte(mark),
            on,
            at: keys::time(Utc::now()),
        };
        self.journal_change(item, record, |marks| marks)
    }

    /// Journals a change of `item`; refused at once when the journal failed or the item
    /// does not exist.
    fn journal_change<T>(
        &self,
        item: &str,
        record: Record,
        answer: fn(ItemMarks) -> T,
    ) -> Result<Durable<T>> {
        self.journal.check()?;
        if !self.item_exists(item)? {
            return Err(Error::NotFound("item"));
        }
        Ok(self.journal.append(record, answer))
    }

    /// Whether the item carries the mark for this user.
    pub fn has_mark(&self, user: &str, item: &str, mark: Mark) -> Result<bool> {
        Ok(self
            .mark_tree(mark)
            .contains_key(keys::join(user.as_bytes(), item.as_bytes()))?)
    }

    /// The user's marks on one item.
    pub fn item_marks(&self, user: &str, item: &str) -> Result<ItemMarks> {
        let key = keys::join(item.as_bytes(), user.as_bytes());
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

    /// Whether the item is out of this user's feed.
    pub fn is_hidden_or_read(&self, user: &str, item: &str) -> Result<bool> {
        let key = keys::join(user.as_bytes(), item.as_bytes());
        Ok(self.t.userid_hidden.contains_key(&key)? || self.t.userid_read.contains_key(&key)?)
    }

    /// How many items of each mark the user has (one read, whatever the number of marks).
    pub(crate) fn mark_counts(&self, user: &str) -> Result<MarkCounts> {
        Ok(MarkCounts::from_bytes(
            self.t.userid_markcounts.get(user.as_bytes())?.as_deref(),
        ))
    }

    /// The user's items with this mark, most recently marked first. Walks only this
    /// user's keys.
    pub fn marked_items(&self, user: &str, mark: Mark) -> Result<Vec<NewsItem>> {
        let mut marked = Vec::new();
        for entry in self.mark_tree(mark).scan_prefix(keys::prefix(user)) {
            let (key, at) = entry?;
            if let Some(item) = keys::last_part(&key)
                .map(|id| self.item(id))
                .transpose()?
                .flatten()
            {
                marked.push((at.to_vec(), item));
            }
        }
        marked.sort_by(|a, b| b.0.cmp(&a.0));
        Ok(marked.into_iter().map(|(_, item)| item).collect())
    }

    /// Records that the user shared an item on a platform (the latest share is kept),
    /// once the record is on disk.
    pub fn record_share(&self, user: &str, item: &str, platform: &str) -> Result<()> {
        self.share(user, item, platform)?.wait()
    }

    /// [`Store::record_share`] through the journal: done once it is on disk.
    pub fn share(&self, user: &str, item: &str, platform: &str) -> Result<Durable<()>> {
        self.writable()?;
        let record = Record::Share {
            user: user.into(),
            item: item.into(),
            value: to_json(&ShareRecord {
                at: Utc::now(),
                platform: platform.to_string(),
            }),
        };
        self.journal_change(item, record, |_| ())
    }

    /// Whether the user shared the item.
    pub fn has_shared(&self, user: &str, item: &str) -> Result<bool> {
        Ok(self
            .t
            .userid_shared
            .contains_key(keys::join(user.as_bytes(), item.as_bytes()))?)
    }

    /// The user's shared items, newest share first.
    pub fn shared_items(&self, user: &str) -> Result<Vec<SharedItem>> {
        let mut out = Vec::new();
        for entry in self.t.userid_shared.scan_prefix(keys::prefix(user)) {
            let (key, rec) = entry?;
            let rec: ShareRecord = from_json(&rec)?;
            if let Some(item) = keys::last_part(&key)
                .map(|id| self.item(id))
                .transpose()?
                .flatten()
            {
                out.push(SharedItem {
                    item,
                    shared_at: rec.at,
                    platform: rec.platform,
                });
            }
        }
        out.sort_by_key(|s| std::cmp::Reverse(s.shared_at));
        Ok(out)
    }

    /// Deletes every mark and share of a user (account deletion).
    pub(crate) fn forget_marks(&self, user: &str) -> Result<()> {
        for tree in [
            &self.t.userid_favorites,
            &self.t.userid_hidden,
            &self.t.userid_read,
            &self.t.userid_shared,
        ] {
            for key in tree.scan_prefix(keys::prefix(user)).keys() {
                let key = key?;
                if let Some(item) = keys::last_part(&key) {
                    self.t
                        .itemuser_mark
                        .remove(keys::join(item.as_bytes(), user.as_bytes()))?;
                }
                tree.remove(key)?;
            }
        }
        self.t.userid_markcounts.remove(user.as_bytes())?;
        self.mem.out_of_feed.forget(user);
        Ok(())
    }

    /// Deletes every user's marks of a removed item, keeping their counts right. Walks
    /// only the item's own keys of the reverse index. Shares of a removed item stay until
    /// the account goes; the Shared list skips items that no longer exist.
    pub(crate) fn forget_item_marks(&self, item: &str) -> Result<()> {
        for entry in self.t.itemuser_mark.scan_prefix(keys::prefix(item)) {
            let (key, _) = entry?;
            let Some(user) = keys::last_part(&key) else {
                continue;
            };
            let user = user.to_string();
            for mark in Mark::ALL {
                self.clear_mark_of_removed(&user, item, mark)?;
            }
        }
        Ok(())
    }

    /// `clear_mark` for an item that no longer exists.
    fn clear_mark_of_removed(&self, user: &str, item: &str, mark: Mark) -> Result<()> {
        let key = keys::join(user.as_bytes(), item.as_bytes());
        let reverse = keys::join(item.as_bytes(), user.as_bytes());
        let t = &self.t;
        let mut cached = self.mem.out_of_feed.lock(user);
        (self.mark_tree(mark), &t.itemuser_mark, &t.userid_markcounts).transaction(
            |(tree, itemuser, counts_tree)| {
                if tree.remove(key.as_slice())?.is_some() {
                    let mut counts =
                        MarkCounts::from_bytes(counts_tree.get(user.as_bytes())?.as_deref());
                    counts.add(mark, -1);
                    counts_tree.insert(user.as_bytes(), &counts.to_bytes())?;
                }
                itemuser.remove(reverse.as_slice())?;
                Ok::<_, sled::transaction::ConflictableTransactionError<Error>>(())
            },
        )?;
        if mark.leaves_feed() {
            cached.apply(user, item, false);
        }
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
            for key in self.mark_tree(mark).iter().keys() {
                let key = key?;
                let Some(at) = key.iter().position(|b| *b == keys::SEP) else {
                    continue;
                };
                let (user, item) = (&key[..at], &key[at + 1..]);
                if !self.t.items.contains_key(item)? {
                    self.mark_tree(mark).remove(&key)?;
                    continue;
                }
                self.t
                    .itemuser_mark
                    .insert(keys::join(item, user), &[mark_byte(mark)])?;
                counts
                    .entry(String::from_utf8_lossy(user).into_owned())
                    .or_default()
                    .add(mark, 1);
            }
        }
        for (user, c) in counts {
            self.t
                .userid_markcounts
                .insert(user.as_bytes(), &c.to_bytes())?;
        }
        self.t.meta.insert(DONE, &[1])?;
        self.flush()
    }
}

/// Applies one journaled change (see `journal`) and answers its outcome: the item's
/// marks after it, or why it was refused (an item that no longer exists).
///
/// Only the journal's writer and replay call this, one change at a time, so it needs no
/// sled transaction (which would write sled's log out twice): the reader's shard lock
/// keeps the few other writers of marks (`clear_mark_of_removed`) from interleaving; an
/// item removed while its mark was set is found by a second look and the mark cleared
/// again; and after a crash the journal holds every change sled may have kept only in
/// part, which replay applies again, recounting what they touched
/// ([`Store::repair_marks`]).
pub(crate) fn apply_change(
    t: &Trees,
    cache: &OutOfFeedCache,
    record: &Record,
) -> Result<ItemMarks> {
    let (Record::Mark { user, item, .. } | Record::Share { user, item, .. }) = record;
    if !t.items.contains_key(item.as_bytes())? {
        return Err(Error::NotFound("item"));
    }
    let key = keys::join(user.as_bytes(), item.as_bytes());
    let (mark, on, at) = match record {
        Record::Share { value, .. } => {
            t.userid_shared.insert(key, value.as_slice())?;
            return Ok(ItemMarks::default());
        }
        Record::Mark { mark, on, at, .. } => (
            mark_of_byte(*mark).ok_or_else(|| Error::Invalid("unknown mark".into()))?,
            *on,
            at,
        ),
    };
    let mut cached = cache.lock(user);
    let mut counts = MarkCounts::from_bytes(t.userid_markcounts.get(user.as_bytes())?.as_deref());
    let mut now_marked = ItemMarks::default();
    let trees = [
        (Mark::Favorite, &t.userid_favorites),
        (Mark::Hidden, &t.userid_hidden),
        (Mark::Read, &t.userid_read),
    ];
    for (m, tree) in trees {
        let had = if m == mark && on {
            tree.insert(key.as_slice(), at)?.is_some()
        } else if m == mark || on {
            // Setting a mark clears the other two; clearing touches only its own.
            tree.remove(key.as_slice())?.is_some()
        } else {
            if tree.contains_key(key.as_slice())? {
                now_marked.set(m);
            }
            continue;
        };
        let has = m == mark && on;
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
    let removed = !t.items.contains_key(item.as_bytes())?;
    if removed {
        // Removed while this change was applied: `remove_item` may have cleared the
        // item's marks before this one was set, so it is cleared here as it would be.
        for (m, tree) in trees {
            if tree.remove(key.as_slice())?.is_some() {
                counts.add(m, -1);
            }
        }
        t.itemuser_mark
            .remove(keys::join(item.as_bytes(), user.as_bytes()))?;
        now_marked = ItemMarks::default();
    }
    t.userid_markcounts
        .insert(user.as_bytes(), &counts.to_bytes())?;
    cached.apply(user, item, now_marked.hidden || now_marked.read);
    if removed {
        return Err(Error::NotFound("item"));
    }
    Ok(now_marked)
}

impl Store {
    /// After replaying the journal: the reverse index entries of the items these users
    /// marked, and the users' counts, computed again from the mark trees, which a crash
    /// may have left ahead of them. Walks only these users' keys.
    pub(crate) fn repair_marks<'a>(
        &self,
        touched: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<()> {
        let mut users = std::collections::BTreeSet::new();
        for (user, item) in touched {
            let key = keys::join(user.as_bytes(), item.as_bytes());
            let reverse = keys::join(item.as_bytes(), user.as_bytes());
            let mut marked = None;
            for mark in Mark::ALL {
                if self.mark_tree(mark).contains_key(&key)? {
                    marked = Some(mark);
                }
            }
            match marked {
                Some(m) => self.t.itemuser_mark.insert(reverse, &[mark_byte(m)])?,
                None => self.t.itemuser_mark.remove(reverse)?,
            };
            users.insert(user);
        }
        for user in users {
            let mut counts = MarkCounts::default();
            for mark in Mark::ALL {
                let n = self.mark_tree(mark).scan_prefix(keys::prefix(user)).count();
                counts.add(mark, n as i64);
            }
            self.t
                .userid_markcounts
                .insert(user.as_bytes(), &counts.to_bytes())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::items::tests::new_item;
    use crate::test_store;

    #[test]
    fn marks_are_mutually_exclusive() {
        let (_d, store) = test_store();
        let id = store
            .upsert_item(new_item("A", None, "2026-01-01T00:00:00Z"))
            .unwrap()
            .id;
        let all = |s: &Store| {
            [Mark::Favorite, Mark::Hidden, Mark::Read].map(|m| s.has_mark("u", &id, m).unwrap())
        };
        store.set_mark("u", &id, Mark::Favorite).unwrap();
        assert_eq!(all(&store), [true, false, false]);
        store.set_mark("u", &id, Mark::Read).unwrap();
        assert_eq!(all(&store), [false, false, true]);
        store.set_mark("u", &id, Mark::Hidden).unwrap();
        assert_eq!(all(&store), [false, true, false]);
        store.set_mark("u", &id, Mark::Favorite).unwrap();
        assert_eq!(all(&store), [true, false, false]);
        store.clear_mark("u", &id, Mark::Favorite).unwrap();
        assert_eq!(all(&store), [false, false, false]);
    }

    #[test]
    fn unknown_items_cannot_be_marked() {
        let (_d, store) = test_store();
        assert!(matches!(
            store.set_mark("u", "nope", Mark::Read),
            Err(Error::NotFound("item"))
        ));
        assert!(matches!(
            store.record_share("u", "nope", "linkedin"),
            Err(Error::NotFound("item"))
        ));
    }

    #[test]
    fn lists_belong_to_one_user() {
        let (_d, store) = test_store();
        let a = store
            .upsert_item(new_item("A", None, "2026-01-01T00:00:00Z"))
            .unwrap()
            .id;
        let b = store
            .upsert_item(new_item("B", None, "2026-01-02T00:00:00Z"))
            .unwrap()
            .id;
        store.set_mark("u1", &a, Mark::Favorite).unwrap();
        store.set_mark("u10", &b, Mark::Favorite).unwrap();
        let mine: Vec<_> = store
            .marked_items("u1", Mark::Favorite)
            .unwrap()
            .into_iter()
            .map(|i| i.id)
            .collect();
        assert_eq!(mine, vec![a.clone()]);
        store.record_share("u1", &a, "linkedin").unwrap();
        assert_eq!(store.shared_items("u1").unwrap().len(), 1);
        assert!(store.shared_items("u10").unwrap().is_empty());
        store.forget_marks("u1").unwrap();
        assert!(store.marked_items("u1", Mark::Favorite).unwrap().is_empty());
        assert_eq!(store.marked_items("u10", Mark::Favorite).unwrap().len(), 1);
    }

    fn counts(store: &Store, user: &str) -> [u64; 3] {
        store.mark_counts(user).unwrap().0
    }

    #[test]
    fn counts_and_answers_follow_every_change() {
        let (_d, store) = test_store();
        let a = store
            .upsert_item(new_item("A", None, "2026-01-01T00:00:00Z"))
            .unwrap()
            .id;
        let b = store
            .upsert_item(new_item("B", None, "2026-01-02T00:00:00Z"))
            .unwrap()
            .id;
        let now = store.set_mark("u", &a, Mark::Favorite).unwrap();
        assert!(now.favorite && !now.hidden && !now.read);
        assert_eq!(counts(&store, "u"), [1, 0, 0]);
        store.set_mark("u", &a, Mark::Read).unwrap();
        store.set_mark("u", &a, Mark::Read).unwrap();
        assert_eq!(counts(&store, "u"), [0, 0, 1], "setting twice counts once");
        store.set_mark("u", &b, Mark::Hidden).unwrap();
        assert_eq!(counts(&store, "u"), [0, 1, 1]);
        assert_eq!(store.mark_counts("u").unwrap().out_of_feed(), 2);
        // Clearing a mark the item does not have changes nothing and reports the others.
        let now = store.clear_mark("u", &b, Mark::Favorite).unwrap();
        assert!(now.hidden);
        assert_eq!(counts(&store, "u"), [0, 1, 1]);
        assert_eq!(store.item_marks("u", &b).unwrap(), now);
        store.clear_mark("u", &b, Mark::Hidden).unwrap();
        assert_eq!(counts(&store, "u"), [0, 0, 1]);
        assert_eq!(counts(&store, "someone else"), [0, 0, 0]);
    }

    #[test]
    fn removing_an_item_clears_its_marks_for_everyone() {
        let (_d, store) = test_store();
        let a = store
            .upsert_item(new_item("A", None, "2026-01-01T00:00:00Z"))
            .unwrap()
            .id;
        store.set_mark("u1", &a, Mark::Read).unwrap();
        store.set_mark("u2", &a, Mark::Favorite).unwrap();
        store.remove_item(&a).unwrap();
        assert_eq!(counts(&store, "u1"), [0, 0, 0]);
        assert_eq!(counts(&store, "u2"), [0, 0, 0]);
        assert!(!store.has_mark("u1", &a, Mark::Read).unwrap());
        assert_eq!(store.t.itemuser_mark.len(), 0);
    }

    #[test]
    fn a_store_from_before_the_counts_gets_them_once() {
        let (_d, store) = test_store();
        let a = store
            .upsert_item(new_item("A", None, "2026-01-01T00:00:00Z"))
            .unwrap()
            .id;
        store.set_mark("u", &a, Mark::Hidden).unwrap();
        // As an older version left it: marks only, and one of an item since removed.
        store
            .t
            .userid_read
            .insert(keys::join(b"u", b"gone"), &keys::time(Utc::now()))
            .unwrap();
        store.t.itemuser_mark.clear().unwrap();
        store.t.userid_markcounts.clear().unwrap();
        store.t.meta.remove("marks_indexed_v1").unwrap();
        store.index_marks_once().unwrap();
        assert_eq!(counts(&store, "u"), [0, 1, 0]);
        assert!(store.item_marks("u", &a).unwrap().hidden);
        assert!(!store.has_mark("u", "gone", Mark::Read).unwrap());
    }
}
