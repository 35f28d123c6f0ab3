//! Readers' marks on items (favourite, hidden, read) and their shares.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::{ItemMarks, Mark, Result};

/// A change of one reader's marks on one item, as the rules decided it: the backend
/// clears `clear` and then sets `set`, in one atomic step, and keeps the reader's
/// counts in step. Which marks a mark excludes is the rules' table
/// ([`crate::marks::excluded_by`]), not the backend's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkChange {
    /// Marks to remove.
    pub clear: ItemMarks,
    /// The mark to set, if any.
    pub set: Option<Mark>,
}

impl MarkChange {
    /// The marks an item carries after this change, given what it carried.
    pub fn apply(self, mut marks: ItemMarks) -> ItemMarks {
        for m in Mark::ALL {
            if self.clear.has(m) {
                marks.unset(m);
            }
        }
        if let Some(m) = self.set {
            marks.set(m);
        }
        marks
    }
}

/// How many items carry each mark, for one reader: the feed's `total` without walking
/// any list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MarkCounts(pub [u64; Mark::ALL.len()]);

impl MarkCounts {
    /// The count of one mark.
    pub fn of(&self, mark: Mark) -> u64 {
        self.0[mark.index()]
    }

    /// Adds `delta` to one mark's count, never below zero.
    pub fn add(&mut self, mark: Mark, delta: i64) {
        let c = &mut self.0[mark.index()];
        *c = c.saturating_add_signed(delta);
    }

    /// Items out of the reader's feed: those with a mark that leaves it.
    pub fn out_of_feed(&self) -> u64 {
        Mark::ALL
            .into_iter()
            .filter(|m| m.leaves_feed())
            .map(|m| self.of(m))
            .sum()
    }
}

/// A share of an item (the latest one per reader and item is kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Share {
    /// When.
    pub at: DateTime<Utc>,
    /// Where (`linkedin`).
    pub platform: String,
}

/// Marks and shares.
#[async_trait::async_trait]
pub trait MarkStore: Send + Sync {
    /// Applies a change of one reader's marks on an item and answers the item's marks
    /// after it; durable on return. An item that does not exist is
    /// `Error::NotFound("item")`, and a mark is never left on an item removed meanwhile.
    async fn change_marks(
        &self,
        reader: &str,
        item: &str,
        change: MarkChange,
        at: DateTime<Utc>,
    ) -> Result<ItemMarks>;

    /// One reader's marks on one item.
    async fn item_marks(&self, reader: &str, item: &str) -> Result<ItemMarks>;

    /// The ids of the items a reader marked with `mark`, most recently marked first.
    async fn marked_ids(&self, reader: &str, mark: Mark) -> Result<Vec<String>>;

    /// How many items carry each mark for this reader.
    async fn mark_counts(&self, reader: &str) -> Result<MarkCounts>;

    /// A number that changes whenever this reader's marks change: the reader's first
    /// feed page is cached above the backend under it and the items' version.
    async fn reader_version(&self, reader: &str) -> Result<u64>;

    /// Records a share of an item (replacing the reader's previous share of it); durable
    /// on return. An unknown item is `Error::NotFound("item")`.
    async fn share(&self, reader: &str, item: &str, share: &Share) -> Result<()>;

    /// Whether the reader shared the item.
    async fn has_shared(&self, reader: &str, item: &str) -> Result<bool>;

    /// The reader's shares, newest first, by item id (items removed since may be
    /// among them: the rules skip those).
    async fn shares(&self, reader: &str) -> Result<Vec<(String, Share)>>;
}
