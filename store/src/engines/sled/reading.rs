//! Reading history in sled: `userid_reads` (one reader's reads by time) and
//! `readat_userid` (every reader's reads by time, for the totals job and pruning); the
//! totals are one value in `meta`.
//!
//! A read is written as two inserts, not synced before it returns: it rides on the next sync of anything else (at the latest sled's own flush,
//! every half second), so recording a read adds microseconds to opening an item, not a
//! disk wait. A crash may lose the last reads; never a mark.

use chrono::{DateTime, Utc};

use super::{SledBackend, keys};
use crate::Result;
use crate::backend::{Json, ReadEvent, ReadingStore};

/// The `meta` key of the stored totals.
const TOTALS: &[u8] = b"reading_totals";

impl SledBackend {
    /// Removes a deleted account's reads from both trees.
    pub(super) fn forget_reads(&self, reader: &str) -> Result<()> {
        let prefix = keys::reads_prefix(reader);
        for key in self.t.userid_reads.scan_prefix(&prefix).keys() {
            let key = key?;
            if let Some((at, item)) = keys::read_parts(&key[prefix.len()..]) {
                self.t
                    .readat_userid
                    .remove(keys::read_at(at, reader, item))?;
            }
            self.t.userid_reads.remove(key)?;
        }
        Ok(())
    }
}

#[async_trait::async_trait]
impl ReadingStore for SledBackend {
    async fn record_read(&self, reader: &str, item: &str, at: DateTime<Utc>) -> Result<()> {
        self.writable()?;
        let by_reader = keys::read_of(reader, at, item);
        let by_time = keys::read_at(at, reader, item);
        // Two plain inserts, not a transaction: a sled transaction writes sled's log
        // buffer out, which a read mark must not pay for (docs/architecture.md, Store
        // design). The reader's entry goes first: a crash between the two leaves it
        // without its entry by time, which the account's deletion still finds (it walks
        // the reader's entries) and pruning by time misses (one key, kept until then).
        self.t.userid_reads.insert(by_reader.as_slice(), &[])?;
        self.t.readat_userid.insert(by_time.as_slice(), &[])?;
        Ok(())
    }

    async fn reads_of(
        &self,
        reader: &str,
        since: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<(String, DateTime<Utc>)>> {
        let prefix = keys::reads_prefix(reader);
        let mut from = prefix.clone();
        from.extend_from_slice(&keys::time(since));
        let mut out = Vec::new();
        for key in self.t.userid_reads.range(from..).keys() {
            let key = key?;
            if !key.starts_with(&prefix) || out.len() == limit {
                break;
            }
            if let Some((at, item)) = keys::read_parts(&key[prefix.len()..]) {
                out.push((item.to_string(), at));
            }
        }
        Ok(out)
    }

    async fn reads_between(
        &self,
        since: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<ReadEvent>> {
        let mut out = Vec::new();
        for key in self
            .t
            .readat_userid
            .range(keys::time(since)..keys::time(until))
            .keys()
            .take(limit)
        {
            let key = key?;
            if let Some(event) = keys::read_event(&key) {
                out.push(event);
            }
        }
        Ok(out)
    }

    async fn prune_reads(&self, before: DateTime<Utc>) -> Result<u64> {
        self.writable()?;
        let mut n = 0;
        for key in self.t.readat_userid.range(..keys::time(before)).keys() {
            let key = key?;
            if let Some(e) = keys::read_event(&key) {
                self.t
                    .userid_reads
                    .remove(keys::read_of(&e.reader, e.at, &e.item))?;
            }
            self.t.readat_userid.remove(key)?;
            n += 1;
        }
        self.sync()?;
        Ok(n)
    }

    async fn put_read_totals(&self, totals: &Json) -> Result<()> {
        self.writable()?;
        self.t.meta.insert(TOTALS, totals.as_ref())?;
        self.sync()
    }

    async fn read_totals(&self) -> Result<Option<Json>> {
        Ok(self.t.meta.get(TOTALS)?.map(|v| Json::copy_from_slice(&v)))
    }
}
