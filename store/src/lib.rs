//! Radar's store: the domain model of the product (docs/product.md §3), its rules (section 4)
//! and their persistence behind a backend interface.
//!
//! The daemon and the command line are thin layers over this crate: every rule that must
//! hold for every client (mutually exclusive marks, the free cap, idempotent joins, how
//! a refresh token rotates) is decided here, once, and never only in a handler. Where
//! the data is kept is a [`backend::Backend`]'s business: the embedded backend (the
//! default, see `engines`), or another engine behind the same traits. The
//! backend module's docs say where the line between the two is drawn and why.
//!
//! A [`Store`] is the rules over one backend, with what a process keeps beside it: the
//! full-text search index (a local replica, fed from the backend's log of item changes,
//! see `search`) and caches of ready JSON answers, each kept under a version the backend
//! provides, so that no cached page outlives the write that changed it (see `pages`).
//!
//! Writes are durable when a method returns. Every listing walks an index in order, so
//! no request scans all items or all users. The data directory and every file in it are
//! private to the user running Radar (see [`make_private`]).
#![deny(missing_docs)]

pub mod backend;
pub mod display;
mod error;
pub mod rate;
pub mod topics;

mod admin;
mod alerts;
mod api_keys;
mod catalogue;
mod coordination;
mod demo;
mod email;
mod email_change;
mod insights;
mod items;
mod marks;
mod opening;
mod pages;
mod payments;
mod pkce;
mod private;
mod profiles;
mod publications;
mod quotas;
mod reader_feed;
mod reading;
mod reauthentication;
mod search;
mod secrets;
mod sessions;
mod source_feeds;
mod stories;
mod summaries;
mod takeaways;
mod trends;
mod users;
mod waitlist;

mod engines;
#[cfg(test)]
mod testing;

pub use admin::{ImportOutcome, ImportStatus};
pub use alerts::{AlertMail, FREE_ALERTS, SUBSCRIBER_ALERTS};
pub use api_keys::API_KEY_PREFIX;
pub use catalogue::{SortBy, SortOrder};
pub use email::{EmailProblem, MAX_EMAIL_LEN, check_email, normalize_email};
pub use email_change::{EmailChangeLinks, EmailChangeStep};
pub use error::{Error, Result};
pub use insights::{KEEP_READS, MIN_COMPARISON_READERS, ReadTotals, WEEK, WeekStory};
pub use items::{NewItem, Upserted};
pub use outbox::Mail;
pub use payments::{CheckoutSession, CheckoutStatus};
pub use pkce::{ChallengeMethod, Exchanged, PkceChallenge};
pub use private::{DIR_MODE, FILE_MODE, make_private};
pub use profiles::{MAX_RESUME_CHARS, Profile};
pub use quotas::{CHECKPOINT_EVERY as QUOTA_CHECKPOINT_EVERY, QuotaUse};
/// The items, marks and pages the store keeps and returns are the API contract's own types.
pub use radar_api::{FeedPage, ItemMarks, Mark, NewsItem, SharedItem};
pub use reader_feed::{FREE_LIMIT, SUBSCRIBER_PAGE, Viewer};
pub use reading::{Opening, ReadBefore};
pub use reauthentication::MAX_NONCE_ATTEMPTS;
pub use search::{MAX_DEPTH, MAX_QUERY_CHARS, QueryError, SearchQuery, SearchResults};
pub use sessions::{LogoutScope, Refresh, Session, SessionGrant, is_well_formed_secret};
pub use source_feeds::{Feed, validate_feed_url};
pub use stories::WINDOW_DAYS as STORY_WINDOW_DAYS;
pub use summaries::{DEFAULT_SUMMARY_TITLE, KeyPoint, SourceLink, WeeklySummary};
#[doc(hidden)]
pub use trends::CountsForBench;
pub use trends::{BASE_WEEKS, FREE_TRENDS, MIN_COUNT, STORIES, SUBSCRIBER_TRENDS, WEEKS};
pub use users::{OneTimeKind, PKCE_PREFIX, Redeemed, Subscription, User, client_metadata};
pub use waitlist::WaitlistEntry;

#[doc(hidden)]
pub use alerts::BenchIndex as AlertBenchIndex;
#[doc(hidden)]
pub use engines::postgres::testing as postgres_testing;
pub use engines::{BALLAST_FILE, FULL_RETRY_AFTER, is_database_url, redact_url};

mod outbox;

use std::path::Path;
use std::sync::Arc;

use backend::Backend;

/// How to open the store.
#[derive(Debug, Clone)]
pub struct Options {
    /// User ids or e-mails that are always treated as subscribers (docs/product.md §6's
    /// "one hard-coded special user", made configurable).
    pub complimentary: Vec<String>,
    /// The embedded backend's page cache in bytes.
    pub cache_bytes: u64,
    /// Hidden and read item ids the embedded backend keeps in memory for recently active
    /// readers (about 60 bytes each), so feed pages need no mark lookups.
    pub out_of_feed_ids: usize,
    /// How long opening the embedded backend asks again for a lock another handle holds
    /// before it answers [`Error::Locked`]: long enough for a handle just closed to let
    /// go; zero for a caller that waits in its own way.
    pub lock_wait: std::time::Duration,
    /// Size of the embedded backend's journal of marks and shares past which it is
    /// folded into the database and started anew: what a restart after a crash may have
    /// to replay.
    pub journal_checkpoint_bytes: u64,
    /// Open the embedded backend even when its journal lacks changes it acknowledged (a
    /// deleted journal file), keeping what the rest holds; without it, opening answers
    /// [`Error::JournalLoss`].
    pub accept_journal_loss: bool,
    /// Free space the embedded backend keeps on its disk: writes are refused below it,
    /// and a quarter of it is held as the ballast file `DATA/reserve`. Zero turns the
    /// guard off.
    pub disk_reserve: u64,
    /// Read every item's id into memory when the embedded backend opens, on a thread of
    /// its own, so that marks need no read of the items to know theirs exists: for the
    /// daemon, not for a command that opens the store for a moment.
    pub warm_known_items: bool,
    /// Keep this process's trend counts: built from the kept weeks' items when the store
    /// opens and fed by every item write, for the daemon, which serves them. A command
    /// that opens the store for a moment (an import among them) serves none.
    pub trends: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            complimentary: Vec::new(),
            cache_bytes: 64 * 1024 * 1024,
            out_of_feed_ids: 250_000,
            lock_wait: std::time::Duration::from_millis(500),
            journal_checkpoint_bytes: 8 << 20,
            accept_journal_loss: false,
            disk_reserve: 64 << 20,
            warm_known_items: false,
            trends: true,
        }
    }
}

/// A handle to the store; cheap to clone, safe to share between tasks and threads.
#[derive(Clone)]
pub struct Store(Arc<Inner>);

struct Inner {
    backend: Arc<dyn Backend>,
    opts: Options,
    /// This process's search replica; none in a process that keeps none (a command run
    /// against a shared database, where the daemons' replicas follow the change log).
    search: Option<search::SearchIndex>,
    /// This process's trend counts, kept with the search replica and fed by the same
    /// writes (see `trends`); none without a replica.
    trends: Option<trends::Trends>,
    pages: pages::Pages,
    /// This process's copy of the alert index.
    alerts: alerts::AlertCache,
    stories: stories::Stories,
}

impl Store {
    /// Opens (or creates) the store in the data directory `dir` on the embedded backend,
    /// which it makes private first: its database in `dir/db`, the search index in
    /// `dir/search`, brought up to date here. An error names its cause first (see `opening`).
    pub async fn open(dir: &Path, opts: Options) -> Result<Self> {
        opening::check_layout(dir)?;
        make_private(dir).map_err(|e| opening::explain(dir, dir, e))?;
        let backend = {
            let (dir, opts) = (dir.to_path_buf(), opts.clone());
            // Opening replays the journal and may wait for a lock: off the runtime.
            run_blocking(move || engines::open_embedded(&dir, &opts)).await?
        };
        Self::with_backend(backend, dir, opts).await
    }

    /// Opens the store in the shared database at `url` (`postgres://…`), bringing its
    /// schema up to date. With `dir`, this process keeps a search replica in
    /// `dir/search` that follows the database's change log (a daemon); without, it keeps
    /// none and leaves the log to the daemons' replicas (an admin command). An error
    /// names the URL with its password hidden; [`Error::Unavailable`] means the database
    /// could not be reached (worth waiting for).
    pub async fn open_shared(url: &str, dir: Option<&Path>, opts: Options) -> Result<Self> {
        let backend = engines::open_database(url).await?;
        match dir {
            Some(dir) => {
                opening::check_layout(dir)?;
                make_private(dir).map_err(|e| opening::explain(dir, dir, e))?;
                Self::with_backend(backend, dir, opts).await
            }
            None => Ok(Self(Arc::new(Inner {
                backend,
                opts,
                search: None,
                trends: None,
                pages: pages::Pages::default(),
                alerts: alerts::AlertCache::default(),
                stories: stories::Stories::default(),
            }))),
        }
    }

    /// The store over `backend`, with its search index in `dir/search` (rebuilt there when
    /// missing or damaged, and brought up to date with the backend's change log).
    pub async fn with_backend(
        backend: Arc<dyn Backend>,
        dir: &Path,
        opts: Options,
    ) -> Result<Self> {
        let (index, rebuild) = {
            let owned = dir.to_path_buf();
            run_blocking(move || search::SearchIndex::open(&owned))
                .await
                .map_err(|e| opening::explain(dir, &dir.join("search"), e))?
        };
        let trends = opts.trends.then(trends::Trends::default);
        let store = Self(Arc::new(Inner {
            backend,
            opts,
            search: Some(index),
            trends,
            pages: pages::Pages::default(),
            alerts: alerts::AlertCache::default(),
            stories: stories::Stories::default(),
        }));
        store
            .open_search(rebuild)
            .await
            .map_err(|e| opening::explain(dir, &dir.join("search"), e))?;
        Ok(store)
    }

    /// The backend.
    pub(crate) fn backend(&self) -> &dyn Backend {
        &*self.0.backend
    }

    /// This process's search replica, if it keeps one.
    pub(crate) fn replica(&self) -> Option<&search::SearchIndex> {
        self.0.search.as_ref()
    }

    /// This process's trend counts, if it keeps a replica.
    pub(crate) fn trends_replica(&self) -> Option<&trends::Trends> {
        self.0.trends.as_ref()
    }

    /// This process's search replica, for what cannot be done without one.
    pub(crate) fn index(&self) -> Result<&search::SearchIndex> {
        self.replica().ok_or_else(|| {
            Error::Unavailable(
                "this process keeps no search index: search, and rebuild the index, through \
                 `radar serve`, whose replica in its --data directory follows the database"
                    .into(),
            )
        })
    }

    /// The caches of ready answers.
    pub(crate) fn pages(&self) -> &pages::Pages {
        &self.0.pages
    }

    /// This process's copy of the alert index.
    pub(crate) fn alert_cache(&self) -> &std::sync::Mutex<Option<Arc<alerts::AlertIndex>>> {
        &self.0.alerts.0
    }

    /// The options the store was opened with.
    pub fn options(&self) -> &Options {
        &self.0.opts
    }

    /// The name of the engine the store keeps its data in, for logs.
    pub fn engine(&self) -> &'static str {
        self.backend().engine()
    }

    /// How many waits for the disk the engine has made since it opened (see
    /// [`Backend::durable_syncs`]); for benchmarks of group commit.
    pub fn durable_syncs(&self) -> u64 {
        self.backend().durable_syncs()
    }

    /// Makes every write so far durable (they are already when their method returns;
    /// this is for the end of a run).
    pub async fn flush(&self) -> Result<()> {
        self.backend().flush().await
    }

    /// Periodic upkeep of the backend (saving counters kept in memory, looking at the
    /// free disk space, pruning a shared change log), of the search replica, which
    /// follows a shared change log even when no search asks, and of the stories'
    /// grouping job over a shared backend: the daemon calls it about once a second.
    pub async fn upkeep(&self) -> Result<()> {
        self.backend().upkeep().await?;
        if let Some(trends) = self.trends_replica() {
            trends.prune();
        }
        self.search_replica_current().await?;
        self.group_from_log().await
    }

    /// Whether this process can serve: its backend answers, and its search replica holds
    /// every write committed so far (brought up to date here when behind). What a load
    /// balancer's readiness check asks; [`Error::Unreachable`] when the database is not.
    pub async fn check_ready(&self) -> Result<()> {
        self.backend().ping().await?;
        self.search_replica_current().await
    }

    /// Whether writes are refused because the backend's disk is full (reads go on).
    pub fn storage_full(&self) -> bool {
        self.backend().storage_full()
    }
}

/// Runs blocking work (opening files, CPU-heavy indexing) on tokio's blocking pool when
/// called inside a runtime, else on this thread: the one hand-off of the store's
/// synchronous parts.
pub(crate) async fn run_blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => handle
            .spawn_blocking(f)
            .await
            .map_err(|e| Error::Unavailable(format!("a store task stopped: {e}")))?,
        Err(_) => f(),
    }
}

/// Serialises a record for storage.
pub(crate) fn to_json<T: serde::Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).expect("store records always serialise")
}

/// Reads a stored record.
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    Ok(serde_json::from_slice(bytes)?)
}
