//! In memory, for each recently active reader, the ids of the items out of their feed
//! (hidden or read), so a feed page asks "hidden or read?" of a hash set instead of two
//! tree lookups per item.
//!
//! The sets are a cache of `userid_hidden` and `userid_read`: loaded on a reader's first
//! page, changed by every committed mark change, dropped least recently used first when
//! the ids held pass a budget. A set is loaded with its shard locked, and a mark change
//! applies to the cache under the same lock after its transaction commits, so a change is
//! either seen by the load or applied to the loaded set: the cache never misses one.

use std::collections::HashSet;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex};

use lru::LruCache;

/// The ids one reader has taken out of their feed.
pub(crate) type OutSet = Arc<HashSet<Box<str>>>;

/// Shards, so readers on different shards never wait for each other.
const SHARDS: usize = 32;

struct Shard {
    readers: LruCache<String, OutSet>,
    /// Ids held by this shard's sets.
    ids: usize,
}

/// The cache of every reader's set.
pub(crate) struct OutOfFeedCache {
    shards: Vec<Mutex<Shard>>,
    /// Ids a shard may hold before it drops its least recently used readers.
    budget: usize,
    hasher: std::collections::hash_map::RandomState,
}

impl OutOfFeedCache {
    /// A cache holding about `budget_ids` ids in all (about 60 bytes each).
    pub(crate) fn new(budget_ids: usize) -> Self {
        Self {
            shards: (0..SHARDS)
                .map(|_| {
                    Mutex::new(Shard {
                        readers: LruCache::unbounded(),
                        ids: 0,
                    })
                })
                .collect(),
            budget: (budget_ids / SHARDS).max(1),
            hasher: Default::default(),
        }
    }

    fn shard(&self, user: &str) -> &Mutex<Shard> {
        &self.shards[self.hasher.hash_one(user) as usize % SHARDS]
    }

    /// The reader's set, loaded by `load` when it is not cached.
    pub(crate) fn get_or_load<E>(
        &self,
        user: &str,
        load: impl FnOnce() -> Result<HashSet<Box<str>>, E>,
    ) -> Result<OutSet, E> {
        let mut shard = self.shard(user).lock().expect("cache lock");
        if let Some(set) = shard.readers.get(user) {
            return Ok(set.clone());
        }
        let set: OutSet = Arc::new(load()?);
        shard.ids += set.len();
        shard.readers.put(user.to_string(), set.clone());
        while shard.ids > self.budget && shard.readers.len() > 1 {
            match shard.readers.pop_lru() {
                Some((_, dropped)) => shard.ids -= dropped.len(),
                None => break,
            }
        }
        Ok(set)
    }

    /// Locks the reader's shard. A mark change holds it across its transaction and
    /// [`Locked::apply`], so changes reach the cache in the order they commit.
    pub(crate) fn lock(&self, user: &str) -> Locked<'_> {
        Locked(self.shard(user).lock().expect("cache lock"))
    }

    /// Forgets a reader (account deletion).
    pub(crate) fn forget(&self, user: &str) {
        let mut shard = self.shard(user).lock().expect("cache lock");
        if let Some(set) = shard.readers.pop(user) {
            shard.ids -= set.len();
        }
    }
}

/// A locked shard.
pub(crate) struct Locked<'a>(std::sync::MutexGuard<'a, Shard>);

impl Locked<'_> {
    /// Applies a committed change: `item` is now out of `user`'s feed, or back in it.
    /// Readers not cached are left alone; their next page loads them from disk.
    pub(crate) fn apply(&mut self, user: &str, item: &str, out: bool) {
        let shard = &mut *self.0;
        let Some(set) = shard.readers.peek_mut(user) else {
            return;
        };
        // Copies only while a page being built still holds the old set.
        let set = Arc::make_mut(set);
        let changed = if out {
            set.insert(item.into())
        } else {
            set.remove(item)
        };
        match (changed, out) {
            (true, true) => shard.ids += 1,
            (true, false) => shard.ids -= 1,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(ids: &[&str]) -> Result<HashSet<Box<str>>, ()> {
        Ok(ids.iter().map(|i| (*i).into()).collect())
    }

    #[test]
    fn loads_once_and_follows_changes() {
        let cache = OutOfFeedCache::new(1000);
        let set = cache.get_or_load("u", || load(&["a"])).unwrap();
        assert!(set.contains("a"));
        cache.lock("u").apply("u", "b", true);
        cache.lock("u").apply("u", "a", false);
        let set = cache
            .get_or_load("u", || -> Result<_, ()> { panic!("cached") })
            .unwrap();
        assert!(set.contains("b") && !set.contains("a"));
        // A change for a reader who is not cached is left to the next load.
        cache.lock("v").apply("v", "x", true);
        assert!(cache.get_or_load("v", || load(&[])).unwrap().is_empty());
    }

    #[test]
    fn a_page_keeps_its_set_while_a_change_lands() {
        let cache = OutOfFeedCache::new(1000);
        let before = cache.get_or_load("u", || load(&["a"])).unwrap();
        cache.lock("u").apply("u", "b", true);
        assert!(!before.contains("b"));
        assert!(cache.get_or_load("u", || load(&[])).unwrap().contains("b"));
    }

    #[test]
    fn the_budget_drops_least_recently_used_readers() {
        let cache = OutOfFeedCache::new(SHARDS * 3);
        let users: Vec<String> = (0..200).map(|i| format!("user{i}")).collect();
        for u in &users {
            cache.get_or_load(u, || load(&["a", "b"])).unwrap();
        }
        let held: usize = cache.shards.iter().map(|s| s.lock().unwrap().ids).sum();
        assert!(held <= SHARDS * 4, "{held} ids held");
        let cached: usize = cache
            .shards
            .iter()
            .map(|s| s.lock().unwrap().readers.len())
            .sum();
        assert!(cached < users.len());
        cache.forget(&users[199]);
    }
}
