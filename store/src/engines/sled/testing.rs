//! The embedded backend's side of the test harness (`crate::testing`): opening a store
//! on it for a test, and answering what the behavioural tests ask of an engine's
//! bookkeeping, so that those tests never name the engine.

use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};

use super::{SledBackend, keys, quotas::quota_day_key};
use crate::testing::Internals;
use crate::{Options, Result, Store};

/// A store on the embedded backend in the data directory `dir` (made if missing), with
/// the backend itself for tests of its internals. The backend opens on this thread, so
/// the thread's test switches (`lock::NO_BACKGROUND_FLUSH`) apply to it.
pub(crate) async fn open_sled(dir: &Path, opts: Options) -> Result<(Store, Arc<SledBackend>)> {
    std::fs::create_dir_all(dir)?;
    let sled = Arc::new(SledBackend::open(dir, &opts)?);
    let store = Store::with_backend(sled.clone(), dir, opts).await?;
    Ok((store, sled))
}

/// A store on the embedded backend for the harness, with its internals.
pub(crate) async fn open(dir: &Path, opts: Options) -> Result<(Store, Arc<dyn Internals>)> {
    let (store, sled) = open_sled(dir, opts).await?;
    Ok((store, sled))
}

impl SledBackend {
    /// The tree `name`, which must exist (opening a tree by a mistyped name would make
    /// an empty one and let a test pass for the wrong reason).
    fn existing_tree(&self, name: &str) -> sled::Tree {
        let known = self.db.tree_names().iter().any(|t| t == name.as_bytes());
        assert!(known, "the embedded backend has no index {name:?}");
        self.db.open_tree(name).expect("an existing tree opens")
    }
}

impl Internals for SledBackend {
    fn index_len(&self, name: &str) -> usize {
        self.existing_tree(name).len()
    }

    fn index_has(&self, name: &str, key: &[u8]) -> bool {
        self.existing_tree(name)
            .contains_key(key)
            .expect("a tree reads")
    }

    fn save_counters(&self, now: DateTime<Utc>) {
        self.checkpoint_quotas(now)
            .expect("the quota counts are saved");
    }

    fn saved_quota(&self, owner: &str, day: NaiveDate) -> u64 {
        let saved = self
            .t
            .quota_userday
            .get(quota_day_key(owner, day))
            .expect("a tree reads");
        keys::u64_from(saved.as_deref())
    }
}

/// The backend contract (`crate::backend::contract`) on the embedded backend, each test
/// on a data directory of its own.
mod contract {
    crate::backend::contract::contract_tests!({
        let dir = tempfile::tempdir().expect("a temporary directory");
        let backend = super::SledBackend::open(dir.path(), &crate::Options::default())
            .expect("the backend opens");
        (dir, std::sync::Arc::new(backend))
    });
}
