//! Records owned by one place each: weekly summaries, the outbox of mail, readers'
//! profiles.

use chrono::{DateTime, Utc};

use crate::{Mail, Profile, Result, WeeklySummary};

/// Weekly summaries.
#[async_trait::async_trait]
pub trait SummaryStore: Send + Sync {
    /// Adds or replaces a summary by id.
    async fn put_summary(&self, summary: &WeeklySummary) -> Result<()>;

    /// Adds a summary unless one exists for the same week (`start_date`): answers
    /// whether it was added. What makes a scheduled summary be written once, however
    /// many daemons run the schedule.
    async fn put_summary_once(&self, summary: &WeeklySummary) -> Result<bool>;

    /// One summary.
    async fn summary(&self, id: &str) -> Result<Option<WeeklySummary>>;

    /// The summary of the week starting at `start`, if any.
    async fn summary_of_week(&self, start: DateTime<Utc>) -> Result<Option<WeeklySummary>>;

    /// Every summary, newest week first.
    async fn summaries(&self) -> Result<Vec<WeeklySummary>>;

    /// Removes a summary; answers it, or none when it did not exist.
    async fn remove_summary(&self, id: &str) -> Result<Option<WeeklySummary>>;
}

/// The outbox: every mail sent or kept for the operator.
#[async_trait::async_trait]
pub trait OutboxStore: Send + Sync {
    /// Keeps a mail.
    async fn put_mail(&self, mail: &Mail) -> Result<()>;

    /// One mail.
    async fn mail(&self, id: &str) -> Result<Option<Mail>>;

    /// Every mail, newest first.
    async fn mails(&self) -> Result<Vec<Mail>>;

    /// Deletes every mail to `address` (any case): a purged account's.
    async fn remove_mails_to(&self, address: &str) -> Result<usize>;
}

/// Readers' profiles.
#[async_trait::async_trait]
pub trait ProfileStore: Send + Sync {
    /// The user's profile, if they saved one.
    async fn profile(&self, user_id: &str) -> Result<Option<Profile>>;

    /// Saves the user's profile.
    async fn put_profile(&self, user_id: &str, profile: &Profile) -> Result<()>;
}

/// The kinds of documents keyed by a reader's id (their alerts, who has alert mail due,
/// who asked for the weekly summary by e-mail, what their alerts found): they go with the account when it is
/// deleted, and with it when an install moves (`radar migrate`).
pub(crate) const READER_DOCS: [&str; 4] = ["alerts", "alert-mail", "weekly-mail", "alert-hits"];

/// A document as stored: its JSON and the version a compare-and-set names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Doc {
    /// Counts the document's writes from 1; a new document's first write is version 1.
    pub version: u64,
    /// The document's JSON.
    pub json: Vec<u8>,
}

/// Small JSON documents, each under a kind and a key (a reader's alerts under
/// `alerts` and their user id), changed only by compare-and-set. What a feature whose
/// records belong to one reader needs from a backend, without a table of its own in
/// every engine: the rules above read a document, change it, and write it back naming
/// the version they read, so two processes changing one document never lose a change
/// (the loser reads again and retries).
#[async_trait::async_trait]
pub trait DocStore: Send + Sync {
    /// The document of `kind` under `key`, if any.
    async fn doc(&self, kind: &str, key: &str) -> Result<Option<Doc>>;

    /// Writes the document (`Some`) or removes it (`None`) if its version is still
    /// `expected` (0: it does not exist); answers whether it did. Durable on return.
    async fn put_doc(
        &self,
        kind: &str,
        key: &str,
        json: Option<&[u8]>,
        expected: u64,
    ) -> Result<bool>;

    /// Up to `limit` keys of `kind` after `after`, in key order: a walk over every
    /// document of a kind in pages.
    async fn doc_keys(&self, kind: &str, after: Option<&str>, limit: usize) -> Result<Vec<String>>;

    /// A number that moves whenever any document of `kind` is written or removed, so a
    /// cache built from every document of the kind knows when to build again.
    async fn docs_version(&self, kind: &str) -> Result<u64>;
}
