//! Item ids known to exist, so that a mark's check that its item exists does not read
//! sled's `items` tree. That tree holds every item's JSON, a few KB each: marks spread over
//! many items walk its leaves out of sled's page cache, and the check becomes a disk read.
//!
//! An id is added when sled answers that the item exists, when the item is written, and
//! when the daemon reads every id at start; each only if no removal began since the
//! question was asked or the write or the reading started (a removal counts itself before
//! sled removes the item and again after), so nothing racing a removal leaves the removed
//! id behind. Items are removed in this process only: sled lets one process open the
//! store.
//!
//! The set holds each id's 64-bit hash under keys drawn at start (std's `RandomState`,
//! SipHash), 8 bytes an id whatever its length: a million ids in about 18 MB. Two ids
//! share a hash with odds of one in 2^64 per pair, and nobody can make them share one
//! without the keys; a bare id set would take three times the memory. Bounded: when full
//! it starts over, and the next check of each id reads sled once again.

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The ids, at most `capacity` of them.
pub(crate) struct KnownItems {
    inner: Mutex<Inner>,
    capacity: usize,
    /// The keys the ids are hashed under.
    keys: RandomState,
}

#[derive(Default)]
struct Inner {
    /// The ids' hashes.
    ids: HashSet<u64>,
    /// Removals begun or ended: a check that started before one must not add its answer.
    removals: u64,
}

/// Where the removals stood when a check asked sled (see [`KnownItems::check`]).
#[derive(Clone, Copy)]
pub(crate) struct Check(u64);

impl KnownItems {
    /// An empty set that holds up to `capacity` ids.
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            capacity,
            keys: RandomState::new(),
        }
    }

    fn hash(&self, id: &str) -> u64 {
        self.keys.hash_one(id)
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves ids that all existed when added.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the item is known to exist; if not, what [`KnownItems::insert`] needs after
    /// asking sled.
    pub(crate) fn check(&self, id: &str) -> Result<(), Check> {
        let hash = self.hash(id);
        let inner = self.inner();
        if inner.ids.contains(&hash) {
            Ok(())
        } else {
            Err(Check(inner.removals))
        }
    }

    /// Where the removals stand now: for a writer of items, before it writes them.
    pub(crate) fn epoch(&self) -> Check {
        Check(self.inner().removals)
    }

    /// Notes an item sled answered exists (or that was just written), unless a removal
    /// began since `check`.
    pub(crate) fn insert(&self, id: &str, check: Check) {
        let hash = self.hash(id);
        let mut inner = self.inner();
        if inner.removals != check.0 {
            return;
        }
        if inner.ids.len() >= self.capacity {
            inner.ids.clear();
        }
        inner.ids.insert(hash);
    }

    /// Adds the ids of the items sled holds, read at start, a batch at a time: the
    /// first mark of each item then needs no read of the items tree either. Stops at
    /// the set's capacity, and as soon as a removal begins (the ids read before it may
    /// be stale).
    pub(crate) fn warm(&self, ids: impl Iterator<Item = String>) {
        let check = self.epoch();
        let mut ids = ids.peekable();
        while ids.peek().is_some() {
            let batch: Vec<u64> = ids.by_ref().take(1024).map(|id| self.hash(&id)).collect();
            let mut inner = self.inner();
            if inner.removals != check.0 || inner.ids.len() + batch.len() > self.capacity {
                return;
            }
            inner.ids.extend(batch);
        }
    }

    /// Forgets an item being removed: called before sled removes it and again after.
    pub(crate) fn remove(&self, id: &str) {
        let hash = self.hash(id);
        let mut inner = self.inner();
        inner.removals += 1;
        inner.ids.remove(&hash);
    }
}

#[cfg(test)]
mod tests {
    use super::KnownItems;

    #[test]
    fn holds_what_sled_confirmed_until_removed_and_starts_over_when_full() {
        let known = KnownItems::new(2);
        let check = known.check("a").unwrap_err();
        known.insert("a", check);
        let check = known.check("b").unwrap_err();
        known.insert("b", check);
        assert!(known.check("a").is_ok() && known.check("b").is_ok());
        known.remove("a");
        assert!(known.check("a").is_err());
        let check = known.check("c").unwrap_err();
        known.insert("c", check);
        assert!(known.check("c").is_ok());
        let check = known.check("d").unwrap_err();
        known.insert("d", check);
        assert!(
            known.check("b").is_err(),
            "a full set starts over rather than growing"
        );
    }

    #[test]
    fn warming_stops_at_a_removal_and_before_the_capacity() {
        let known = KnownItems::new(3000);
        known.warm((0..2000).map(|n| n.to_string()));
        assert!(known.check("0").is_ok() && known.check("1999").is_ok());
        // The next batch would pass the capacity: the set keeps what it has.
        known.warm((2000..4000).map(|n| n.to_string()));
        assert!(known.check("2000").is_err() && known.check("1999").is_ok());

        let known = KnownItems::new(10_000);
        let mut ids = (0..3000).map(|n| n.to_string());
        let first: Vec<String> = ids.by_ref().take(1024).collect();
        known.warm(first.into_iter().chain(std::iter::once_with(|| {
            // A removal begins while the warming reads its second batch.
            known.remove("5000");
            "1024".to_string()
        })));
        assert!(
            known.check("0").is_ok(),
            "the batch before the removal stays"
        );
        assert!(
            known.check("1024").is_err(),
            "nothing read after it is added"
        );
    }

    #[test]
    fn a_check_that_raced_a_removal_adds_nothing() {
        let known = KnownItems::new(10);
        // A mark asks sled, which still has the item...
        let check = known.check("x").unwrap_err();
        // ...while the item is being removed.
        known.remove("x");
        known.insert("x", check);
        assert!(
            known.check("x").is_err(),
            "the removed item must be asked of sled again"
        );
    }
}
