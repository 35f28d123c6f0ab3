//! Records parsed once and reused while their stored bytes stay the same.
//!
//! Every signed-in request reads its session and its account, and parsing their JSON
//! (dates included) was a tenth of a feed request. The cache never decides what is true:
//! each lookup still reads the record from sled, and a parsed copy is reused only when
//! the bytes sled holds now are exactly the bytes it was parsed from. So no write path has
//! to remember to invalidate it, and a revoked session or a changed account shows on the
//! very next request.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use lru::LruCache;
use serde::de::DeserializeOwned;

use crate::{Result, from_json};

/// Shards, each behind its own lock, so the two cores rarely wait for each other.
const SHARDS: usize = 8;

/// One shard: by key, the bytes a record was parsed from and what they gave.
type Shard<T> = Mutex<LruCache<Box<str>, (sled::IVec, Arc<T>)>>;

/// Parsed copies of one tree's records, by key, within a fixed number of entries.
pub(crate) struct ParsedCache<T> {
    shards: Box<[Shard<T>]>,
}

impl<T: DeserializeOwned> ParsedCache<T> {
    /// A cache of at most `entries` records (rounded up to a multiple of the shards).
    pub(crate) fn new(entries: usize) -> Self {
        let per_shard = NonZeroUsize::new(entries.div_ceil(SHARDS).max(1)).expect("non-zero");
        Self {
            shards: (0..SHARDS)
                .map(|_| Mutex::new(LruCache::new(per_shard)))
                .collect(),
        }
    }

    /// The record under `key` in `tree`, parsed, or none when there is none.
    pub(crate) fn get(&self, tree: &sled::Tree, key: &str) -> Result<Option<Arc<T>>> {
        let Some(raw) = tree.get(key)? else {
            return Ok(None);
        };
        let shard = &self.shards[shard_of(key)];
        if let Some((bytes, parsed)) = shard.lock().expect("parsed cache lock").get(key)
            && *bytes == raw
        {
            return Ok(Some(parsed.clone()));
        }
        let parsed = Arc::new(from_json::<T>(&raw)?);
        shard
            .lock()
            .expect("parsed cache lock")
            .put(key.into(), (raw, parsed.clone()));
        Ok(Some(parsed))
    }
}

#[expect(
    clippy::cast_possible_truncation,
    reason = "a hash's low bits pick the shard"
)]
fn shard_of(key: &str) -> usize {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one(key) as usize % SHARDS
}

/// Tests of the cache of records sled holds, kept parsed: sled only.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_parsed_again_once_its_bytes_change() {
        let dir = tempfile::tempdir().unwrap();
        let db = sled::open(dir.path()).unwrap();
        let tree = db.open_tree("t").unwrap();
        let cache = ParsedCache::<Vec<u32>>::new(16);
        assert!(cache.get(&tree, "a").unwrap().is_none());

        tree.insert("a", b"[1,2]".as_slice()).unwrap();
        let first = cache.get(&tree, "a").unwrap().unwrap();
        assert_eq!(*first, vec![1, 2]);
        assert!(
            Arc::ptr_eq(&first, &cache.get(&tree, "a").unwrap().unwrap()),
            "unchanged bytes reuse the parsed copy"
        );

        tree.insert("a", b"[3]".as_slice()).unwrap();
        assert_eq!(*cache.get(&tree, "a").unwrap().unwrap(), vec![3]);
        tree.remove("a").unwrap();
        assert!(
            cache.get(&tree, "a").unwrap().is_none(),
            "a removed record is gone"
        );
    }

    #[test]
    fn the_cache_keeps_at_most_its_entries() {
        let dir = tempfile::tempdir().unwrap();
        let db = sled::open(dir.path()).unwrap();
        let tree = db.open_tree("t").unwrap();
        let cache = ParsedCache::<u32>::new(16);
        for i in 0..1000u32 {
            tree.insert(i.to_string(), i.to_string().as_bytes())
                .unwrap();
            assert_eq!(*cache.get(&tree, &i.to_string()).unwrap().unwrap(), i);
        }
        let kept: usize = cache.shards.iter().map(|s| s.lock().unwrap().len()).sum();
        assert!(kept <= 16, "{kept} entries kept");
    }
}
