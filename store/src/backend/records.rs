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
