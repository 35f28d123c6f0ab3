//! The embedded backend: sled 0.34 in `DATA/db`, beside the journal of marks and shares in
//! `DATA/journal`. Everything that knows sled is in this module; the rest of the store
//! sees only [`crate::backend::Backend`].
//!
//! sled keeps each aggregate in trees named `<key>_<value>` (see [`Trees`] and the key
//! layouts in [`keys`]); the secondary indexes (by date, title, URL, e-mail, customer,
//! join date...) are kept in step by the write that changes their record, in one sled
//! transaction where sled can do it, or, for the bulk writes of items, in an order a
//! crash can only leave incomplete, which opening mends (see `items`).
//!
//! Durability: a write method answers once its change is on disk. Most end with a group
//! commit (see [`group_commit`]): one `fdatasync` of sled's log shared by the writers
//! that arrive together. Readers' marks and shares, the most frequent writes, go through
//! the journal instead (see [`journal`]), which appends and syncs a file of our own and
//! applies the changes to sled in batches. Item batches are durable at the next flush.
//!
//! A full disk is an answer, not an outage: every write first asks the space guard (see
//! [`space`]), which refuses it with `Error::StorageFull` while the disk holds less than
//! the reserve, before sled or the journal is touched.
//!
//! State kept in memory is exact because sled's file lock lets one process open the
//! store: the items' version and each reader's version (with the reader's hidden and
//! read ids, see [`out_of_feed`]), API quota counts (checkpointed every second, see
//! `quotas`), the rate limiter's instants, the feed leases and job leases.

mod accounts;
mod api_keys;
mod billing;
mod coordination;
mod feed_head;
pub(crate) mod group_commit;
mod items;
pub(crate) mod journal;
pub(crate) mod keys;
mod known_items;
mod lock;
mod marks;
mod out_of_feed;
mod parsed;
mod quotas;
mod reading;
mod records;
mod secrets;
mod sessions;
mod sources;
pub(crate) mod space;
mod stories;
mod transfer;

#[cfg(test)]
pub(crate) mod testing;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::backend::{Backend, Json};
use crate::opening;
use crate::{Error, Options, Result, User};

/// The trees of the database. Each name says its key and value: `<key>_<value>`.
/// Key layouts are built only by [`keys`].
pub(crate) struct Trees {
    /// item id -> NewsItem JSON.
    pub items: sled::Tree,
    /// keys::published(published_date, item id) -> ().
    pub published_itemid: sled::Tree,
    /// keys::title(title, item id) -> ().
    pub title_itemid: sled::Tree,
    /// url -> item id, so imports and feeds update instead of duplicating.
    pub url_itemid: sled::Tree,
    /// name -> value: counters (`item_count`) and flags (`demo_loaded`).
    pub meta: sled::Tree,
    /// keys::join(user id, item id) -> keys::time(marked at), one tree per mark.
    pub userid_favorites: sled::Tree,
    /// As `userid_favorites`, for hidden (Trash) items.
    pub userid_hidden: sled::Tree,
    /// As `userid_favorites`, for read items.
    pub userid_read: sled::Tree,
    /// keys::join(item id, user id) -> one byte naming the user's mark on the item (`f`,
    /// `h`, `r`): finds every mark of an item when it is removed.
    pub itemuser_mark: sled::Tree,
    /// user id -> the user's counts of favourite, hidden and read items (three big-endian
    /// u64), kept in the transaction of every mark change: the feed's `total` in one read.
    pub userid_markcounts: sled::Tree,
    /// keys::join(user id, item id) -> Share JSON (latest share wins).
    pub userid_shared: sled::Tree,
    /// user id -> User JSON.
    pub users: sled::Tree,
    /// lower-cased e-mail -> user id.
    pub email_userid: sled::Tree,
    /// session id -> Session JSON.
    pub sessions: sled::Tree,
    /// keys::join(user id, session id) -> ().
    pub userid_sessions: sled::Tree,
    /// user id -> WaitlistEntry JSON.
    pub waitlist: sled::Tree,
    /// keys::published(joined at, user id) -> (): the waitlist in join order.
    pub joined_userid: sled::Tree,
    /// user id -> Profile JSON.
    pub userid_profile: sled::Tree,
    /// user id -> the user's API key (UTF-8), shown again on /api-docs.
    pub userid_apikey: sled::Tree,
    /// SHA-256 of an API key (32 bytes) -> user id: authenticates a key in one lookup.
    pub apikeyhash_userid: sled::Tree,
    /// keys::join(owner user id, UTC day "YYYYMMDD") -> keys::u64_value(requests that day).
    pub quota_userday: sled::Tree,
    /// summary id -> WeeklySummary JSON.
    pub summaries: sled::Tree,
    /// keys::published(start date, summary id) -> (): summaries by week.
    pub start_summaryid: sled::Tree,
    /// checkout session id -> CheckoutSession JSON.
    pub checkouts: sled::Tree,
    /// payment provider customer id -> user id, so a provider's cancellation finds its user.
    pub customerid_userid: sled::Tree,
    /// keys::join(kind, key) -> keys::u64_value(version) ++ the document's JSON.
    pub docs: sled::Tree,
    /// kind -> keys::u64_value(the kind's version).
    pub doc_versions: sled::Tree,
    /// keys::owner_time(user id, created at, checkout session id) -> (): a user's recent
    /// checkouts (entries older than a day are pruned as new ones are counted).
    pub userid_checkouts: sled::Tree,
    /// keys::secret(refresh token) -> RefreshRecord JSON {session_id, created_at, used_at}.
    pub refresh_tokens: sled::Tree,
    /// keys::join(session id, keys::secret(refresh token)) -> (), to end a session's tokens.
    pub sessionid_refresh: sled::Tree,
    /// SHA-256 of a one-time secret -> its record (see `secrets`): e-mailed links and
    /// reauthentication codes.
    pub onetime_tokens: sled::Tree,
    /// keys::join(user id, purpose) -> SHA-256 of the secret: the one live secret per
    /// purpose.
    pub userid_onetime: sled::Tree,
    /// SHA-256 of a PKCE authorization code -> its record.
    pub authcodes: sled::Tree,
    /// keys::join(user id, purpose) -> SHA-256 of the code: the one live code per purpose.
    pub userid_authcode: sled::Tree,
    /// mail id -> Mail JSON (the outbox).
    pub mails: sled::Tree,
    /// keys::published(kept at, mail id) -> (), for the outbox newest first.
    pub sent_mailid: sled::Tree,
    /// feed id -> Feed JSON (source feeds and their polling state).
    pub feeds: sled::Tree,
    /// feed url -> feed id.
    pub feedurl_feedid: sled::Tree,
    /// keys::join(feed id, entry guid) -> item id, so a feed's entry updates its item.
    pub feedguid_itemid: sled::Tree,
    /// The item change log (see `items`): a change's number (sled's `generate_id`,
    /// big-endian) -> the item id, or `#` and a batch's ids one per line. Entries stay
    /// until the search index has committed them, so after a crash the ids left here are
    /// indexed again when the store opens.
    pub search_pending: sled::Tree,
    /// keys::read_of(reader, at, item) -> (): one reader's reads by time.
    pub userid_reads: sled::Tree,
    /// keys::read_at(at, reader, item) -> (): every reader's reads by time.
    pub readat_userid: sled::Tree,
    /// item id -> the id of its story (see `stories`).
    pub itemid_storyid: sled::Tree,
    /// story id -> its members' ids, one per line, the lead first.
    pub storyid_members: sled::Tree,
    /// merged story id -> the id of the story it merged into.
    pub storyid_into: sled::Tree,
    /// covered item id (a member that is not its story's lead) -> its story id.
    pub covered_storyid: sled::Tree,
}

/// What the backend keeps in memory besides sled's own page cache: derived from the
/// trees, never the only copy of anything.
pub(crate) struct Memory {
    /// Each recently active reader's hidden and read item ids, and the reader's version.
    pub out_of_feed: out_of_feed::OutOfFeedCache,
    /// Moves on with every item write: the items' version.
    pub items_generation: AtomicU64,
    /// The newest items' JSON, for the first pages of every feed.
    pub head: feed_head::HeadCache,
    /// Recently read accounts, parsed (every signed-in request reads its account).
    pub users: parsed::ParsedCache<User>,
    /// Recently read sessions, parsed (every signed-in request checks its session).
    pub sessions: parsed::ParsedCache<crate::Session>,
    /// Item ids known to exist, for marks' existence checks.
    pub known_items: known_items::KnownItems,
    /// Each recently active reader's count of covered items among those out of their
    /// feed, under their version and the items' (see `stories`).
    pub covered_out: std::sync::Mutex<lru::LruCache<String, stories::CoveredOut>>,
    /// Held while a week's summary is checked for and written: sled cannot scan inside
    /// a transaction, and its file lock lets one process in, so this makes the check and
    /// the write one step.
    pub summary_week: std::sync::Mutex<()>,
}

/// Accounts and sessions kept parsed: the active readers of a busy hour. A record is
/// about 0.5 to 1 KB with its parsed copy, so each cache stays within about 4 MB.
const PARSED_RECORDS: usize = 4096;

/// How many item ids are kept known to exist (about 18 MB when full): a million marked
/// items; past it the set starts over.
const KNOWN_ITEMS: usize = 1 << 20;

/// The sled backend.
pub(crate) struct SledBackend {
    db: sled::Db,
    commit: Arc<group_commit::GroupCommit>,
    journal: Arc<journal::Journal>,
    pub(crate) t: Arc<Trees>,
    mem: Arc<Memory>,
    quotas: quotas::QuotaCounters,
    space: space::SpaceGuard,
    coordination: coordination::Local,
    dir: PathBuf,
}

impl SledBackend {
    /// Opens (or creates) the backend in the data directory `dir`: sled in `dir/db`,
    /// the journal in `dir/journal`, which is replayed onto sled first. On a disk short
    /// of the reserve it opens with writes refused (see `space`). An error names its
    /// cause first (see `opening`).
    pub(crate) fn open(dir: &Path, opts: &Options) -> Result<Self> {
        let at = |part: &str| {
            let path = dir.join(part);
            move |e| opening::explain(dir, &path, e)
        };
        let space = space::SpaceGuard::open(dir, opts.disk_reserve).map_err(at(""))?;
        let db = lock::open(&dir.join("db"), opts).map_err(at("db"))?;
        Self::open_parts(dir, opts, db, space).map_err(at("db"))
    }

    /// The rest of [`SledBackend::open`] once sled is open; errors are explained by the
    /// caller, and those of the journal here, with its own path.
    fn open_parts(
        dir: &Path,
        opts: &Options,
        db: sled::Db,
        space: space::SpaceGuard,
    ) -> Result<Self> {
        let at = |part: &str| {
            let path = dir.join(part);
            move |e| opening::explain(dir, &path, e)
        };
        let tree = |name: &str| db.open_tree(name);
        let t = Trees {
            items: tree("items")?,
            published_itemid: tree("published_itemid")?,
            title_itemid: tree("title_itemid")?,
            url_itemid: tree("url_itemid")?,
            meta: tree("meta")?,
            userid_favorites: tree("userid_favorites")?,
            userid_hidden: tree("userid_hidden")?,
            userid_read: tree("userid_read")?,
            itemuser_mark: tree("itemuser_mark")?,
            userid_markcounts: tree("userid_markcounts")?,
            userid_shared: tree("userid_shared")?,
            users: tree("users")?,
            email_userid: tree("email_userid")?,
            sessions: tree("sessions")?,
            userid_sessions: tree("userid_sessions")?,
            refresh_tokens: tree("refresh_tokens")?,
            sessionid_refresh: tree("sessionid_refresh")?,
            onetime_tokens: tree("onetime_tokens")?,
            userid_onetime: tree("userid_onetime")?,
            authcodes: tree("authcodes")?,
            userid_authcode: tree("userid_authcode")?,
            mails: tree("mails")?,
            sent_mailid: tree("sent_mailid")?,
            waitlist: tree("waitlist")?,
            joined_userid: tree("joined_userid")?,
            userid_profile: tree("userid_profile")?,
            userid_apikey: tree("userid_apikey")?,
            apikeyhash_userid: tree("apikeyhash_userid")?,
            quota_userday: tree("quota_userday")?,
            summaries: tree("summaries")?,
            start_summaryid: tree("start_summaryid")?,
            checkouts: tree("checkouts")?,
            customerid_userid: tree("customerid_userid")?,
            docs: tree("docs")?,
            doc_versions: tree("doc_versions")?,
            userid_checkouts: tree("userid_checkouts")?,
            feeds: tree("feeds")?,
            feedurl_feedid: tree("feedurl_feedid")?,
            feedguid_itemid: tree("feedguid_itemid")?,
            search_pending: tree("search_pending")?,
            userid_reads: tree("userid_reads")?,
            readat_userid: tree("readat_userid")?,
            itemid_storyid: tree("itemid_storyid")?,
            storyid_members: tree("storyid_members")?,
            storyid_into: tree("storyid_into")?,
            covered_storyid: tree("covered_storyid")?,
        };
        let t = Arc::new(t);
        let mem = Arc::new(Memory {
            out_of_feed: out_of_feed::OutOfFeedCache::new(opts.out_of_feed_ids),
            items_generation: AtomicU64::new(0),
            head: feed_head::HeadCache::default(),
            users: parsed::ParsedCache::new(PARSED_RECORDS),
            sessions: parsed::ParsedCache::new(PARSED_RECORDS),
            known_items: known_items::KnownItems::new(KNOWN_ITEMS),
            summary_week: std::sync::Mutex::new(()),
            covered_out: std::sync::Mutex::new(lru::LruCache::new(
                std::num::NonZeroUsize::new(PARSED_RECORDS).expect("not zero"),
            )),
        });
        if opts.warm_known_items {
            // From the date index: its keys hold the ids, and it has no values to read.
            // Newest first, so that past the set's capacity the items readers mark most
            // are the ones in it.
            let (mem, dates) = (Arc::clone(&mem), t.published_itemid.clone());
            let warming = std::thread::Builder::new()
                .name("radar-known-items".into())
                .spawn(move || {
                    let ids = dates.iter().keys().rev().map_while(std::result::Result::ok);
                    mem.known_items.warm(
                        ids.filter_map(|key| keys::published_item_id(&key).map(str::to_owned)),
                    );
                });
            if let Err(e) = warming {
                tracing::warn!(error = %e, "cannot start reading the item ids into memory");
            }
        }
        let commit = Arc::new(group_commit::GroupCommit::new(&dir.join("db"))?);
        let leftover =
            journal::Leftover::read(&dir.join("journal"), &t.meta, opts.accept_journal_loss)
                .map_err(at("journal"))?;
        let journal = journal::Journal::start(
            &dir.join("journal"),
            &leftover,
            opts.journal_checkpoint_bytes,
            db.clone(),
            commit.clone(),
            t.clone(),
            mem.clone(),
        )
        .map_err(at("journal"))?;
        let backend = Self {
            db,
            commit,
            journal: Arc::new(journal),
            t,
            mem,
            quotas: quotas::QuotaCounters::new(),
            space,
            coordination: coordination::Local::default(),
            dir: dir.to_path_buf(),
        };
        backend.index_marks_once()?;
        backend.replay_journal(leftover).map_err(at("journal"))?;
        backend.mend_interrupted_batches()?;
        Ok(backend)
    }

    /// Makes every write so far durable: returns once a sync that started after the
    /// call is done (`fdatasync` of sled's log, shared with concurrent callers).
    pub(crate) fn sync(&self) -> Result<()> {
        self.commit.sync(&self.db)
    }

    /// How many syncs of sled's log the backend has made since it opened (each may have
    /// covered many writes); for tests of group commit.
    #[cfg(test)]
    pub(crate) fn syncs(&self) -> u64 {
        self.commit.syncs()
    }

    /// Refuses a write while the disk is short of the reserve (see `space`).
    pub(crate) fn writable(&self) -> Result<()> {
        self.space.check()
    }

    /// The items' version.
    pub(crate) fn items_generation(&self) -> u64 {
        self.mem.items_generation.load(Ordering::Acquire)
    }

    /// Notes that items changed, so pages cached from before are not served again.
    pub(crate) fn items_changed(&self) {
        self.mem.items_generation.fetch_add(1, Ordering::Release);
    }

    /// The number of the next entry of the item change log: from 1, since a reader
    /// asks for the entries after the last it applied and starts from 0.
    pub(crate) fn next_change(&self) -> Result<u64> {
        Ok(self.db.generate_id()? + 1)
    }
}

#[async_trait::async_trait]
impl Backend for SledBackend {
    fn engine(&self) -> &'static str {
        "sled"
    }

    async fn flush(&self) -> Result<()> {
        self.sync()
    }

    async fn upkeep(&self) -> Result<()> {
        self.space.watch();
        self.checkpoint_quotas(chrono::Utc::now()).map(drop)
    }

    fn storage_full(&self) -> bool {
        self.space.full()
    }

    fn durable_syncs(&self) -> u64 {
        self.commit.syncs() + self.journal.syncs()
    }

    fn transfer(&self) -> Option<&dyn crate::backend::transfer::Transfer> {
        Some(self)
    }
}

impl Drop for SledBackend {
    /// Saves the quota counts of the last moments; the journal checkpoints itself and
    /// sled flushes when their handles go.
    fn drop(&mut self) {
        if let Err(e) = self.checkpoint_quotas(chrono::Utc::now()) {
            tracing::warn!(error = %e, "the API quota counts of the last moments were not saved");
        }
    }
}

/// Serialises a record for sled.
pub(crate) fn to_json<T: serde::Serialize>(v: &T) -> Vec<u8> {
    crate::to_json(v)
}

/// Reads a record sled holds.
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    crate::from_json(bytes)
}

/// A sled value as shared JSON, without a copy.
pub(crate) fn json(v: sled::IVec) -> Json {
    Json::from_owner(v)
}

impl From<sled::Error> for Error {
    fn from(e: sled::Error) -> Self {
        match e {
            sled::Error::Io(io) => Error::Io(io),
            other => Error::Storage(other.to_string()),
        }
    }
}

impl From<sled::transaction::TransactionError<Error>> for Error {
    fn from(e: sled::transaction::TransactionError<Error>) -> Self {
        match e {
            sled::transaction::TransactionError::Abort(e) => e,
            sled::transaction::TransactionError::Storage(e) => e.into(),
        }
    }
}

impl From<Error> for sled::transaction::ConflictableTransactionError<Error> {
    fn from(e: Error) -> Self {
        sled::transaction::ConflictableTransactionError::Abort(e)
    }
}
