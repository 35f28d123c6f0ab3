//! Readers' marks and shares in memory.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::MemoryBackend;
use crate::backend::{MarkChange, MarkCounts, MarkStore, Share};
use crate::{Error, ItemMarks, Mark, Result};

/// Every reader's marks.
#[derive(Default)]
pub(super) struct Marks {
    readers: HashMap<String, Reader>,
    /// The last reader version handed out: versions come from one counter, so a
    /// reader's version never comes back to a value it had (not even after the reader's
    /// marks are forgotten).
    last_version: u64,
}

/// One reader's marks, counts and shares.
#[derive(Default)]
struct Reader {
    items: HashMap<String, Marked>,
    counts: MarkCounts,
    version: u64,
    shares: HashMap<String, Share>,
}

/// One reader's marks on one item, each with when it was set.
#[derive(Clone, Copy, Default)]
struct Marked {
    marks: ItemMarks,
    at: [Option<DateTime<Utc>>; Mark::ALL.len()],
}

impl Marks {
    fn bump(&mut self, reader: &str) {
        self.last_version += 1;
        self.readers.entry(reader.to_string()).or_default().version = self.last_version;
    }

    /// Whether the reader marked the item with one of `marks`.
    pub(super) fn has_any(&self, reader: &str, item: &str, marks: &[Mark]) -> bool {
        self.readers
            .get(reader)
            .and_then(|r| r.items.get(item))
            .is_some_and(|m| marks.iter().any(|mark| m.marks.has(*mark)))
    }

    /// The items the reader took out of their feed.
    pub(super) fn out_of_feed(&self, reader: &str) -> std::collections::HashSet<&str> {
        self.readers
            .get(reader)
            .map(|r| {
                r.items
                    .iter()
                    .filter(|(_, m)| Mark::ALL.iter().any(|k| k.leaves_feed() && m.marks.has(*k)))
                    .map(|(id, _)| id.as_str())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Removes every reader's marks of a removed item (shares stay: see
    /// [`MarkStore::shares`]).
    pub(super) fn forget_item(&mut self, item: &str) {
        let mut touched = Vec::new();
        for (name, reader) in &mut self.readers {
            if let Some(marked) = reader.items.remove(item) {
                for mark in Mark::ALL {
                    if marked.marks.has(mark) {
                        reader.counts.add(mark, -1);
                    }
                }
                touched.push(name.clone());
            }
        }
        for name in touched {
            self.bump(&name);
        }
    }

    /// Removes a reader's marks and shares (a deleted account).
    pub(super) fn forget_reader(&mut self, reader: &str) {
        if self.readers.remove(reader).is_some() {
            self.bump(reader);
        }
    }
}

#[async_trait::async_trait]
impl MarkStore for MemoryBackend {
    async fn change_marks(
        &self,
        reader: &str,
        item: &str,
        change: MarkChange,
        at: DateTime<Utc>,
    ) -> Result<ItemMarks> {
        let mut state = self.lock();
        if !state.items.exists(item) {
            return Err(Error::NotFound("item"));
        }
        let marks = &mut state.marks;
        let r = marks.readers.entry(reader.to_string()).or_default();
        let mut marked = r.items.get(item).copied().unwrap_or_default();
        let after = change.apply(marked.marks);
        for mark in Mark::ALL {
            match (marked.marks.has(mark), after.has(mark)) {
                (false, true) => r.counts.add(mark, 1),
                (true, false) => r.counts.add(mark, -1),
                _ => {}
            }
            if !after.has(mark) {
                marked.at[mark.index()] = None;
            } else if change.set == Some(mark) {
                marked.at[mark.index()] = Some(at);
            }
        }
        marked.marks = after;
        if after == ItemMarks::default() {
            r.items.remove(item);
        } else {
            r.items.insert(item.to_string(), marked);
        }
        marks.bump(reader);
        Ok(after)
    }

    async fn item_marks(&self, reader: &str, item: &str) -> Result<ItemMarks> {
        let state = self.lock();
        Ok(state
            .marks
            .readers
            .get(reader)
            .and_then(|r| r.items.get(item))
            .map(|m| m.marks)
            .unwrap_or_default())
    }

    async fn marked_ids(&self, reader: &str, mark: Mark) -> Result<Vec<String>> {
        let state = self.lock();
        let Some(r) = state.marks.readers.get(reader) else {
            return Ok(Vec::new());
        };
        let mut marked: Vec<(DateTime<Utc>, &String)> = r
            .items
            .iter()
            .filter_map(|(id, m)| Some((m.at[mark.index()]?, id)))
            .collect();
        marked.sort_by(|a, b| b.cmp(a));
        Ok(marked.into_iter().map(|(_, id)| id.clone()).collect())
    }

    async fn mark_counts(&self, reader: &str) -> Result<MarkCounts> {
        let state = self.lock();
        Ok(state
            .marks
            .readers
            .get(reader)
            .map(|r| r.counts)
            .unwrap_or_default())
    }

    async fn reader_version(&self, reader: &str) -> Result<u64> {
        let state = self.lock();
        Ok(state.marks.readers.get(reader).map_or(0, |r| r.version))
    }

    async fn share(&self, reader: &str, item: &str, share: &Share) -> Result<()> {
        let mut state = self.lock();
        if !state.items.exists(item) {
            return Err(Error::NotFound("item"));
        }
        let r = state.marks.readers.entry(reader.to_string()).or_default();
        r.shares.insert(item.to_string(), share.clone());
        Ok(())
    }

    async fn has_shared(&self, reader: &str, item: &str) -> Result<bool> {
        let state = self.lock();
        Ok(state
            .marks
            .readers
            .get(reader)
            .is_some_and(|r| r.shares.contains_key(item)))
    }

    async fn shares(&self, reader: &str) -> Result<Vec<(String, Share)>> {
        let state = self.lock();
        let Some(r) = state.marks.readers.get(reader) else {
            return Ok(Vec::new());
        };
        let mut shares: Vec<(String, Share)> = r
            .shares
            .iter()
            .map(|(id, s)| (id.clone(), s.clone()))
            .collect();
        shares.sort_by(|a, b| b.1.at.cmp(&a.1.at).then_with(|| b.0.cmp(&a.0)));
        Ok(shares)
    }
}
