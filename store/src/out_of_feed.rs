//! In memory, for each recently active reader, the ids of the items out of their feed
//! (hidden or read), so a feed page asks "hidden or read?" of a hash set instead of two
//! tree lookups per item.
//!
//! The sets are a cache of `userid_hidden` and `userid_read`: loaded on a reader's first
//! page, changed by every committed mark change, dropped least recently used first when
//! the ids held pass a budget. A set is loaded with its shard locked, and a mark change
//! applies to the cache under the same lock after its transaction commits, so a change is
//! either seen by the load or applied to the loaded set: the cache never misses one.
//!
//! Beside its set, a reader may have their first feed page kept as JSON, the page almost
//! every request of theirs asks for. It is kept with the version of the set it was built
//! from and the items generation; any mark change of the reader drops it, and a page
//! built from a set that changed meanwhile is not kept. Kept pages have a byte budget of
//! their own.

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
    /// Bytes held by this shard's kept pages.
    page_bytes: usize,
    /// The next version to give a reader's set: never reused, so a page built from a
    /// set that was dropped and loaded again is not taken for one of the new set.
    next_version: u64,
}

/// One reader's cached state.
struct Reader {
    out: OutSet,
    /// Moves on with every change applied to the reader.
    version: u64,
    page: Option<FirstPage>,
}

/// A reader's first feed page as JSON, and what it was built for.
pub(crate) struct FirstPage {
    /// The items generation it was built at.
    pub generation: u64,
    /// Whether it was built for a subscriber.
    pub subscriber: bool,
    pub json: Arc<[u8]>,
}

/// Bytes of kept first pages in all (a subscriber's page is about 40 KB).
const PAGE_BUDGET: usize = 8 << 20;

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
                        page_bytes: 0,
                        next_version: 0,
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
                page: None,
            },
        );
        while shard.ids > self.budget && shard.readers.len() > 1 {
            match shard.readers.pop_lru() {
                Some((_, dropped)) => shard.drop_reader(&dropped),
                None => break,
            }
        }
        Ok((set, version))
    }

    /// The reader's kept first page, if it was built at `generation` for `subscriber`.
    pub(crate) fn first_page(
        &self,
        user: &str,
        generation: u64,
        subscriber: bool,
    ) -> Option<Arc<[u8]>> {
        let shard = self.shard(user).lock().expect("cache lock");
        let page = shard.readers.peek(user)?.page.as_ref()?;
        (page.generation == generation && page.subscriber == subscriber).then(|| page.json.clone())
    }

    /// Keeps a first page built from version `version` of the reader's set, unless the
    /// set changed since; the least recently used readers' pages go when the budget is
    /// passed.
    pub(crate) fn keep_first_page(&self, user: &str, version: u64, page: FirstPage) {
        let mut shard = self.shard(user).lock().expect("cache lock");
        let budget = PAGE_BUDGET / SHARDS;
        if page.json.len() > budget {
            return;
        }
        let size = page.json.len();
        let Some(r) = shard.readers.get_mut(user) else {
            return;
        };
        if r.version != version {
            return;
        }
        let old = r.page.replace(page).map_or(0, |p| p.json.len());
        let Shard {
            readers,
            page_bytes,
            ..
        } = &mut *shard;
        *page_bytes = *page_bytes + size - old;
        for (_, r) in readers.iter_mut().rev() {
            if *page_bytes <= budget {
                break;
            }
            if let Some(p) = r.page.take() {
                *page_bytes -= p.json.len();
            }
        }
    }

    /// Locks the reader's shard. A mark change holds it across its transaction and
    /// [`Locked::apply`], so changes reach the cache in the order they commit.
    pub(crate) fn lock(&self, user: &str) -> Locked<'_> {
        Locked(self.shard(user).lock().expect("cache lock"))
    }

    /// Forgets a reader (account deletion).
    pub(crate) fn forget(&self, user: &str) {
        let mut shard = self.shard(user).lock().expect("cache lock");
        if let Some(r) = shard.readers.pop(user) {
            shard.drop_reader(&r);
        }
    }
}

impl Shard {
    fn new_version(&mut self) -> u64 {
        self.next_version += 1;
        self.next_version
    }

    /// Counts a reader out of the shard's sizes.
    fn drop_reader(&mut self, r: &Reader) {
        self.ids -= r.out.len();
        self.page_bytes -= r.page.as_ref().map_or(0, |p| p.json.len());
    }
}

/// A locked shard.
pub(crate) struct Locked<'a>(std::sync::MutexGuard<'a, Shard>);

impl Locked<'_> {
    /// Applies a committed change: `item` is now out of `user`'s feed, or back in it.
    /// Readers not cached are left alone; their next page loads them from disk.
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
        if let Some(p) = r.page.take() {
            shard.page_bytes -= p.json.len();
        }
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

#[cfg(test)]
mod tests {
    use super::*;

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

    fn page(generation: u64, bytes: usize) -> FirstPage {
        FirstPage {
            generation,
            subscriber: true,
            json: vec![b'x'; bytes].into(),
        }
    }

    #[test]
    fn a_first_page_is_kept_until_the_reader_or_the_items_change() {
        let cache = OutOfFeedCache::new(1000);
        let (_, version) = cache.get_or_load("u", || load(&[])).unwrap();
        cache.keep_first_page("u", version, page(7, 10));
        assert!(cache.first_page("u", 7, true).is_some());
        assert!(cache.first_page("u", 8, true).is_none(), "items changed");
        assert!(
            cache.first_page("u", 7, false).is_none(),
            "no longer a subscriber"
        );
        cache.lock("u").apply("u", "a", true);
        assert!(cache.first_page("u", 7, true).is_none(), "a mark changed");
        // A page built from the set before that change is not kept.
        cache.keep_first_page("u", version, page(7, 10));
        assert!(cache.first_page("u", 7, true).is_none());
        let (_, now) = cache.get_or_load("u", || load(&[])).unwrap();
        cache.keep_first_page("u", now, page(7, 10));
        assert!(cache.first_page("u", 7, true).is_some());
        // Nor is one built from a set that was dropped and loaded again meanwhile.
        cache.forget("v");
        let (_, before) = cache.get_or_load("v", || load(&[])).unwrap();
        cache.forget("v");
        cache.get_or_load("v", || load(&["b"])).unwrap();
        cache.keep_first_page("v", before, page(7, 10));
        assert!(cache.first_page("v", 7, true).is_none());
    }

    #[test]
    fn kept_pages_stay_within_their_budget() {
        let cache = OutOfFeedCache::new(1_000_000);
        let size = 40_000;
        for i in 0..2000 {
            let user = format!("user{i}");
            let (_, v) = cache.get_or_load(&user, || load(&[])).unwrap();
            cache.keep_first_page(&user, v, page(1, size));
        }
        let held: usize = cache
            .shards
            .iter()
            .map(|s| s.lock().unwrap().page_bytes)
            .sum();
        assert!(held <= PAGE_BUDGET, "{held} bytes of pages");
        assert!(held >= PAGE_BUDGET / 2, "{held} bytes of pages");
        assert!(
            cache.first_page("user1999", 1, true).is_some(),
            "the newest is kept"
        );
        for i in 0..2000 {
            cache.forget(&format!("user{i}"));
        }
        let held: usize = cache
            .shards
            .iter()
            .map(|s| s.lock().unwrap().page_bytes)
            .sum();
        assert_eq!(held, 0);
    }
}
