//! Stories: which items report one event (see the `radar-stories` crate, which decides
//! it). A backend keeps the outcome, not the means: each grouped item's story, each
//! story's members in the order they joined, and which stories merged into which. The
//! candidate index grouping reads (band buckets, features) is rebuilt in memory from the
//! items (see `crate::stories`), so a backend keeps only what a reader's page needs.
//!
//! A story's *lead* is its first member still stored: the item whose card stands for
//! the story in the feed. Every other member is *covered*: a listing that asks for leads
//! only ([`super::NewestQuery::leads_only`]) leaves it out. An item that was never
//! grouped (stored before stories existed, or while grouping was switched off) is
//! neither: it is listed as it always was.

use crate::Result;

/// Stories and their members.
#[async_trait::async_trait]
pub trait StoryStore: Send + Sync {
    /// Puts `item` in `story` (the id of the item that founded it), after merging the
    /// stories `merged` into `story`: their members join it in the order they joined
    /// theirs, and their ids lead to it from then on. The story is created when it does
    /// not exist; an item already in a story stays there (a story never flips: the
    /// call changes nothing for it). The item is written before (the rules place items
    /// they have just stored). One atomic step, which moves the items version on (see
    /// [`super::ItemStore::items_version`]: pages kept under the old one show the old
    /// stories); durable at the next [`super::Backend::flush`], like the items.
    async fn place_in_story(&self, item: &str, story: &str, merged: &[String]) -> Result<()>;

    /// Takes a removed item out of its story; when it was the lead, the next member
    /// becomes the lead (and is listed again). Nothing when the item had no story.
    async fn leave_story(&self, item: &str) -> Result<()>;

    /// The story of an item, none when it was never grouped.
    async fn story_of(&self, item: &str) -> Result<Option<String>>;

    /// The members of a story, the lead first, then in the order they joined; empty
    /// when there is no such story. A merged story's id answers for the story it merged
    /// into.
    async fn story_members(&self, story: &str) -> Result<Vec<String>>;

    /// How many stored items are covered (members that are not their story's lead):
    /// kept as a counter, so that a feed's `total` needs no walk.
    async fn covered_count(&self) -> Result<u64>;

    /// How many of the items `reader` took out of their feed (the marks that
    /// [`crate::Mark::leaves_feed`]) are covered: what their out-of-feed count holds
    /// that a listing of leads never showed. Costs what the reader marked, never a walk
    /// of the items.
    async fn covered_out_of_feed(&self, reader: &str) -> Result<u64>;
}
