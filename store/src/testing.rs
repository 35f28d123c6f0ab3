//! The harness of the store's behavioural tests: each test of the rules is written once
//! and runs against every backend (the conformance suite). [`store_tests!`] turns
//!
//! ```ignore
//! store_tests! {
//!     async fn a_rule_holds(store) { ... }
//! }
//! ```
//!
//! into a module `a_rule_holds` with one test per backend (`embedded`, `memory`), each
//! given a fresh [`TestStore`]. Tests about one backend's internals (the embedded
//! backend's journal, crash injection, group commit) are not written this way: they
//! live in that backend's module and say so.
//!
//! Tests of one engine's bookkeeping that a rule's test still wants to see (that a
//! removed record leaves nothing behind in the engine's indexes) ask it through
//! [`TestStore::internals`], which a backend answers when it keeps such things.

use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};

use crate::engines::{self, memory::MemoryBackend};
use crate::{Options, Store};

/// The backends the suite runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Engine {
    /// The embedded backend, on a temporary directory.
    Embedded,
    /// The in-memory backend written for tests.
    Memory,
}

/// What the behavioural tests may ask of a backend's own bookkeeping, for backends that
/// keep indexes by name (the embedded one's trees). Each method panics on a name the
/// backend does not know, so a typo cannot make a test pass.
pub(crate) trait Internals: Send + Sync {
    /// How many entries the index `name` holds.
    fn index_len(&self, name: &str) -> usize;
    /// Whether the index `name` holds `key`.
    fn index_has(&self, name: &str, key: &[u8]) -> bool;
    /// Saves the counters kept in memory between checkpoints (API quotas) as at `now`.
    fn save_counters(&self, now: DateTime<Utc>);
    /// The API quota count saved for `owner` on `day` (0 when none is).
    fn saved_quota(&self, owner: &str, day: NaiveDate) -> u64;
}

/// A store for one test, with the directory its files live in (the search index, and
/// for the embedded backend its database), removed when the test ends.
pub(crate) struct TestStore {
    /// The store.
    pub store: Store,
    /// The data directory, removed when the test ends.
    _dir: tempfile::TempDir,
    /// The backend's bookkeeping, when it keeps indexes by name.
    internals: Option<Arc<dyn Internals>>,
}

impl std::ops::Deref for TestStore {
    type Target = Store;

    fn deref(&self) -> &Store {
        &self.store
    }
}

impl TestStore {
    /// The backend's bookkeeping, for the assertions that hold only where it keeps
    /// indexes by name.
    pub(crate) fn internals(&self) -> Option<&dyn Internals> {
        self.internals.as_deref()
    }
}

/// A fresh store on `engine`.
pub(crate) async fn open(engine: Engine, opts: Options) -> TestStore {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (store, internals) = match engine {
        Engine::Embedded => {
            let (store, internals) = engines::open_embedded_for_test(dir.path(), opts)
                .await
                .expect("a test store opens");
            (store, Some(internals))
        }
        Engine::Memory => {
            let store = Store::with_backend(Arc::new(MemoryBackend::new()), dir.path(), opts)
                .await
                .expect("a test store opens");
            (store, None)
        }
    };
    TestStore {
        store,
        _dir: dir,
        internals,
    }
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
/// which is what a `kill -9` of the process would leave on disk: whatever the engine
/// keeps only in memory is not in the copy.
///
/// The engines' background threads (sled's flusher, tantivy's merges) replace and
/// remove files while the copy runs, so a file listed may be gone when it is read. No
/// crash leaves a directory with a file missing that its other files name, so a copy
/// that met a vanished file is thrown away and taken again. The copy is still not one
/// instant's: its files are read one after the other while the engines write.
pub(crate) fn crash_copy(from: &Path, to: &Path) {
    const ATTEMPTS: usize = 20;
    for _ in 0..ATTEMPTS {
        match copy_tree(from, to) {
            Ok(()) => return,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::remove_dir_all(to).unwrap();
            }
            Err(e) => panic!("cannot copy {} to {}: {e}", from.display(), to.display()),
        }
    }
    panic!(
        "files of {} kept vanishing during {ATTEMPTS} copies",
        from.display()
    );
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
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
            async fn embedded() {
                run($crate::testing::open($crate::testing::Engine::Embedded, $opts).await).await
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn memory() {
                run($crate::testing::open($crate::testing::Engine::Memory, $opts).await).await
            }
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
