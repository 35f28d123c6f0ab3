//! Daily quotas of the public news API in sled, counted in memory.
//!
//! A request changes its owner's counter under its shard's lock, so the quota is exact
//! however many requests of one key arrive at once, and a read of the public API costs
//! no disk write. The counters are checkpointed to `quota_userday` (keys::join(owner,
//! UTC day "YYYYMMDD") -> requests that day) in one batch and one sync by
//! [`SledBackend::checkpoint_quotas`], which the daemon's upkeep calls every second, and
//! when the backend closes. A crash (kill -9, power cut) forgets at most the counts of
//! the last second: a key may then make that many more requests on the day of the
//! crash, never fewer. A counter is loaded from the tree on its owner's first request of
//! the day; counters of past days are dropped from the tree by the first checkpoint of a
//! new day and from memory once saved, so both hold about one counter per active key.
//!
//! While the disk is full (see `space`) a checkpoint writes nothing and the counts stay
//! in memory: the public API goes on answering, its quotas still exact, and the first
//! checkpoint once space is back saves them.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::Mutex;

use chrono::{DateTime, NaiveDate, Utc};

use super::{SledBackend, keys};
use crate::{QuotaUse, Result};

fn day_key(owner: &str, day: NaiveDate) -> Vec<u8> {
    keys::join(
        owner.as_bytes(),
        day.format("%Y%m%d").to_string().as_bytes(),
    )
}

/// Shards, so keys on different shards never wait for each other.
const SHARDS: usize = 16;

/// One owner's count for one day.
struct Counter {
    day: NaiveDate,
    used: u64,
    /// What the tree holds for `day`.
    saved: u64,
    /// The tree may still hold counters of earlier days (the first count of a day).
    prune: bool,
}

/// The counters in memory; see the module doc.
pub(crate) struct QuotaCounters {
    shards: Vec<Mutex<HashMap<String, Counter>>>,
    hasher: RandomState,
    /// One checkpoint at a time, so an older batch never overwrites a newer one.
    checkpoint: Mutex<()>,
}

impl QuotaCounters {
    pub(crate) fn new() -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            hasher: RandomState::new(),
            checkpoint: Mutex::new(()),
        }
    }

    #[expect(
        clippy::cast_possible_truncation,
        reason = "a hash's low bits pick the shard"
    )]
    fn shard(&self, owner: &str) -> &Mutex<HashMap<String, Counter>> {
        &self.shards[self.hasher.hash_one(owner) as usize % SHARDS]
    }
}

impl SledBackend {
    /// Counts one request of `owner` at `now` against a daily `limit`. A refused request is
    /// not counted, so the counter never runs past the limit.
    pub(crate) fn count_quota(
        &self,
        owner: &str,
        limit: u64,
        now: DateTime<Utc>,
    ) -> Result<QuotaUse> {
        let today = now.date_naive();
        let mut shard = self.quotas.shard(owner).lock().expect("quota lock");
        let counter = match shard.get_mut(owner) {
            Some(c) if c.day == today => c,
            _ => {
                let stored = self.t.quota_userday.get(day_key(owner, today))?;
                let used = keys::u64_from(stored.as_deref());
                let counter = Counter {
                    day: today,
                    used,
                    saved: used,
                    prune: stored.is_none(),
                };
                // A counter of an earlier day is replaced: past days' counts matter no more.
                shard.insert(owner.to_string(), counter);
                shard.get_mut(owner).expect("just inserted")
            }
        };
        let allowed = counter.used < limit;
        if allowed {
            counter.used += 1;
        }
        let used = counter.used;
        drop(shard);
        Ok(QuotaUse::counted(limit, used, today, allowed))
    }

    /// How many requests `owner` made on the UTC day of `now`.
    pub(crate) fn counted_quota(&self, owner: &str, now: DateTime<Utc>) -> Result<u64> {
        let day = now.date_naive();
        if let Some(c) = self
            .quotas
            .shard(owner)
            .lock()
            .expect("quota lock")
            .get(owner)
            && c.day == day
        {
            return Ok(c.used);
        }
        Ok(keys::u64_from(
            self.t.quota_userday.get(day_key(owner, day))?.as_deref(),
        ))
    }

    /// Writes every changed counter to disk in one batch and one sync, and forgets saved
    /// counters of days before `now`'s. Returns how many counters it wrote: none while
    /// the disk is full, when the counters stay in memory for a later checkpoint.
    pub(crate) fn checkpoint_quotas(&self, now: DateTime<Utc>) -> Result<usize> {
        if self.writable().is_err() {
            return Ok(0);
        }
        let _one = self.quotas.checkpoint.lock().expect("checkpoint lock");
        let today = now.date_naive();
        let mut changed = Vec::new();
        let mut prune = Vec::new();
        for shard in &self.quotas.shards {
            let mut shard = shard.lock().expect("quota lock");
            shard.retain(|_, c| c.day >= today || c.used != c.saved);
            for (owner, c) in shard.iter_mut() {
                if c.used != c.saved {
                    changed.push((owner.clone(), c.day, c.used));
                }
                if c.prune {
                    prune.push((owner.clone(), c.day));
                    c.prune = false;
                }
            }
        }
        let mut batch = sled::Batch::default();
        for (owner, day) in &prune {
            let keep = day_key(owner, *day);
            for entry in self.t.quota_userday.scan_prefix(keys::prefix(owner)) {
                let (k, _) = entry?;
                if k.as_ref() != keep.as_slice() {
                    batch.remove(k);
                }
            }
        }
        for (owner, day, used) in &changed {
            batch.insert(day_key(owner, *day), &keys::u64_value(*used));
        }
        if changed.is_empty() && prune.is_empty() {
            return Ok(0);
        }
        self.t.quota_userday.apply_batch(batch)?;
        self.sync()?;
        for (owner, day, used) in &changed {
            let mut shard = self.quotas.shard(owner).lock().expect("quota lock");
            if let Some(c) = shard.get_mut(owner)
                && c.day == *day
            {
                c.saved = c.saved.max(*used);
            }
        }
        Ok(changed.len())
    }

    /// Forgets every counter of `owner`, in memory and on disk (a purged account).
    pub(crate) fn forget_quotas(&self, owner: &str) -> Result<()> {
        // Under the checkpoint lock, so a checkpoint in flight cannot write it back.
        let _one = self.quotas.checkpoint.lock().expect("checkpoint lock");
        self.quotas
            .shard(owner)
            .lock()
            .expect("quota lock")
            .remove(owner);
        for key in self.t.quota_userday.scan_prefix(keys::prefix(owner)).keys() {
            self.t.quota_userday.remove(key?)?;
        }
        Ok(())
    }
}

/// In tests: the key of `owner`'s counter for `day` in `quota_userday`.
#[cfg(test)]
pub(crate) fn quota_day_key(owner: &str, day: NaiveDate) -> Vec<u8> {
    day_key(owner, day)
}

/// Tests of how sled keeps the counters (in memory, checkpointed to `quota_userday`,
/// loaded again after a restart): sled only. The quota rules every backend keeps are
/// tested in `crate::quotas`.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::Options;
    use crate::engines::sled::testing::open_sled;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[tokio::test]
    async fn counters_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let now = at("2026-11-22T10:00:00Z");
        {
            let (store, sled) = open_sled(dir.path(), Options::default()).await.unwrap();
            store.consume_quota("u1", 100, now).await.unwrap();
            store.consume_quota("u1", 100, now).await.unwrap();
            assert_eq!(sled.checkpoint_quotas(now).unwrap(), 1);
            // Nothing changed since: nothing to write.
            assert_eq!(sled.checkpoint_quotas(now).unwrap(), 0);
        }
        let (store, _sled) = open_sled(dir.path(), Options::default()).await.unwrap();
        assert_eq!(store.quota_used("u1", now).await.unwrap(), 2);
    }

    #[tokio::test]
    async fn a_counter_loaded_from_disk_goes_on_from_the_saved_count() {
        let dir = tempfile::tempdir().unwrap();
        let now = at("2026-11-22T10:00:00Z");
        {
            let (store, sled) = open_sled(dir.path(), Options::default()).await.unwrap();
            for _ in 0..3 {
                store.consume_quota("u1", 4, now).await.unwrap();
            }
            sled.checkpoint_quotas(now).unwrap();
        }
        let (store, _sled) = open_sled(dir.path(), Options::default()).await.unwrap();
        assert!(store.consume_quota("u1", 4, now).await.unwrap().allowed);
        assert!(!store.consume_quota("u1", 4, now).await.unwrap().allowed);
    }
}
