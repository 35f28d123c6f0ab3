//! Readers' reading history (when each reader read which item) and the totals of all
//! readers that the Insights tab and the key points are ranked by (docs/product.md §13).

use chrono::{DateTime, Utc};

use super::Json;
use crate::Result;

/// One read: a reader read an item at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadEvent {
    /// Who read it.
    pub reader: String,
    /// Which item.
    pub item: String,
    /// When.
    pub at: DateTime<Utc>,
}

/// Reading history and the stored totals computed from it.
///
/// A reader's history is read per reader and from a time on (one week), never by a scan
/// of all readers; only the once-per-cluster totals job reads every reader's reads, and
/// only those of one window of time. The history goes with the account
/// ([`super::AccountStore::delete_user`] removes it).
#[async_trait::async_trait]
pub trait ReadingStore: Send + Sync {
    /// Records that `reader` read `item` at `at`. The same item read again is another
    /// entry (the rules count distinct items). Need not be synced before it returns: a
    /// read lost in a crash costs a count, never a mark.
    async fn record_read(&self, reader: &str, item: &str, at: DateTime<Utc>) -> Result<()>;

    /// One reader's reads at or after `since`, oldest first, at most `limit`.
    async fn reads_of(
        &self,
        reader: &str,
        since: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<(String, DateTime<Utc>)>>;

    /// Every reader's reads in `[since, until)`, oldest first, at most `limit`: for the
    /// totals job only.
    async fn reads_between(
        &self,
        since: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<ReadEvent>>;

    /// Removes every read before `before`; answers how many.
    async fn prune_reads(&self, before: DateTime<Utc>) -> Result<u64>;

    /// Replaces the stored totals of all readers (the totals job's answer).
    async fn put_read_totals(&self, totals: &Json) -> Result<()>;

    /// The stored totals of all readers, if the job has run.
    async fn read_totals(&self) -> Result<Option<Json>>;
}
