//! Reading history and the stored reading totals in memory.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use super::MemoryBackend;
use crate::Result;
use crate::backend::{Json, ReadEvent, ReadingStore};

/// Every read, ordered by (time, reader, item), and the totals.
#[derive(Default)]
pub(super) struct Reading {
    reads: BTreeSet<(DateTime<Utc>, String, String)>,
    totals: Option<Json>,
}

impl Reading {
    /// Removes a deleted account's reads.
    pub(super) fn forget_reader(&mut self, reader: &str) {
        self.reads.retain(|(_, r, _)| r != reader);
    }
}

#[async_trait::async_trait]
impl ReadingStore for MemoryBackend {
    async fn record_read(&self, reader: &str, item: &str, at: DateTime<Utc>) -> Result<()> {
        self.lock()
            .reading
            .reads
            .insert((at, reader.to_string(), item.to_string()));
        Ok(())
    }

    async fn reads_of(
        &self,
        reader: &str,
        since: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<(String, DateTime<Utc>)>> {
        Ok(self
            .lock()
            .reading
            .reads
            .iter()
            .filter(|(at, r, _)| r == reader && *at >= since)
            .take(limit)
            .map(|(at, _, item)| (item.clone(), *at))
            .collect())
    }

    async fn reads_between(
        &self,
        since: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<ReadEvent>> {
        Ok(self
            .lock()
            .reading
            .reads
            .iter()
            .filter(|(at, _, _)| *at >= since && *at < until)
            .take(limit)
            .map(|(at, reader, item)| ReadEvent {
                reader: reader.clone(),
                item: item.clone(),
                at: *at,
            })
            .collect())
    }

    async fn prune_reads(&self, before: DateTime<Utc>) -> Result<u64> {
        let mut state = self.lock();
        let n = state.reading.reads.len();
        state.reading.reads.retain(|(at, _, _)| *at >= before);
        Ok((n - state.reading.reads.len()) as u64)
    }

    async fn put_read_totals(&self, totals: &Json) -> Result<()> {
        self.lock().reading.totals = Some(totals.clone());
        Ok(())
    }

    async fn read_totals(&self) -> Result<Option<Json>> {
        Ok(self.lock().reading.totals.clone())
    }
}
