//! Stories in sled: four trees written in one transaction (see [`super::Trees`]):
//! `itemid_storyid`, `storyid_members` (the members' ids one per line, the lead first),
//! `storyid_into` (a merged story's survivor) and `covered_storyid`, the covered items
//! alone, which a listing of leads asks about each item it walks, and whose size is kept
//! in `meta` as `covered_count`.

use sled::Transactional;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::SledBackend;
use crate::backend::StoryStore;
use crate::{Error, Result};

type Tx<T> = std::result::Result<T, ConflictableTransactionError<Error>>;

/// A reader's count of covered items among those out of their feed, as of their version
/// and the items' (either moves when the count may change): the feed's `total` and the
/// unread count ask for it on every request, and counting walks the reader's marks.
#[derive(Clone, Copy)]
pub(crate) struct CoveredOut {
    version: u64,
    items: u64,
    count: u64,
}

/// The trees of one story transaction.
struct StoryTx<'a> {
    of_item: &'a TransactionalTree,
    members: &'a TransactionalTree,
    into: &'a TransactionalTree,
    covered: &'a TransactionalTree,
    meta: &'a TransactionalTree,
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The story `story` ended in after its merges, following `storyid_into` through `into`
/// (inside a transaction or not).
fn resolve<E>(
    story: &str,
    into: impl Fn(&str) -> std::result::Result<Option<sled::IVec>, E>,
) -> std::result::Result<String, E> {
    let mut story = story.to_string();
    // Merges only ever point at older stories, so this ends; the bound guards against a
    // damaged tree.
    for _ in 0..64 {
        match into(&story)? {
            Some(next) => story = text(&next),
            None => break,
        }
    }
    Ok(story)
}

/// A `storyid_members` value as its list of ids, the lead first.
fn member_list(value: Option<sled::IVec>) -> Vec<String> {
    value
        .map(|m| text(&m).lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

impl StoryTx<'_> {
    fn resolve(&self, story: &str) -> Tx<String> {
        Ok(resolve(story, |id| self.into.get(id.as_bytes()))?)
    }

    fn members(&self, story: &str) -> Tx<Vec<String>> {
        Ok(member_list(self.members.get(story.as_bytes())?))
    }

    /// Writes a story's members and keeps every member's covered entry and the count in
    /// step: the first member is the lead, every other one is covered.
    fn write_members(&self, story: &str, list: &[String]) -> Tx<()> {
        let mut delta: i64 = 0;
        for (n, member) in list.iter().enumerate() {
            let was = if n == 0 {
                self.covered.remove(member.as_bytes())?
            } else {
                self.covered.insert(member.as_bytes(), story.as_bytes())?
            };
            match (n == 0, was.is_some()) {
                (true, true) => delta -= 1,
                (false, false) => delta += 1,
                _ => {}
            }
        }
        if list.is_empty() {
            self.members.remove(story.as_bytes())?;
        } else {
            self.members
                .insert(story.as_bytes(), list.join("\n").as_bytes())?;
        }
        self.count(delta)
    }

    fn count(&self, delta: i64) -> Tx<()> {
        if delta != 0 {
            let count = super::keys::u64_from(self.meta.get("covered_count")?.as_deref());
            let count = count.saturating_add_signed(delta);
            self.meta
                .insert("covered_count", &super::keys::u64_value(count))?;
        }
        Ok(())
    }
}

impl SledBackend {
    fn story_tx<T>(&self, step: impl Fn(&StoryTx<'_>) -> Tx<T>) -> Result<T> {
        let t = &self.t;
        Ok((
            &t.itemid_storyid,
            &t.storyid_members,
            &t.storyid_into,
            &t.covered_storyid,
            &t.meta,
        )
            .transaction(|(of_item, members, into, covered, meta)| {
                step(&StoryTx {
                    of_item,
                    members,
                    into,
                    covered,
                    meta,
                })
            })?)
    }

    /// Whether the item is covered by its story's lead.
    pub(crate) fn covered(&self, item: &str) -> Result<bool> {
        Ok(self.t.covered_storyid.contains_key(item.as_bytes())?)
    }
}

#[async_trait::async_trait]
impl StoryStore for SledBackend {
    async fn place_in_story(&self, item: &str, story: &str, merged: &[String]) -> Result<()> {
        self.writable()?;
        self.story_tx(|tx| {
            let story = tx.resolve(story)?;
            let mut list = tx.members(&story)?;
            for other in merged {
                let other = tx.resolve(other)?;
                if other == story {
                    continue;
                }
                let moved = tx.members(&other)?;
                for member in &moved {
                    tx.of_item.insert(member.as_bytes(), story.as_bytes())?;
                }
                list.extend(moved);
                tx.members.remove(other.as_bytes())?;
                tx.into.insert(other.as_bytes(), story.as_bytes())?;
            }
            if tx.of_item.get(item.as_bytes())?.is_none() {
                tx.of_item.insert(item.as_bytes(), story.as_bytes())?;
                list.push(item.to_string());
            }
            tx.write_members(&story, &list)
        })?;
        self.items_changed();
        Ok(())
    }

    async fn leave_story(&self, item: &str) -> Result<()> {
        self.writable()?;
        let left = self.story_tx(|tx| {
            let Some(story) = tx.of_item.remove(item.as_bytes())? else {
                return Ok(false);
            };
            let story = text(&story);
            let mut list = tx.members(&story)?;
            list.retain(|m| m != item);
            if tx.covered.remove(item.as_bytes())?.is_some() {
                tx.count(-1)?;
            }
            tx.write_members(&story, &list)?;
            Ok(true)
        })?;
        if left {
            self.items_changed();
            // A lead taken out is what lets its story be listed again: durable now.
            self.sync()?;
        }
        Ok(())
    }

    async fn story_of(&self, item: &str) -> Result<Option<String>> {
        Ok(self
            .t
            .itemid_storyid
            .get(item.as_bytes())?
            .map(|s| text(&s)))
    }

    async fn story_members(&self, story: &str) -> Result<Vec<String>> {
        let story = resolve(story, |id| self.t.storyid_into.get(id.as_bytes()))?;
        Ok(member_list(self.t.storyid_members.get(story.as_bytes())?))
    }

    async fn covered_count(&self) -> Result<u64> {
        Ok(super::keys::u64_from(
            self.t.meta.get("covered_count")?.as_deref(),
        ))
    }

    async fn covered_out_of_feed(&self, reader: &str) -> Result<u64> {
        let (out, version) = self.out_of_feed(reader)?;
        let items = self.items_generation();
        let cache = &self.mem.covered_out;
        let cached = cache
            .lock()
            .expect("cache lock")
            .get(reader)
            .filter(|c| c.version == version && c.items == items)
            .map(|c| c.count);
        if let Some(count) = cached {
            return Ok(count);
        }
        let mut count = 0;
        for id in out.iter() {
            if self.covered(id)? {
                count += 1;
            }
        }
        cache.lock().expect("cache lock").put(
            reader.to_string(),
            CoveredOut {
                version,
                items,
                count,
            },
        );
        Ok(count)
    }
}
