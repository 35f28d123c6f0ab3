//! The harness of the store's behavioural tests: each test of the rules is written once
//! and runs against every backend (the conformance suite). [`store_tests!`] turns
//!
//! ```ignore
//! store_tests! {
//!     async fn a_rule_holds(store) { ... }
//! }
//! ```
//!
//! into a module `a_rule_holds` with one test per backend (`sled`, `memory`), each
//! given a fresh [`TestStore`]. Tests about one backend's internals (sled's journal,
//! crash injection, group commit) are not written this way: they live in that
//! backend's module and say so.
//!
//! TODO(issue 25): the in-memory backend (`engines::memory`) is being written on its
//! own branch; until it is merged, [`store_tests!`] makes the `sled` test only. Once it
//! is, bring back `Engine::Memory` (opened with `MemoryBackend::new()` under
//! `Store::with_backend`) and the macro's `memory` test.

use std::path::Path;
use std::sync::Arc;

use crate::engines::sled::SledBackend;
use crate::{Options, Result, Store};

/// The backends the suite runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Engine {
    /// The embedded backend, on a temporary directory.
    Sled,
}

/// A store for one test, with the directory its files live in (the search index, and
/// for the embedded backend its database), removed when the test ends.
pub(crate) struct TestStore {
    /// The store.
    pub store: Store,
    /// The data directory, removed when the test ends.
    _dir: tempfile::TempDir,
    /// The embedded backend under the store, when the store is on it.
    sled: Option<Arc<SledBackend>>,
}

impl std::ops::Deref for TestStore {
    type Target = Store;

    fn deref(&self) -> &Store {
        &self.store
    }
}

impl TestStore {
    /// The embedded backend, for the assertions about its trees that hold only there.
    pub fn sled(&self) -> Option<&SledBackend> {
        self.sled.as_deref()
    }
}

/// A fresh store on `engine`.
pub(crate) async fn open(engine: Engine, opts: Options) -> TestStore {
    let dir = tempfile::tempdir().expect("a temporary directory");
    match engine {
        Engine::Sled => {
            let (store, sled) = open_sled(dir.path(), opts)
                .await
                .expect("a test store opens");
            TestStore {
                store,
                _dir: dir,
                sled: Some(sled),
            }
        }
    }
}

/// A store on the embedded backend in the data directory `dir` (made if missing), with
/// the backend itself for tests of its internals. The backend opens on this thread, so
/// the thread's test switches (`lock::NO_BACKGROUND_FLUSH`) apply to it.
pub(crate) async fn open_sled(dir: &Path, opts: Options) -> Result<(Store, Arc<SledBackend>)> {
    std::fs::create_dir_all(dir)?;
    let sled = Arc::new(SledBackend::open(dir, &opts)?);
    let store = Store::with_backend(sled.clone(), dir, opts).await?;
    Ok((store, sled))
}

/// Adds an account with the id `id` (and the e-mail `id@example.com`), for tests that
/// use short, fixed ids of readers and need them to be accounts.
pub(crate) async fn user_with_id(store: &Store, id: &str) -> crate::User {
    let mut user = store
        .stand_in_user(&format!("{id}@example.com"), Default::default())
        .expect("a good address");
    user.id = id.into();
    store
        .backend()
        .insert_user(&user)
        .await
        .expect("a new account");
    user
}

/// Copies the data directory `from` of an open store to `to` as its files are now,
/// which is what a `kill -9` of the process would leave on disk: whatever sled or the
/// journal keep only in memory is not in the copy.
pub(crate) fn crash_copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            crash_copy(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// One test per backend for each `async fn name(store) { body }`; with
/// `#[options = expr]` before the fn, the stores open with those [`Options`].
macro_rules! store_tests {
    () => {};
    (#[options = $opts:expr] async fn $name:ident($store:ident) $body:block $($rest:tt)*) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            async fn run($store: $crate::testing::TestStore) $body

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sled() {
                run($crate::testing::open($crate::testing::Engine::Sled, $opts).await).await
            }

            // TODO(issue 25): the `memory` test, once the in-memory backend is merged
            // (see the module docs).
        }
        $crate::testing::store_tests! { $($rest)* }
    };
    (async fn $name:ident($store:ident) $body:block $($rest:tt)*) => {
        $crate::testing::store_tests! {
            #[options = $crate::Options::default()]
            async fn $name($store) $body
            $($rest)*
        }
    };
}
pub(crate) use store_tests;
