//! Moving an install between engines (`radar migrate`, issue 31): every record of one
//! backend read in pages and written into another as it was, with its ids, times and
//! hashes, then counted on both sides.
//!
//! Most of a move goes through the backend interface itself, so it is one engine-neutral
//! walk: accounts by [`AccountStore::users_after`], items by [`ItemStore::items_after`]
//! with their JSON byte for byte (the feed's order is a function of each item's
//! publication time and id, so it moves with them), and each account's sessions,
//! shares, API key, profile and waitlist entry by the lookups the rules already use.
//! Writing goes through the same methods the rules write with, so each engine keeps its
//! own indexes and counters in step. What the interface cannot list (a session's refresh
//! tokens, an owner's one-time secrets, a reader's marks with their times, checkouts,
//! feed entries, flags, the shared token secret) each engine answers through
//! [`Transfer`].
//!
//! Memory: one page of items, or one account with what it owns, at a time, so an install
//! of a million items moves in bounded memory.
//!
//! Stories move with their members in joining order (see `walk_stories`).
//!
//! Deliberately not moved, each with why:
//! - the search index: a daemon rebuilds its replica from the items (sled) or follows
//!   the target's change log, which the item writes here fill (PostgreSQL);
//! - process-local and short-lived coordination: leases (the feed scheduler's and jobs'),
//!   the sign-in limiter's and mail pace's rate state: they lapse within minutes;
//! - the change log's old entries, the items' and readers' versions: versions only need
//!   to move on, and the target's start from its own writes (on PostgreSQL the item
//!   writes here fill the target's log, which the daemons' replicas follow; on sled the
//!   log is emptied, since its daemon rebuilds its index from the items);
//! - caches (parsed records, first pages, the feed head): rebuilt on demand;
//! - API quota counts of past days: the rules ask only of today's (today's is moved);
//! - shares of items removed since: no listing shows them;
//! - the embedded engine's journal and ballast file: its own machinery;
//! - documents' versions: the target's start again at 1 (a version only guards against a
//!   concurrent writer of the same engine);
//! - the totals of all readers' reads (docs/product.md §16): the target's totals job
//!   counts them again from the moved reading history within its period.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::{Backend, Share, StoredItem};
use crate::secrets::SecretRecord;
use crate::sessions::{RefreshPlan, RefreshRecord, Session};
use crate::{
    CheckoutSession, Error, Feed, Mail, Mark, Options, Profile, Result, User, WaitlistEntry,
    WeeklySummary,
};

/// Records read or written per page.
const PAGE: usize = 256;

/// The names of the shared secrets a move carries (the token signing key: without it,
/// every access token handed out before the move would stop working).
const MOVED_SECRETS: &[&str] = &["jwt_secret"];

/// What an engine answers for a move beyond the backend interface: the records the
/// rules never list. Each list is complete and in a stable order.
#[async_trait::async_trait]
pub trait Transfer: Send + Sync {
    /// Every refresh token of a session (by SHA-256), live or spent.
    async fn session_tokens(&self, session_id: &str) -> Result<Vec<([u8; 32], RefreshRecord)>>;

    /// Every live one-time secret of an owner, by purpose.
    async fn owned_secrets(&self, owner: &str) -> Result<Vec<SecretRecord>>;

    /// Every item a reader marked, in id order, with each mark and when it was set.
    async fn reader_marks(&self, reader: &str)
    -> Result<Vec<(String, Vec<(Mark, DateTime<Utc>)>)>>;

    /// Up to `limit` checkout sessions in id order after `after`.
    async fn checkouts_after(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<CheckoutSession>>;

    /// Up to `limit` of a feed's entries (guid, item id) in guid order after `after`.
    async fn feed_entries(
        &self,
        feed_id: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<(String, String)>>;

    /// The flags of work done once that are set, by name.
    async fn flags_set(&self) -> Result<Vec<String>>;

    /// A shared secret, if it was made (never made here: reading must not create one).
    async fn stored_secret(&self, name: &str) -> Result<Option<Vec<u8>>>;
}

/// One record as it moves.
#[derive(Debug, Clone)]
pub enum Record {
    /// A news item with its exact JSON.
    Item(StoredItem),
    /// A story: its id and its members in the order they joined (the lead first).
    Story {
        /// The story's id.
        id: String,
        /// Its members.
        members: Vec<String>,
    },
    /// A source feed with its polling state.
    Feed(Feed),
    /// The item a feed's entry became.
    FeedEntry {
        /// The feed.
        feed: String,
        /// The entry's guid.
        guid: String,
        /// The item.
        item: String,
    },
    /// An account.
    User(User),
    /// A session with every refresh token of it.
    Session {
        /// The session.
        session: Session,
        /// Its tokens, by SHA-256.
        tokens: Vec<([u8; 32], RefreshRecord)>,
    },
    /// A one-time secret (a mailed link, a code).
    Secret(SecretRecord),
    /// One reader's marks on one item, each with when it was set.
    Marks {
        /// The reader.
        reader: String,
        /// The item.
        item: String,
        /// The marks.
        marks: Vec<(Mark, DateTime<Utc>)>,
    },
    /// A reader's share of an item.
    Share {
        /// The reader.
        reader: String,
        /// The item.
        item: String,
        /// The share.
        share: Share,
    },
    /// A user's API key.
    ApiKey {
        /// The user.
        user: String,
        /// The key as shown to them.
        key: String,
    },
    /// Today's count of API requests of a key's owner.
    Quota {
        /// The owner.
        owner: String,
        /// Requests counted today.
        used: u64,
    },
    /// A reader's profile.
    Profile {
        /// The user.
        user: String,
        /// The profile.
        profile: Profile,
    },
    /// A reader's read of an item, with its time (the reading history).
    Read {
        /// The reader.
        reader: String,
        /// The item.
        item: String,
        /// When.
        at: DateTime<Utc>,
    },
    /// A reader's document of one kind (their alerts).
    Doc {
        /// The kind.
        kind: &'static str,
        /// The key: the reader's id.
        key: String,
        /// The document's JSON.
        json: Vec<u8>,
    },
    /// A waitlist entry.
    Waitlist(WaitlistEntry),
    /// A checkout session of the payment provider.
    Checkout(CheckoutSession),
    /// A weekly summary.
    Summary(WeeklySummary),
    /// A mail of the outbox.
    Mail(Mail),
    /// A flag of work done once.
    Flag(String),
    /// A shared secret (the token signing key).
    SharedSecret {
        /// Its name.
        name: String,
        /// Its bytes.
        secret: Vec<u8>,
    },
}

impl Record {
    /// Adds this record to `counts`, by kind.
    fn tally(&self, counts: &mut Counts) {
        let kind = match self {
            Record::Item(_) => "items",
            Record::Story { members, .. } => {
                counts.add("story members", members.len() as u64);
                "stories"
            }
            Record::Feed(_) => "feeds",
            Record::FeedEntry { .. } => "feed entries",
            Record::User(_) => "accounts",
            Record::Session { tokens, .. } => {
                counts.add("refresh tokens", tokens.len() as u64);
                "sessions"
            }
            Record::Secret(_) => "one-time secrets",
            Record::Marks { marks, .. } => {
                counts.add("marks", marks.len() as u64);
                return;
            }
            Record::Share { .. } => "shares",
            Record::ApiKey { .. } => "API keys",
            Record::Quota { used, .. } => {
                counts.add("quota requests today", *used);
                return;
            }
            Record::Profile { .. } => "profiles",
            Record::Doc { .. } => "documents",
            Record::Read { .. } => "reads",
            Record::Waitlist(_) => "waitlist entries",
            Record::Checkout(_) => "checkouts",
            Record::Summary(_) => "summaries",
            Record::Mail(_) => "mails",
            Record::Flag(_) => "flags",
            Record::SharedSecret { .. } => "shared secrets",
        };
        counts.add(kind, 1);
    }
}

/// How many records of each kind a backend holds, as a move counts them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts(pub BTreeMap<&'static str, u64>);

impl Counts {
    fn add(&mut self, kind: &'static str, n: u64) {
        *self.0.entry(kind).or_default() += n;
    }

    /// How many records in all.
    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }

    /// Checks that `target` holds what `self` (the source) held, kind by kind: a
    /// difference is an error naming the kind and both numbers.
    pub fn check(&self, target: &Counts) -> Result<()> {
        let kinds = self.0.keys().chain(target.0.keys());
        for kind in kinds {
            let (from, to) = (self.of(kind), target.of(kind));
            if from != to {
                return Err(Error::Storage(format!(
                    "the move is incomplete: the source holds {from} {kind}, the target {to}"
                )));
            }
        }
        Ok(())
    }

    /// The count of one kind (0 when none was seen).
    pub fn of(&self, kind: &str) -> u64 {
        self.0.get(kind).copied().unwrap_or(0)
    }
}

/// Where the records of a walk go: counted, or written into another backend.
#[async_trait::async_trait]
trait Sink: Send {
    async fn put(&mut self, records: Vec<Record>) -> Result<()>;
}

/// Counts what a walk reads.
struct Counter(Counts);

#[async_trait::async_trait]
impl Sink for Counter {
    async fn put(&mut self, records: Vec<Record>) -> Result<()> {
        for r in &records {
            r.tally(&mut self.0);
        }
        Ok(())
    }
}

/// Writes what a walk reads into `to`, counting as it goes.
struct Importer<'a> {
    to: &'a dyn Backend,
    now: DateTime<Utc>,
    progress: &'a (dyn Fn(u64) + Sync),
}

#[async_trait::async_trait]
impl Sink for Importer<'_> {
    async fn put(&mut self, records: Vec<Record>) -> Result<()> {
        // In the units the counts use (a session with its tokens, a reader's marks on an
        // item one per mark), so a bar over the source's total ends at it.
        let mut batch = Counts::default();
        for r in &records {
            r.tally(&mut batch);
        }
        let (items, rest): (Vec<Record>, Vec<Record>) = records
            .into_iter()
            .partition(|r| matches!(r, Record::Item(_)));
        let items: Vec<StoredItem> = items
            .into_iter()
            .filter_map(|r| match r {
                Record::Item(i) => Some(i),
                _ => None,
            })
            .collect();
        if !items.is_empty() {
            self.to.put_items(&items).await?;
        }
        for r in rest {
            import(self.to, r, self.now).await?;
        }
        (self.progress)(batch.total());
        Ok(())
    }
}

/// Opens the backend at `location`, a `postgres://` URL or a data directory (made
/// private and created if missing, as `Store::open` does), without a search index.
pub async fn open(location: &str, opts: &Options) -> Result<Arc<dyn Backend>> {
    if crate::is_database_url(location) {
        return crate::engines::open_database(location).await;
    }
    let dir = Path::new(location).to_path_buf();
    crate::opening::check_layout(&dir)?;
    crate::make_private(&dir).map_err(|e| crate::opening::explain(&dir, &dir, e))?;
    let opts = opts.clone();
    crate::run_blocking(move || crate::engines::open_embedded(&dir, &opts)).await
}

/// Whether a backend holds any account or item (a move refuses such a target).
pub async fn holds_data(b: &dyn Backend) -> Result<bool> {
    Ok(b.user_count().await? > 0 || b.item_count().await? > 0)
}

/// Counts every record a move would carry out of `from`.
pub async fn count(from: &dyn Backend, now: DateTime<Utc>) -> Result<Counts> {
    let mut counter = Counter(Counts::default());
    walk(from, now, &mut counter).await?;
    Ok(counter.0)
}

/// Writes every record of `from` into `to`, calling `progress` with the number of
/// records of each batch written. `now` fixes the day whose quota counts move.
/// Answers nothing: count both sides afterwards ([`count`], [`Counts::check`]).
pub async fn copy(
    from: &dyn Backend,
    to: &dyn Backend,
    now: DateTime<Utc>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<()> {
    let mut importer = Importer { to, now, progress };
    walk(from, now, &mut importer).await?;
    if !to.shared_change_log() {
        forget_change_log(to).await?;
    }
    to.flush().await
}

/// Empties the change log of a target that keeps one for its own replica only (sled).
/// The moved store has no replica of its items yet: the daemon's search index finds it
/// holds fewer items than the store and rebuilds from the items. Left in the log, the
/// item batches written here would be taken at the next opening for batches a crash
/// interrupted, and every item's index entries written again, then indexed twice.
async fn forget_change_log(to: &dyn Backend) -> Result<()> {
    let mut after = 0;
    loop {
        let changes = to.item_changes(after, PAGE).await?;
        let Some(last) = changes.last() else {
            return Ok(());
        };
        after = last.seq;
        let mut seqs: Vec<u64> = changes.iter().map(|c| c.seq).collect();
        seqs.dedup();
        to.forget_item_changes(&seqs).await?;
    }
}

/// The engine part of a backend, or an error for one that has none.
fn raw(b: &dyn Backend) -> Result<&dyn Transfer> {
    b.transfer().ok_or_else(|| {
        Error::Invalid(format!(
            "the {} engine cannot be moved from or to",
            b.engine()
        ))
    })
}

/// Reads every record of `from` into `sink`, in an order whose references are always
/// written before what refers to them (items before marks, feeds before their entries,
/// accounts before their sessions).
async fn walk(from: &dyn Backend, now: DateTime<Utc>, sink: &mut dyn Sink) -> Result<()> {
    let raw = raw(from)?;
    walk_items(from, sink).await?;
    walk_stories(from, sink).await?;
    walk_feeds(from, raw, sink).await?;
    walk_users(from, raw, now, sink).await?;
    walk_checkouts(raw, sink).await?;
    walk_records(from, raw, sink).await
}

async fn walk_items(from: &dyn Backend, sink: &mut dyn Sink) -> Result<()> {
    let mut after: Option<String> = None;
    loop {
        let page = from.items_after(after.as_deref(), PAGE).await?;
        if page.is_empty() {
            return Ok(());
        }
        let mut records = Vec::with_capacity(page.len());
        for json in page {
            let item: crate::NewsItem = crate::from_json(&json)?;
            after = Some(item.id.clone());
            records.push(Record::Item(StoredItem { item, json }));
        }
        sink.put(records).await?;
    }
}

/// Every story, met at its lead in the walk over the items, with its members in joining
/// order: placed in that order on the target, each story keeps its lead and its
/// covered items. (The ids of stories merged away are not moved: nothing outside keeps
/// them, since every answer names the surviving story.)
async fn walk_stories(from: &dyn Backend, sink: &mut dyn Sink) -> Result<()> {
    let mut after: Option<String> = None;
    loop {
        let page = from.items_after(after.as_deref(), PAGE).await?;
        if page.is_empty() {
            return Ok(());
        }
        let mut records = Vec::new();
        for json in page {
            let item: crate::NewsItem = crate::from_json(&json)?;
            if let Some(story) = from.story_of(&item.id).await? {
                let members = from.story_members(&story).await?;
                if members.first() == Some(&item.id) {
                    records.push(Record::Story { id: story, members });
                }
            }
            after = Some(item.id);
        }
        sink.put(records).await?;
    }
}

async fn walk_feeds(from: &dyn Backend, raw: &dyn Transfer, sink: &mut dyn Sink) -> Result<()> {
    let feeds = from.feeds().await?;
    let ids: Vec<String> = feeds.iter().map(|f| f.id.clone()).collect();
    sink.put(feeds.into_iter().map(Record::Feed).collect())
        .await?;
    for feed in ids {
        let mut after: Option<String> = None;
        loop {
            let page = raw.feed_entries(&feed, after.as_deref(), PAGE).await?;
            let Some((last, _)) = page.last() else { break };
            after = Some(last.clone());
            let records = page
                .into_iter()
                .map(|(guid, item)| Record::FeedEntry {
                    feed: feed.clone(),
                    guid,
                    item,
                })
                .collect();
            sink.put(records).await?;
        }
    }
    Ok(())
}

async fn walk_users(
    from: &dyn Backend,
    raw: &dyn Transfer,
    now: DateTime<Utc>,
    sink: &mut dyn Sink,
) -> Result<()> {
    let mut after: Option<String> = None;
    loop {
        let users = from.users_after(after.as_deref(), PAGE).await?;
        let Some(last) = users.last() else {
            return Ok(());
        };
        after = Some(last.email.clone());
        for user in users {
            let records = owned_by(from, raw, user, now).await?;
            sink.put(records).await?;
        }
    }
}

/// An account with everything it owns, the account first.
async fn owned_by(
    from: &dyn Backend,
    raw: &dyn Transfer,
    user: User,
    now: DateTime<Utc>,
) -> Result<Vec<Record>> {
    let id = user.id.clone();
    let mut out = vec![Record::User(user)];
    let mut sessions = from.user_sessions(&id).await?;
    sessions.sort();
    for sid in sessions {
        if let Some(session) = from.session(&sid).await? {
            let mut tokens = raw.session_tokens(&sid).await?;
            tokens.sort_by_key(|(hash, _)| *hash);
            out.push(Record::Session {
                session: Session::clone(&session),
                tokens,
            });
        }
    }
    out.extend(
        raw.owned_secrets(&id)
            .await?
            .into_iter()
            .map(Record::Secret),
    );
    for (item, marks) in raw.reader_marks(&id).await? {
        out.push(Record::Marks {
            reader: id.clone(),
            item,
            marks,
        });
    }
    let mut shares = from.shares(&id).await?;
    shares.sort_by(|a, b| a.0.cmp(&b.0));
    for (item, share) in shares {
        // A share outlives its item (the rules skip it); a target that checks its
        // items would refuse it, and no listing shows it, so it stays behind.
        if !from.item_exists(&item).await? {
            continue;
        }
        out.push(Record::Share {
            reader: id.clone(),
            item,
            share,
        });
    }
    if let Some(key) = from.api_key(&id).await? {
        out.push(Record::ApiKey {
            user: id.clone(),
            key,
        });
    }
    let used = from.quota_used(&id, now).await?;
    if used > 0 {
        out.push(Record::Quota {
            owner: id.clone(),
            used,
        });
    }
    if let Some(profile) = from.profile(&id).await? {
        out.push(Record::Profile {
            user: id.clone(),
            profile,
        });
    }
    // The history is kept for three weeks (pruned), so one reader's is a bounded list.
    for (item, at) in from.reads_of(&id, DateTime::UNIX_EPOCH, usize::MAX).await? {
        out.push(Record::Read {
            reader: id.clone(),
            item,
            at,
        });
    }
    for kind in super::records::READER_DOCS {
        if let Some(doc) = from.doc(kind, &id).await? {
            out.push(Record::Doc {
                kind,
                key: id.clone(),
                json: doc.json,
            });
        }
    }
    if let Some(entry) = from.waitlist_entry(&id).await? {
        out.push(Record::Waitlist(entry));
    }
    Ok(out)
}

async fn walk_checkouts(raw: &dyn Transfer, sink: &mut dyn Sink) -> Result<()> {
    let mut after: Option<String> = None;
    loop {
        let page = raw.checkouts_after(after.as_deref(), PAGE).await?;
        let Some(last) = page.last() else {
            return Ok(());
        };
        after = Some(last.id.clone());
        sink.put(page.into_iter().map(Record::Checkout).collect())
            .await?;
    }
}

/// Summaries, the outbox, flags and shared secrets: few records each.
async fn walk_records(from: &dyn Backend, raw: &dyn Transfer, sink: &mut dyn Sink) -> Result<()> {
    let mut records: Vec<Record> = from
        .summaries()
        .await?
        .into_iter()
        .map(Record::Summary)
        .collect();
    let mut flags = raw.flags_set().await?;
    flags.sort();
    records.extend(flags.into_iter().map(Record::Flag));
    for name in MOVED_SECRETS {
        if let Some(secret) = raw.stored_secret(name).await? {
            records.push(Record::SharedSecret {
                name: (*name).to_string(),
                secret,
            });
        }
    }
    sink.put(records).await?;
    let mut mails = from.mails().await?;
    mails.sort_by(|a, b| a.id.cmp(&b.id));
    for page in mails.chunks(PAGE) {
        sink.put(page.iter().cloned().map(Record::Mail).collect())
            .await?;
    }
    Ok(())
}

/// Writes one record (not an item: those go in batches) through the interface's own
/// writes, as it was.
async fn import(to: &dyn Backend, record: Record, now: DateTime<Utc>) -> Result<()> {
    match record {
        Record::Item(item) => to.put_items(&[item]).await.map(drop),
        Record::Story { id, members } => {
            for member in &members {
                to.place_in_story(member, &id, &[]).await?;
            }
            Ok(())
        }
        Record::Feed(feed) => to.insert_feed(&feed).await,
        Record::FeedEntry { feed, guid, item } => to.put_entry_item(&feed, &guid, &item).await,
        Record::User(user) => to.insert_user(&user).await,
        Record::Session { session, tokens } => import_session(to, &session, &tokens).await,
        Record::Secret(secret) => to.put_secret(&secret, None).await,
        Record::Marks {
            reader,
            item,
            marks,
        } => {
            for (mark, at) in marks {
                let change = super::MarkChange {
                    clear: crate::ItemMarks::default(),
                    set: Some(mark),
                };
                to.change_marks(&reader, &item, change, at).await?;
            }
            Ok(())
        }
        Record::Share {
            reader,
            item,
            share,
        } => to.share(&reader, &item, &share).await,
        Record::ApiKey { user, key } => {
            let hash = crate::api_keys::key_hash(&key);
            to.put_api_key(&user, &key, &hash, true).await.map(drop)
        }
        Record::Quota { owner, used } => {
            // Counted one by one up to the limit of the day's count itself: a count is
            // at most a key's daily limit, and this is exact on every engine.
            for _ in 0..used {
                to.consume_quota(&owner, used, now).await?;
            }
            Ok(())
        }
        Record::Profile { user, profile } => to.put_profile(&user, &profile).await,
        Record::Read { reader, item, at } => to.record_read(&reader, &item, at).await,
        Record::Doc { kind, key, json } => {
            // The target starts the document's versions again: they only need to move on.
            if to.put_doc(kind, &key, Some(&json), 0).await? {
                Ok(())
            } else {
                Err(Error::Conflict(format!(
                    "the target already holds the {kind} of {key}"
                )))
            }
        }
        Record::Waitlist(entry) => to.join_waitlist(&entry).await.map(drop),
        Record::Checkout(checkout) => to.insert_checkout(&checkout).await,
        Record::Summary(summary) => to.put_summary(&summary).await,
        Record::Mail(mail) => to.put_mail(&mail).await,
        Record::Flag(name) => to.set_flag(&name).await.map(drop),
        Record::SharedSecret { name, secret } => {
            let kept = to.shared_secret(&name, &|| secret.clone()).await?;
            if kept == secret {
                Ok(())
            } else {
                Err(Error::Conflict(format!(
                    "the target already has its own {name}: move into an empty store"
                )))
            }
        }
    }
}

/// A session with its first token, then its other tokens in the same kind of step a
/// refresh takes (the plan of a refresh is applied whatever its outcome).
async fn import_session(
    to: &dyn Backend,
    session: &Session,
    tokens: &[([u8; 32], RefreshRecord)],
) -> Result<()> {
    let Some(((first, record), rest)) = tokens.split_first() else {
        // A session without a token cannot be refreshed or stored alone; nothing to move.
        return Ok(());
    };
    to.start_session(session, first, record, &mut |_| Ok(()))
        .await?;
    if !rest.is_empty() {
        let put = rest.to_vec();
        to.refresh(first, &mut |_| RefreshPlan {
            put: put.clone(),
            ..RefreshPlan::default()
        })
        .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
