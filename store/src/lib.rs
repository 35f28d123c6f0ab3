//! Radar's store: the domain model of the product (spec section 3), its rules (section 4)
//! and their persistence in an embedded sled database.
//!
//! The daemon and the command line are thin layers over this crate: every rule that must
//! hold for every client (mutually exclusive marks, the free cap, idempotent joins) is
//! enforced here, inside sled transactions, and never only in a handler. Every listing
//! walks an index in key order (see [`keys`]), so no request scans all items or all users.
//!
//! Writes are durable when a method returns: each ends with [`Store::flush`], a group
//! commit (see `group_commit`) that puts the write on disk with `fdatasync` and shares
//! one sync among the writers that arrive together. Readers' marks and shares, the most
//! frequent writes, are instead journaled (see `journal`): a method that answers a
//! [`Durable`] has applied the change, and the change is on disk once that says so. The
//! data directory and every file in it are private to the user running Radar (see
//! [`make_private`]).
//!
//! A full disk is an answer, not an outage: every write method first asks the space
//! guard (see `space`), which refuses it with [`Error::StorageFull`] while the disk holds
//! less than [`Options::disk_reserve`] free, before sled, the journal or the index is
//! touched; reads go on, and writes resume by themselves when space comes back.
#![deny(missing_docs)]

pub mod backend;
pub mod display;
mod error;
pub mod rate;
mod secrets;
pub mod keys;

mod admin;
mod demo;
mod email;
mod email_change;
mod engines;
mod feed;
mod feed_head;
mod feeds;
mod group_commit;
mod items;
mod journal;
mod marks;
mod opening;
mod out_of_feed;
mod outbox;
mod parsed;
mod pkce;
mod private;
mod reauthentication;
mod search;
mod sessions;
mod sled_open;
mod space;
mod users;

mod api_keys;
mod catalogue;
mod payments;
mod profiles;
mod quotas;
mod summaries;
mod takeaways;
mod waitlist;

pub use admin::{ImportOutcome, ImportStatus};
pub use email::{EmailProblem, MAX_EMAIL_LEN, check_email, normalize_email};
pub use email_change::{EmailChangeLinks, EmailChangeStep};
pub use error::{Error, Result};
pub use feed::{FREE_LIMIT, SUBSCRIBER_PAGE, Viewer};
pub use feeds::{Feed, validate_feed_url};
pub use items::{NewItem, Upserted};
pub use journal::Durable;
pub use outbox::Mail;
pub use pkce::{ChallengeMethod, Exchanged, PkceChallenge};
pub use private::{DIR_MODE, FILE_MODE, make_private};
/// The items, marks and pages the store keeps and returns are the API contract's own types.
pub use radar_api::{FeedPage, ItemMarks, Mark, NewsItem, SharedItem};
pub use reauthentication::MAX_NONCE_ATTEMPTS;
pub use search::{MAX_DEPTH, MAX_QUERY_CHARS, QueryError, SearchQuery};
pub use sessions::{LogoutScope, Refresh, Session, SessionGrant, is_well_formed_secret};
pub use space::{BALLAST_FILE, FULL_RETRY_AFTER};
pub use users::{OneTimeKind, PKCE_PREFIX, Redeemed, Subscription, User, client_metadata};

pub use api_keys::API_KEY_PREFIX;
pub use catalogue::{SortBy, SortOrder};
pub use payments::{CheckoutSession, CheckoutStatus};
pub use profiles::{MAX_RESUME_CHARS, Profile};
pub use quotas::{CHECKPOINT_EVERY as QUOTA_CHECKPOINT_EVERY, QuotaUse};
pub use summaries::{DEFAULT_SUMMARY_TITLE, WeeklySummary};
pub use waitlist::WaitlistEntry;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// How to open the store.
#[derive(Debug, Clone)]
pub struct Options {
    /// Upper bound of sled's page cache in bytes (sled's own default is 1 GiB).
    pub cache_bytes: u64,
    /// User ids or e-mails that are always treated as subscribers (spec section 6's
    /// "one hard-coded special user", made configurable).
    pub complimentary: Vec<String>,
    /// Hidden and read item ids kept in memory for recently active readers (about 60
    /// bytes each), so feed pages need no mark lookups.
    pub out_of_feed_ids: usize,
    /// How long opening asks again for a lock another handle holds before it answers
    /// [`Error::Locked`]: long enough for a handle just closed to let go (see
    /// `sled_open`); zero for a caller that waits in its own way.
    pub lock_wait: std::time::Duration,
    /// Size of the journal of marks and shares past which it is folded into sled and
    /// started anew (see `journal`): what a restart after a crash may have to replay.
    pub journal_checkpoint_bytes: u64,
    /// Open the store even when the journal lacks changes it acknowledged (a deleted
    /// journal file), keeping what sled and the rest of the journal hold; without it,
    /// opening answers [`Error::JournalLoss`] (see `journal`).
    pub accept_journal_loss: bool,
    /// Free space the store keeps on its disk: writes are refused below it, and a
    /// quarter of it is held as the ballast file `DATA/reserve` (see `space`). Zero turns
    /// the guard off.
    pub disk_reserve: u64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            cache_bytes: 64 * 1024 * 1024,
            complimentary: Vec::new(),
            out_of_feed_ids: 250_000,
            lock_wait: std::time::Duration::from_millis(500),
            journal_checkpoint_bytes: 8 << 20,
            accept_journal_loss: false,
            disk_reserve: 64 << 20,
        }
    }
}

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
    /// keys::join(user id, item id) -> SharedRecord JSON (latest share wins).
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
    /// keys::owner_time(user id, created at, checkout session id) -> (): a user's recent
    /// checkouts (entries older than a day are pruned as new ones are counted).
    pub userid_checkouts: sled::Tree,
    /// keys::secret(refresh token) -> RefreshRecord JSON {session_id, created_at, used_at}.
    pub refresh_tokens: sled::Tree,
    /// keys::join(session id, keys::secret(refresh token)) -> (), to end a session's tokens.
    pub sessionid_refresh: sled::Tree,
    /// keys::secret(one-time token) -> OneTimeRecord JSON {user_id, kind, expires_at};
    /// a reauthentication code is keyed by the secret of the user id with it.
    pub onetime_tokens: sled::Tree,
    /// keys::join(user id, kind) -> keys::secret(token): the one live token per kind.
    pub userid_onetime: sled::Tree,
    /// keys::secret(PKCE authorization code) -> AuthCodeRecord JSON.
    pub authcodes: sled::Tree,
    /// keys::join(user id, purpose) -> keys::secret(code): the one live code per purpose.
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
    /// item id -> a marker unique to the write (sled's `generate_id`, big-endian): items
    /// written in sled whose search index entry may not be committed yet (see `search`).
    pub search_pending: sled::Tree,
}

/// What the store keeps in memory besides sled's own page cache: derived from the trees,
/// never the only copy of anything.
pub(crate) struct Memory {
    /// Each recently active reader's hidden and read item ids.
    pub out_of_feed: out_of_feed::OutOfFeedCache,
    /// Bumped by every item write: a page built at an older generation is stale.
    pub items_generation: AtomicU64,
    /// The first feed page of every caller who is not a subscriber and has hidden and
    /// read nothing (anonymous callers among them), as JSON, with its generation.
    pub first_page: Mutex<Option<(u64, Arc<[u8]>)>>,
    /// Recently asked pages of the public listing, as JSON, with their generation.
    pub public_pages: Mutex<catalogue::PublicPages>,
    /// The newest items' JSON, for the first pages of every feed.
    pub head: feed_head::HeadCache,
    /// Recently read accounts, parsed (every signed-in request reads its account).
    pub users: parsed::ParsedCache<User>,
    /// Recently read sessions, parsed (every signed-in request checks its session).
    pub sessions: parsed::ParsedCache<Session>,
}

/// Accounts and sessions kept parsed: the active readers of a busy hour. A record is
/// about 0.5 to 1 KB with its parsed copy, so each cache stays within about 4 MB.
const PARSED_RECORDS: usize = 4096;

/// A handle to the store; cheap to clone, safe to share between threads.
#[derive(Clone)]
pub struct Store {
    db: sled::Db,
    commit: Arc<group_commit::GroupCommit>,
    journal: Arc<journal::Journal>,
    t: Arc<Trees>,
    opts: Arc<Options>,
    mem: Arc<Memory>,
    search: Arc<search::SearchIndex>,
    quotas: Arc<quotas::QuotaCounters>,
    space: Arc<space::SpaceGuard>,
}

impl Store {
    /// Opens (or creates) the store in `dir`, which it makes private first: sled in
    /// `dir/db`, the search index in `dir/search`, rebuilt here first when it is missing,
    /// damaged or of an older format. On a disk short of the reserve it opens with writes
    /// refused (see `space`). An error names its cause first (see `opening`).
    pub fn open(dir: &Path, opts: Options) -> Result<Self> {
        opening::check_layout(dir)?;
        let at = |part: &str| {
            let path = dir.join(part);
            move |e| opening::explain(dir, &path, e)
        };
        make_private(dir).map_err(at(""))?;
        let space = space::SpaceGuard::open(dir, opts.disk_reserve).map_err(at(""))?;
        let db = sled_open::open(&dir.join("db"), &opts).map_err(at("db"))?;
        Self::open_parts(dir, opts, db, space).map_err(at("db"))
    }

    /// The rest of [`Store::open`] once sled is open; errors are explained by the caller,
    /// and those of the journal and the index here, with their own paths.
    fn open_parts(
        dir: &Path,
        opts: Options,
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
            userid_checkouts: tree("userid_checkouts")?,
            feeds: tree("feeds")?,
            feedurl_feedid: tree("feedurl_feedid")?,
            feedguid_itemid: tree("feedguid_itemid")?,
            search_pending: tree("search_pending")?,
        };
        let t = Arc::new(t);
        let mem = Arc::new(Memory {
            out_of_feed: out_of_feed::OutOfFeedCache::new(opts.out_of_feed_ids),
            items_generation: AtomicU64::new(0),
            first_page: Mutex::new(None),
            public_pages: Mutex::new(catalogue::PublicPages::default()),
            head: feed_head::HeadCache::default(),
            users: parsed::ParsedCache::new(PARSED_RECORDS),
            sessions: parsed::ParsedCache::new(PARSED_RECORDS),
        });
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
        let (search, rebuild) = search::SearchIndex::open(dir).map_err(at("search"))?;
        let store = Self {
            db,
            commit,
            journal: Arc::new(journal),
            t,
            mem,
            opts: Arc::new(opts),
            search: Arc::new(search),
            quotas: Arc::new(quotas::QuotaCounters::new()),
            space: Arc::new(space),
        };
        store.index_marks_once()?;
        store.replay_journal(leftover).map_err(at("journal"))?;
        store.open_search(rebuild).map_err(at("search"))?;
        Ok(store)
    }

    /// Makes every write so far durable: returns once a sync that started after the
    /// call is done (`fdatasync` of sled's log, shared with concurrent callers).
    pub fn flush(&self) -> Result<()> {
        self.commit.sync(&self.db)
    }

    /// How many syncs the store has made since it opened (each may have covered many
    /// writes); for tests and benchmarks of group commit.
    pub fn syncs(&self) -> u64 {
        self.commit.syncs()
    }

    /// How many syncs the journal of marks and shares has made since the store opened
    /// (each may have covered many changes); for benchmarks of group commit.
    pub fn journal_syncs(&self) -> u64 {
        self.journal.syncs()
    }

    /// The items generation: it moves on with every item write.
    pub(crate) fn items_generation(&self) -> u64 {
        self.mem.items_generation.load(Ordering::Acquire)
    }

    /// Notes that items changed, so pages cached from before are not served again.
    pub(crate) fn items_changed(&self) {
        self.mem.items_generation.fetch_add(1, Ordering::Release);
    }

    /// The options the store was opened with.
    pub fn options(&self) -> &Options {
        &self.opts
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

#[cfg(test)]
pub(crate) fn test_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), Options::default()).unwrap();
    (dir, store)
}

/// In tests: copies the data directory `from` of an open store to `to` as its files are
/// now, which is what a `kill -9` of the process would leave on disk: whatever sled or
/// the journal keep only in memory is not in the copy.
#[cfg(test)]
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
