//! Accounts, their sign-in sessions with refresh tokens, and the one-time secrets mailed
//! to them (confirmation and recovery links, e-mail change links, reauthentication codes,
//! PKCE authorization codes).

use std::sync::Arc;

use crate::secrets::{SecretRecord, SecretUse};
use crate::sessions::{RefreshPlan, RefreshRecord, RefreshView, Session};
use crate::{Result, User};

/// A rule that decides what presenting a secret does, from the secret found (if any) and
/// the purposes its owner holds live secrets for. It may run more than once; it must do
/// no I/O.
pub type SecretRule<'r> =
    dyn for<'a, 'b> FnMut(Option<&'a SecretRecord>, &'b [String]) -> SecretUse + Send + 'r;

/// A rule that changes an account record in place (or refuses, with an error that the
/// backend answers unchanged). It may run more than once; it must do no I/O.
pub type UserChange<'a> = dyn FnMut(&mut User) -> Result<()> + Send + 'a;

/// Accounts.
#[async_trait::async_trait]
pub trait AccountStore: Send + Sync {
    /// Adds an account. An e-mail another account has is `Error::Conflict`.
    async fn insert_user(&self, user: &User) -> Result<()>;

    /// One account by id (shared: the hot path of every signed-in request reads it).
    async fn user(&self, id: &str) -> Result<Option<Arc<User>>>;

    /// One account by its normalised e-mail.
    async fn user_by_email(&self, email: &str) -> Result<Option<Arc<User>>>;

    /// The account whose subscription has this payment provider's customer id.
    async fn user_by_customer(&self, customer_id: &str) -> Result<Option<Arc<User>>>;

    /// Applies `change` to an account atomically and answers the new record. A change of
    /// e-mail to one another account has is `Error::Conflict`; a change of customer id
    /// moves the customer lookup with it. An unknown id is `Error::NotFound("user")`.
    async fn update_user(&self, id: &str, change: &mut UserChange<'_>) -> Result<User>;

    /// Deletes an account and everything it owns (sessions and refresh tokens, secrets,
    /// marks and shares, profile, API key and quota counts, waitlist entry, checkouts),
    /// in an order a crash cannot leave half-owned: the account goes last. Answers it,
    /// or none when it did not exist.
    async fn delete_user(&self, id: &str) -> Result<Option<User>>;

    /// Accounts in e-mail order after the e-mail `after`, at most `limit` (operators'
    /// listings).
    async fn users_after(&self, after: Option<&str>, limit: usize) -> Result<Vec<User>>;

    /// How many accounts exist.
    async fn user_count(&self) -> Result<u64>;
}

/// Sign-in sessions and their refresh tokens (each stored by the SHA-256 of the token).
#[async_trait::async_trait]
pub trait SessionStore: Send + Sync {
    /// Starts a session with its first refresh token and applies `stamp` to its account
    /// (the sign-in time), in one atomic step; answers the account as stamped.
    async fn start_session(
        &self,
        session: &Session,
        token: &[u8; 32],
        record: &RefreshRecord,
        stamp: &mut UserChange<'_>,
    ) -> Result<User>;

    /// A live session (shared: every signed-in request checks its session).
    async fn session(&self, id: &str) -> Result<Option<Arc<Session>>>;

    /// The ids of a user's live sessions.
    async fn user_sessions(&self, user_id: &str) -> Result<Vec<String>>;

    /// Ends sessions with all their refresh tokens; answers how many existed.
    async fn end_sessions(&self, ids: &[String]) -> Result<usize>;

    /// Applies `change` to an account and ends every session of it but `keep`, in one
    /// atomic step (a password change: no session of the old password outlives it).
    async fn update_user_ending_sessions(
        &self,
        user_id: &str,
        keep: Option<&str>,
        change: &mut UserChange<'_>,
    ) -> Result<User>;

    /// Presents a refresh token: the backend reads the token's record, its session with
    /// every token of the session, and the account, hands them to `rule` and applies
    /// the plan it answers, in one atomic step. `None` to the rule when the token is
    /// unknown or its session has ended.
    async fn refresh(
        &self,
        token: &[u8; 32],
        rule: &mut (dyn FnMut(Option<RefreshView>) -> RefreshPlan + Send),
    ) -> Result<RefreshPlan>;
}

/// One-time secrets, each stored by the SHA-256 of the secret, at most one live per
/// owner and purpose.
#[async_trait::async_trait]
pub trait SecretStore: Send + Sync {
    /// Stores a secret, replacing (and spending) the one its owner held for the same
    /// purpose; with `stamp`, applies it to the owner's account in the same atomic step
    /// (when the link was sent). An unknown owner is `Error::NotFound("user")`.
    async fn put_secret(
        &self,
        secret: &SecretRecord,
        stamp: Option<&mut UserChange<'_>>,
    ) -> Result<()>;

    /// Several secrets at once, each replacing its owner's secret of its purpose, and
    /// `clear` purposes of the same owner emptied, with the owner's account changed by
    /// `change`, in one atomic step (both links of an e-mail change).
    async fn put_secrets(
        &self,
        owner: &str,
        secrets: &[SecretRecord],
        clear: &[&str],
        change: &mut UserChange<'_>,
    ) -> Result<User>;

    /// Presents a secret: the backend reads it (by hash, or the live one of an owner's
    /// purpose when `by` says so) with the purposes its owner holds live secrets for,
    /// hands them to `rule`, and applies what the rule answers (keep, update or spend
    /// it), in one atomic step.
    async fn use_secret(
        &self,
        by: SecretLookup<'_>,
        rule: &mut SecretRule<'_>,
    ) -> Result<Option<SecretRecord>>;
}

/// How [`SecretStore::use_secret`] finds a secret.
#[derive(Debug, Clone, Copy)]
pub enum SecretLookup<'a> {
    /// By the SHA-256 of the secret presented.
    Hash(&'a [u8; 32]),
    /// The live secret of an owner's purpose.
    Slot {
        /// Whose.
        owner: &'a str,
        /// For what.
        purpose: &'a str,
    },
}
