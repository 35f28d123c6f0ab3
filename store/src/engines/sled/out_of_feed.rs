//! In memory, for each recently active reader, the ids of the items out of their feed
//! (hidden or read), so a feed page asks "hidden or read?" of a hash set instead of two
//! tree lookups per item.
//!
//! The sets are a cache of `userid_hidden` and `userid_read`: loaded on a reader's first
//! page, changed by every committed mark change, dropped least recently used first when
//! the ids held pass a budget. A set is loaded with its shard locked, and a mark change
//! applies to the cache under the same lock after it is written, so a change is either
//! seen by the load or applied to the loaded set: the cache never misses one.
//!
//! Each set has a version that moves on with every change applied to it, and is never
//! reused (a set dropped and loaded again gets a new one): the reader's version the
//! backend answers, which the reader's kept first page is checked against.

use std::collections::HashSet;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex};

use lru::LruCache;

/// The ids one reader has taken out of their feed.
pub(crate) type OutSet = Arc<HashSet<Box<str>>>;

/// Shards, so readers on different shards never wait for each other.
const SHARDS: usize = 32;

struct Shard {
    readers: LruCache<String, Reader>,
    /// Ids held by this shard's sets.
    ids: usize,
    /// The next version to give a reader's set: never reused.
    next_version: u64,
}

/// One reader's cached state.
struct Reader {
    out: OutSet,
    /// Moves on with every change applied to the reader.
    version: u64,
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
                        next_version: 0,
                    })
                })
                .collect(),
            budget: (budget_ids / SHARDS).max(1),
            hasher: Default::default(),
        }
    }

    #[expect(
        clippy::cast_possible_truncation,
        reason = "a hash's low bits pick the shard"
    )]
    fn shard(&self, user: &str) -> &Mutex<Shard> {
        &self.shards[self.hasher.hash_one(user) as usize % SHARDS]
    }

    /// The reader's set and its version, loaded by `load` when it is not cached.
    pub(crate) fn get_or_load<E>(
        &self,
        user: &str,
        load: impl FnOnce() -> Result<HashSet<Box<str>>, E>,
    ) -> Result<(OutSet, u64), E> {
        let mut shard = self.shard(user).lock().expect("cache lock");
        if let Some(r) = shard.readers.get(user) {
            return Ok((r.out.clone(), r.version));
        }
        let set: OutSet = Arc::new(load()?);
        shard.ids += set.len();
        let version = shard.new_version();
        shard.readers.put(
            user.to_string(),
            Reader {
                out: set.clone(),
                version,
            },
        );
        while shard.ids > self.budget && shard.readers.len() > 1 {
            match shard.readers.pop_lru() {
                Some((_, dropped)) => shard.ids -= dropped.out.len(),
                None => break,
            }
        }
        Ok((set, version))
    }

    /// Locks the reader's shard. A mark change holds it across its write and
    /// [`Locked::apply`], so changes reach the cache in the order they are written.
    pub(crate) fn lock(&self, user: &str) -> Locked<'_> {
        Locked(self.shard(user).lock().expect("cache lock"))
    }

    /// Forgets a reader (account deletion).
    pub(crate) fn forget(&self, user: &str) {
        let mut shard = self.shard(user).lock().expect("cache lock");
        if let Some(r) = shard.readers.pop(user) {
            shard.ids -= r.out.len();
        }
    }
}

impl Shard {
    fn new_version(&mut self) -> u64 {
        self.next_version += 1;
        self.next_version
    }
}

/// A locked shard.
pub(crate) struct Locked<'a>(std::sync::MutexGuard<'a, Shard>);

impl Locked<'_> {
    /// Applies a written change: `item` is now out of `user`'s feed, or back in it. The
    /// reader's version moves on either way (any mark change may change what their
    /// pages show). Readers not cached are left alone; their next page loads them.
    pub(crate) fn apply(&mut self, user: &str, item: &str, out: bool) {
        let shard = &mut *self.0;
        if !shard.readers.contains(user) {
            return;
        }
        let version = shard.new_version();
        let Some(r) = shard.readers.peek_mut(user) else {
            return;
        };
        r.version = version;
        // Copies only while a page being built still holds the old set.
        let set = Arc::make_mut(&mut r.out);
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

/// Tests of the cache of readers' hidden and read ids kept beside sled: sled only.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::pages::Pages;

    #[allow(clippy::unnecessary_wraps, reason = "the loader's signature")]
    fn load(ids: &[&str]) -> Result<HashSet<Box<str>>, ()> {
        Ok(ids.iter().map(|i| (*i).into()).collect())
    }

    #[test]
    fn loads_once_and_follows_changes() {
        let cache = OutOfFeedCache::new(1000);
        let (set, _) = cache.get_or_load("u", || load(&["a"])).unwrap();
        assert!(set.contains("a"));
        cache.lock("u").apply("u", "b", true);
        cache.lock("u").apply("u", "a", false);
        let (set, _) = cache
            .get_or_load("u", || -> Result<_, ()> { panic!("cached") })
            .unwrap();
        assert!(set.contains("b") && !set.contains("a"));
        // A change for a reader who is not cached is left to the next load.
        cache.lock("v").apply("v", "x", true);
        assert!(cache.get_or_load("v", || load(&[])).unwrap().0.is_empty());
    }

    #[test]
    fn a_page_keeps_its_set_while_a_change_lands() {
        let cache = OutOfFeedCache::new(1000);
        let (before, _) = cache.get_or_load("u", || load(&["a"])).unwrap();
        cache.lock("u").apply("u", "b", true);
        assert!(!before.contains("b"));
        assert!(
            cache
                .get_or_load("u", || load(&[]))
                .unwrap()
                .0
                .contains("b")
        );
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

    /// A first page of `bytes` bytes.
    fn page(bytes: usize) -> Arc<[u8]> {
        vec![b'x'; bytes].into()
    }

    /// The reader's kept first page, as the store asks for it: under the items'
    /// version `items` and the reader's version now.
    fn first_page(
        cache: &OutOfFeedCache,
        pages: &Pages,
        user: &str,
        items: u64,
        subscriber: bool,
    ) -> Option<Arc<[u8]>> {
        let (_, reader) = cache.get_or_load(user, || load(&[])).unwrap();
        pages.reader_first(user, items, reader, subscriber)
    }

    /// Keeps a subscriber's first page built from the reader's set at `version`.
    fn keep_first_page(pages: &Pages, user: &str, version: u64, items: u64, page: Arc<[u8]>) {
        pages.keep_reader_first(user, items, version, true, page);
    }

    /// The versions of these sets are what the store's kept first pages (`crate::pages`)
    /// are checked against.
    #[test]
    fn a_first_page_is_kept_until_the_reader_or_the_items_change() {
        let cache = OutOfFeedCache::new(1000);
        let pages = Pages::default();
        let (_, version) = cache.get_or_load("u", || load(&[])).unwrap();
        keep_first_page(&pages, "u", version, 7, page(10));
        assert!(first_page(&cache, &pages, "u", 7, true).is_some());
        assert!(
            first_page(&cache, &pages, "u", 8, true).is_none(),
            "items changed"
        );
        assert!(
            first_page(&cache, &pages, "u", 7, false).is_none(),
            "no longer a subscriber"
        );
        cache.lock("u").apply("u", "a", true);
        assert!(
            first_page(&cache, &pages, "u", 7, true).is_none(),
            "a mark changed"
        );
        // A page built from the set before that change is not kept.
        keep_first_page(&pages, "u", version, 7, page(10));
        assert!(first_page(&cache, &pages, "u", 7, true).is_none());
        let (_, now) = cache.get_or_load("u", || load(&[])).unwrap();
        keep_first_page(&pages, "u", now, 7, page(10));
        assert!(first_page(&cache, &pages, "u", 7, true).is_some());
        // Nor is one built from a set that was dropped and loaded again meanwhile.
        cache.forget("v");
        let (_, before) = cache.get_or_load("v", || load(&[])).unwrap();
        cache.forget("v");
        cache.get_or_load("v", || load(&["b"])).unwrap();
        keep_first_page(&pages, "v", before, 7, page(10));
        assert!(first_page(&cache, &pages, "v", 7, true).is_none());
    }
}
