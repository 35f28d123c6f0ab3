//! The backend interface: what the product's rules need from a place that keeps data.
//!
//! # Where the line is drawn, and why
//!
//! Above this interface sit the product's rules (the modules of this crate that are not
//! a backend): which marks exclude which, the free cap, who is a subscriber, the quota
//! limits, how a refresh token rotates and when its reuse ends a session, when a
//! one-time link is spent, which waitlist entry a join keeps. Below it sit the backends
//! (`sled` today, an in-memory one for tests, PostgreSQL next): they store records, find
//! them by the lookups the rules need, and apply each change they are given atomically,
//! enforcing the constraints they are handed (an e-mail registered once, one set of
//! marks per reader and item, a counter that never passes its limit, one live secret per
//! owner and purpose).
//!
//! The traits are cut by aggregate, the way the product's data is owned, and their
//! methods are the rules' questions and changes, not reads and writes of keys:
//! `newest(reader, after, limit)`, not "scan this tree from this key". That is the line
//! Atuin's `Database` trait draws for its history (one trait of domain operations,
//! implemented by SQLite and PostgreSQL alike), and that vaultwarden and Plume draw with
//! their models over diesel; conduwuit's `KvTree` draws it lower, at key-value trees,
//! which makes every backend a key-value store and leaves the indexes to the layer
//! above. We keep the indexes below, because a SQL engine keeps them better itself (a
//! unique constraint, an anti-join) than a layer above can keep them in key-value pairs.
//!
//! A change whose outcome depends on what is stored (rotate this refresh token, spend
//! this link, update this account) is given as a rule: a plain function the backend
//! calls with what it read, inside the same atomic step in which it then writes the
//! rule's answer. The rule does no I/O, so a backend can run it inside a sled
//! transaction (which may run it twice) or between a `SELECT ... FOR UPDATE` and the
//! `UPDATE` of one database transaction. Where two changes of different aggregates need
//! not be one step (a subscription granted, then its waitlist entry marked approved),
//! the rules make them one after the other, in an order a crash between them leaves
//! harmless and a retry completes.
//!
//! # Async
//!
//! Every method is async, so that a backend on a network (PostgreSQL) never blocks the
//! daemon's request threads. The embedded sled backend answers from memory or its page
//! cache in microseconds and does its work inline; its only waits, for a sync to disk,
//! are awaited (the journal) or moved off the runtime (`group_commit`), never a hidden
//! `block_on`. The traits are object-safe through `async_trait` (one boxed future per
//! call, tens of nanoseconds), so [`crate::Store`] holds one `Arc<dyn Backend>` and the
//! daemon is not generic over the engine.
//!
//! # State that assumes one process
//!
//! Everything the store or the daemon keeps in memory and that a second process would
//! have to share goes through this interface too (see [`Coordination`] and the store's
//! docs): the items' version that first pages are cached under, each reader's version,
//! API quota counts, the sign-in limiter and mail pace, the feed scheduler's leases,
//! jobs that must run once (the weekly summary, the demo load), and the token secret.
//! sled answers them from memory, which is exact because sled's file lock allows one
//! process; a shared backend answers them from the database. Every piece, with what it
//! needs from a backend:
//!
//! | state | was | now | a shared backend must |
//! |---|---|---|---|
//! | items generation (first pages, the public listing, the feed head) | an atomic counter | [`ItemStore::items_version`] | move it with every item write, readable in one query |
//! | each reader's hidden and read ids, and their first page | a cache keyed by the set's version | [`MarkStore::reader_version`] (sled keeps the sets) | move it with every mark change of the reader |
//! | ready JSON of first pages and public pages | in the store | `pages` (store) and the daemon, keyed by the versions above | nothing: the versions make them safe |
//! | API quota counts | in memory, checkpointed | [`KeyStore::consume_quota`] | count exactly, never past the limit |
//! | sign-in limiter, mail pace | in the daemon | [`Coordination::rate`] | apply the GCRA step atomically per key |
//! | feed scheduler's due feeds and in-flight set | the daemon | [`Coordination::lease`] of `feed-fetch:<id>` before each fetch (the daemon's in-flight set still joins `radar feeds fetch` to a fetch under way in the same process); [`SourceStore::lease_due_feeds`] takes due feeds in one step | lease each due feed to one fetcher |
//! | weekly summary's check-then-write | a meta flag | [`SummaryStore::put_summary_once`], [`Coordination::set_flag`] | one summary per week, one first setter |
//! | the token signing secret | `DATA/jwt_secret` | [`Coordination::shared_secret`] | make it once, the same for all |
//! | start-up steps (demo load, index rebuild) | meta flags | [`Coordination::set_flag`], [`Coordination::lease`] | one holder at a time |
//! | the week's reading totals of all readers (Insights, key points) | none | [`ReadingStore::put_read_totals`], written by the job that holds the `reading-totals` lease | keep one copy every process reads |
//! | the search index's sync | `search_pending` in sled | [`ItemStore::item_changes`], [`Backend::shared_change_log`]; each replica's position in its own commit | an ordered log without gaps every replica can follow, whose last number is the items version; pruned only as a prefix, saying how far ([`ItemStore::change_log_pruned_through`]) |

mod accounts;
mod billing;
#[cfg(test)]
pub(crate) mod contract;
mod coordination;
mod items;
mod keys;
mod marks;
mod reading;
mod records;
mod sources;
mod stories;
pub mod transfer;

pub use accounts::{AccountStore, SecretLookup, SecretRule, SecretStore, SessionStore, UserChange};
pub use billing::{BillingStore, CheckoutChange};
pub use coordination::{Coordination, Lease};
pub use items::{
    FeedPosition, ItemChange, ItemStore, ItemWritten, NewestPage, NewestQuery, StoredItem,
};
pub use keys::KeyStore;
pub use marks::{MarkChange, MarkCounts, MarkStore, Share};
pub use reading::{ReadEvent, ReadingStore};
pub(crate) use records::READER_DOCS;
pub use records::{Doc, DocStore, OutboxStore, ProfileStore, SummaryStore};
pub use sources::{FeedChange, SourceStore};
pub use stories::StoryStore;

use std::sync::Arc;

use crate::sessions::Session;
use crate::{Result, User};

/// Stored JSON, shared without copying (a sled value, a database row's bytes).
pub type Json = bytes::Bytes;

/// What a reader's first feed page is decided by (see [`Backend::feed_head`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeedHead {
    /// [`ItemStore::items_version`].
    pub items_version: u64,
    /// [`MarkStore::reader_version`].
    pub reader_version: u64,
    /// The reader's cut-off: items published before it are not in their feed.
    pub read_before: Option<chrono::DateTime<chrono::Utc>>,
    /// Whether the reader reads by story ([`crate::Profile::stories`]).
    pub stories: bool,
}

/// Everything a store needs from where it keeps its data.
#[async_trait::async_trait]
pub trait Backend:
    ItemStore
    + MarkStore
    + AccountStore
    + SessionStore
    + SecretStore
    + KeyStore
    + BillingStore
    + SourceStore
    + SummaryStore
    + OutboxStore
    + ProfileStore
    + DocStore
    + ReadingStore
    + StoryStore
    + Coordination
    + Send
    + Sync
    + 'static
{
    /// The engine's name for logs and errors (`sled`, `memory`, `postgres`).
    fn engine(&self) -> &'static str;

    /// Makes every acknowledged write durable (they are already; this is for the end of a
    /// run and for offline commands that must leave the store closed cleanly).
    async fn flush(&self) -> Result<()>;

    /// Periodic upkeep, called about once a second by the daemon: saving counters kept in
    /// memory, looking at the free disk space. Cheap when there is nothing to do.
    async fn upkeep(&self) -> Result<()>;

    /// Whether writes are refused right now because the backend's disk is full (reads
    /// go on); always false for a backend without a local disk.
    fn storage_full(&self) -> bool {
        false
    }

    /// How many times the engine has waited for its disk to make writes durable since it
    /// opened (each wait may cover many writes); 0 where the engine does not count them.
    /// For benchmarks of group commit.
    fn durable_syncs(&self) -> u64 {
        0
    }

    /// Whether several processes, each with its own search replica, follow the change
    /// log ([`ItemStore::item_changes`]). Then the log keeps every entry, each replica
    /// follows it from its own position, and [`ItemStore::items_version`] is the number
    /// of its last entry, so a replica knows in one query whether it is behind. Without
    /// it (one process: sled), the log holds only what this process's index has not
    /// applied yet, and its numbers may start again after a restart.
    fn shared_change_log(&self) -> bool {
        false
    }

    /// One round trip to where the data is: what a load balancer's readiness check
    /// asks. An embedded backend is always there.
    async fn ping(&self) -> Result<()> {
        Ok(())
    }

    /// A session with its account: what every signed-in request asks first. None when
    /// either is gone. Two lookups here; a backend on a network answers both in one
    /// round trip.
    async fn session_and_user(
        &self,
        session_id: &str,
    ) -> Result<Option<(Arc<Session>, Arc<User>)>> {
        let Some(session) = self.session(session_id).await? else {
            return Ok(None);
        };
        Ok(self
            .user(&session.user_id)
            .await?
            .map(|user| (session, user)))
    }

    /// A change of marks asked by a signed-in request, checked against its session:
    /// made only while the session `session` exists and is `reader`'s, else
    /// `Error::NotFound("session")` and nothing changes. A reader's most frequent write
    /// (an item read on open): two steps here; a backend on a network checks the
    /// session in the change's own round trip, so the request needs no lookup before.
    async fn change_marks_in_session(
        &self,
        session: &str,
        reader: &str,
        item: &str,
        change: MarkChange,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<crate::ItemMarks> {
        match self.session(session).await? {
            Some(s) if s.user_id == reader => self.change_marks(reader, item, change, at).await,
            _ => Err(crate::Error::NotFound("session")),
        }
    }

    /// What a reader's first feed page is decided by: the items version and the
    /// reader's (the key of a cached first page) and the reader's cut-off. Three lookups
    /// here; a backend on a network answers them in one round trip.
    async fn feed_head(&self, reader: &str) -> Result<FeedHead> {
        let profile = self.profile(reader).await?;
        Ok(FeedHead {
            items_version: self.items_version().await?,
            reader_version: self.reader_version(reader).await?,
            read_before: profile.as_ref().and_then(|p| p.read_before),
            stories: profile.is_none_or(|p| p.stories),
        })
    }

    /// What the engine answers for moving an install (see [`transfer`]); none for an
    /// engine that cannot be moved from or to (the in-memory one of tests).
    fn transfer(&self) -> Option<&dyn transfer::Transfer> {
        None
    }
}
